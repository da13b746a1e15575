package cassette

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"skillet/harness/chat"
	"skillet/harness/llm"
)

// benchCassette is a 100-call session: each request carries a system
// prompt of about 12 KB and a transcript that grows by a tool call and its
// result per call; each reply is 40 streamed pieces.
func benchCassette(calls int) (*Cassette, []*chat.Request) {
	c := &Cassette{Header: Header{Kind: KindHeader, Format: Format, Model: "m"}}
	sys := strings.Repeat("<skill><name>s</name><description>a skill that does things</description></skill>\n", 150)
	msgs := []chat.Message{{Role: chat.RoleSystem, Content: sys}, {Role: chat.RoleUser, Content: "go"}}
	var reqs []*chat.Request
	for i := range calls {
		req := &chat.Request{Model: "m", Stream: true, Messages: append([]chat.Message(nil), msgs...)}
		body, _ := req.Body()
		call := &Call{Kind: KindCall, N: i + 1, Request: body, Status: 200, ContentType: "text/event-stream"}
		for j := range 40 {
			call.Chunks = append(call.Chunks, Chunk{MS: float64(j * 30),
				Data: fmt.Sprintf(`data: {"choices":[{"index":0,"delta":{"content":"word%d "},"finish_reason":null}]}`+"\n\n", j)})
		}
		call.Chunks = append(call.Chunks, Chunk{MS: 1300, Data: `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"})
		c.Calls = append(c.Calls, call)
		reqs = append(reqs, req)
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: id, Function: chat.FunctionCall{Name: "t", Arguments: `{"n":1}`}}}},
			chat.Message{Role: chat.RoleTool, ToolCallID: id, Content: strings.Repeat("result ", 40)})
	}
	return c, reqs
}

func replayAll(b *testing.B, base string, reqs []*chat.Request) {
	client, err := llm.New(llm.Config{BaseURL: base, MaxRetries: -1})
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range reqs {
		if _, err := client.Complete(context.Background(), r, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplay100Calls replays a 100-call cassette at --pace 0 through
// the real client, strict matching included. Its "floor" sub-benchmark
// sends the same 100 calls to a server that answers with a canned reply,
// reading no cassette and comparing nothing; "replay" reports its time as
// a ratio to that floor, measured in the same run.
func BenchmarkReplay100Calls(b *testing.B) {
	c, reqs := benchCassette(100)
	canned := c.Calls[0].Chunks
	var floorNs float64
	b.Run("floor", func(b *testing.B) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.Copy(io.Discard, r.Body)
			for _, ch := range canned {
				w.Write(ch.Bytes())
				w.(http.Flusher).Flush()
			}
		}))
		defer srv.Close()
		for b.Loop() {
			replayAll(b, srv.URL+"/v1", reqs)
		}
		floorNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("replay", func(b *testing.B) {
		for b.Loop() {
			p, err := Play(c, PlayOptions{})
			if err != nil {
				b.Fatal(err)
			}
			replayAll(b, p.URL, reqs)
			if len(p.Mismatches()) > 0 {
				b.Fatal(p.Mismatches()[0])
			}
			p.Close()
		}
		per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		b.ReportMetric(per/1e6, "ms/100-calls")
		if floorNs > 0 {
			b.ReportMetric(per/floorNs, "floor-ratio")
		}
	})
}
