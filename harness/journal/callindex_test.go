package journal

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"skillet/harness/event"
)

// callBody is a chat-completions request of a conversation that grows by
// two messages a call, as a session's do, so the journal keeps most of
// each as a reference to the call before.
func callBody(t *testing.T, call int) []byte {
	t.Helper()
	type msg struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	body := struct {
		Model    string           `json:"model"`
		Messages []msg            `json:"messages"`
		Tools    []map[string]any `json:"tools"`
	}{Model: "m", Messages: []msg{{"system", "You are helpful. " + strings.Repeat("Rules. ", 20)}},
		Tools: []map[string]any{{"type": "function", "function": map[string]any{"name": "load_skill"}}}}
	for i := 1; i <= call; i++ {
		body.Messages = append(body.Messages, msg{"user", fmt.Sprintf("question %d %s", i, strings.Repeat("words ", 10))},
			msg{"assistant", fmt.Sprintf("answer %d", i)})
	}
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeCalls appends model calls from..to (numbered from 1), each followed
// by its reply, to the journal at path.
func writeCalls(t *testing.T, w *Writer, from, to int) {
	t.Helper()
	for c := from; c <= to; c++ {
		if err := w.Write(&event.ModelCall{Header: event.Header{Turn: c}, Call: c, Request: callBody(t, c)}); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&event.Assistant{Header: event.Header{Turn: c}, Raw: fmt.Sprintf(`{"reply":%d}`, c)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
}

// The index puts any call's exact request and raw reply back together
// from the journal alone, across frames, and follows a journal that grows.
func TestCallIndexReadsEveryCallBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w, err := OpenWriter(path, NewCodec())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	n := 2*FrameEvery + 3
	writeCalls(t, w, 1, n)
	if raw, err := os.ReadFile(path); err != nil || strings.Count(string(raw), `"request_ref"`) < n-1 {
		t.Fatalf("the journal keeps requests whole, not as references to the call before (%v)", err)
	}
	var ix CallIndex
	check := func(i int) {
		t.Helper()
		req, reply, err := ix.Body(path, i)
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		if want := callBody(t, i+1); string(req) != string(want) {
			t.Fatalf("call %d: request\n%s\nwant\n%s", i+1, req, want)
		}
		if want := fmt.Sprintf(`{"reply":%d}`, i+1); reply != want {
			t.Fatalf("call %d: reply %q, want %q", i+1, reply, want)
		}
	}
	for _, i := range []int{n - 1, 0, FrameEvery - 1, FrameEvery, FrameEvery + 1, 2*FrameEvery + 1} {
		check(i)
	}
	if _, _, err := ix.Body(path, n); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("holds %d model calls", n)) {
		t.Fatalf("a call past the journal's: %v", err)
	}
	writeCalls(t, w, n+1, n+2)
	check(n + 1)
	check(n)
}
