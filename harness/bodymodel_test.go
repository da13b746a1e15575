package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"

	"skillet/harness/chat"
	"skillet/harness/event"
)

// bodyModel is a chat.BodyModel: it keeps the bodies it was handed.
type bodyModel struct {
	scripted
	mu     sync.Mutex
	bodies [][]byte
	plain  int
}

func (m *bodyModel) CompleteBody(ctx context.Context, req *chat.Request, body []byte, on func(chat.StreamEvent)) (*chat.Reply, error) {
	m.mu.Lock()
	m.bodies = append(m.bodies, body)
	m.mu.Unlock()
	return m.scripted.Complete(ctx, req, on)
}

func (m *bodyModel) Complete(ctx context.Context, req *chat.Request, on func(chat.StreamEvent)) (*chat.Reply, error) {
	m.mu.Lock()
	m.plain++
	m.mu.Unlock()
	return m.scripted.Complete(ctx, req, on)
}

// TestBodyModelIsSentTheRecordedBody: a model that takes an encoded body
// gets the very bytes each model_call records, the encoding of the
// request it is given, and Complete is not called.
func TestBodyModelIsSentTheRecordedBody(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	m := &bodyModel{}
	f := w.open("", func(o *Options) { o.Model = m })
	f.model = &m.scripted
	f.turn("use alpha", load("alpha"), say("done"))
	calls := f.rec.ofType(event.TypeModelCall)
	if len(calls) != 2 || len(m.bodies) != 2 || m.plain != 0 {
		t.Fatalf("%d model calls, %d bodies, %d plain calls", len(calls), len(m.bodies), m.plain)
	}
	for i, e := range calls {
		if got := e.(*event.ModelCall).Request; !bytes.Equal(got, m.bodies[i]) {
			t.Fatalf("call %d recorded\n%s\nsent\n%s", i+1, got, m.bodies[i])
		}
		// the model keeps a decoded copy of each request: the body sent
		// decodes to the same
		var sent chat.Request
		if err := json.Unmarshal(m.bodies[i], &sent); err != nil {
			t.Fatal(err)
		}
		got, _ := sent.Body()
		want, _ := m.requests()[i].Body()
		if !bytes.Equal(got, want) {
			t.Fatalf("call %d: the body sent is not the request's encoding\n%s\n%s", i+1, got, want)
		}
	}
}
