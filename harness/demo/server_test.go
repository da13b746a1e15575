package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"charm.land/glamour/v2"

	"skillet/harness/chat"
)

// post sends body to the chat-completions path of base and returns the
// status and the whole response body.
func post(t *testing.T, base string, body []byte) (int, []byte, http.Header) {
	t.Helper()
	resp, err := http.Post(base+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b, resp.Header
}

// sseChunk is a stream chunk as a client decodes it.
type sseChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    *int   `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string  `json:"name"`
					Arguments *string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
}

// readSSE parses a stream body: "data: X" lines each followed by a blank
// line, ending with [DONE]. It returns the decoded chunks.
func readSSE(t *testing.T, body []byte) []sseChunk {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out []sseChunk
	done := false
	for sc.Scan() {
		line := sc.Text()
		if done {
			t.Fatalf("data after [DONE]: %q", line)
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line is not an SSE data line: %q", line)
		}
		if !sc.Scan() || sc.Text() != "" {
			t.Fatalf("event %q not followed by a blank line", data)
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var c sseChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		out = append(out, c)
	}
	if !done {
		t.Fatalf("stream did not end with [DONE]")
	}
	return out
}

// assembled is a streamed reply put back together the way a client does.
type assembled struct {
	content   string
	pieces    []string
	calls     []chat.ToolCall
	fragments map[int]int // argument fragments per call index
	finish    string
	usage     *usage
}

func assemble(t *testing.T, chunks []sseChunk) assembled {
	t.Helper()
	a := assembled{fragments: map[int]int{}}
	if len(chunks) == 0 || len(chunks[0].Choices) != 1 || chunks[0].Choices[0].Delta.Role != "assistant" {
		t.Fatalf("first chunk does not carry the assistant role: %+v", chunks)
	}
	for i, c := range chunks {
		if c.Object != "chat.completion.chunk" || c.Model != ModelName || c.ID != chunks[0].ID {
			t.Fatalf("chunk %d: object %q model %q id %q", i, c.Object, c.Model, c.ID)
		}
		if c.Usage != nil {
			if len(c.Choices) != 0 || i != len(chunks)-1 {
				t.Fatalf("usage chunk %d has choices or is not last", i)
			}
			a.usage = c.Usage
			continue
		}
		if len(c.Choices) != 1 {
			t.Fatalf("chunk %d has %d choices", i, len(c.Choices))
		}
		ch := c.Choices[0]
		if a.finish != "" {
			t.Fatalf("chunk %d after the finish reason", i)
		}
		if ch.Delta.Content != nil && *ch.Delta.Content != "" {
			a.content += *ch.Delta.Content
			a.pieces = append(a.pieces, *ch.Delta.Content)
		}
		for _, tc := range ch.Delta.ToolCalls {
			if tc.Index == nil {
				t.Fatalf("tool call fragment without index")
			}
			idx := *tc.Index
			if tc.ID != "" { // head of a call
				if idx != len(a.calls) || tc.Type != "function" || tc.Function.Name == "" {
					t.Fatalf("bad tool call head %+v", tc)
				}
				a.calls = append(a.calls, chat.ToolCall{ID: tc.ID, Type: tc.Type, Function: chat.FunctionCall{Name: tc.Function.Name}})
				continue
			}
			if idx >= len(a.calls) || tc.Function.Name != "" || tc.Type != "" || tc.Function.Arguments == nil {
				t.Fatalf("bad argument fragment %+v", tc)
			}
			a.calls[idx].Function.Arguments += *tc.Function.Arguments
			a.fragments[idx]++
		}
		if ch.FinishReason != nil {
			a.finish = *ch.FinishReason
		}
	}
	if a.finish == "" {
		t.Fatalf("no finish reason in the stream")
	}
	return a
}

// firstTurnRequest is the first request of the demo chat: it loads a skill.
func firstTurnRequest(t *testing.T) *chat.Request {
	return req(baseSys(), offer(t, "load_skill", "read_skill_resource"), user("review account ACC-1042 for anomalies"))
}

// textRequest is a request the demo model answers in text.
func textRequest(t *testing.T) *chat.Request {
	loaded := []loadedSkill{{skill: accountReview, exec: "x-1", active: true}}
	sys := systemMessage("You are careful.", []testSkill{houseStyle}, sampleListed, loaded)
	return req(sys, offer(t, "load_skill", "get_account_activity"),
		user("review account ACC-1042"),
		called("c1", "get_account_activity", `{"account_id":"ACC-1042"}`),
		result("c1", `{"items":[{"id":"TX-1","amount":4850}]}`))
}

func body(t *testing.T, r *chat.Request, stream, usage bool) []byte {
	t.Helper()
	cp := *r
	cp.Stream = stream
	if usage {
		cp.StreamOptions = &chat.StreamOptions{IncludeUsage: true}
	}
	b, err := cp.Body()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func startServer(t *testing.T) *Server {
	t.Helper()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || !strings.HasSuffix(s.URL, "/v1") {
		t.Fatalf("URL %q is not a loopback base URL ending in /v1", s.URL)
	}
	return s
}

func TestHTTP_NonStream(t *testing.T) {
	s := startServer(t)
	for _, r := range []*chat.Request{firstTurnRequest(t), textRequest(t)} {
		status, b, hdr := post(t, s.URL, body(t, r, false, false))
		if status != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
			t.Fatalf("status %d, content type %q: %s", status, hdr.Get("Content-Type"), b)
		}
		var got struct {
			Object  string `json:"object"`
			Model   string `json:"model"`
			Choices []struct {
				Message      chat.Message `json:"message"`
				FinishReason string       `json:"finish_reason"`
			} `json:"choices"`
			Usage usage `json:"usage"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		want := Respond(r)
		if got.Object != "chat.completion" || got.Model != ModelName || len(got.Choices) != 1 {
			t.Fatalf("bad completion: %s", b)
		}
		wantJSON, _ := json.Marshal(want)
		gotJSON, _ := json.Marshal(got.Choices[0].Message)
		if string(gotJSON) != string(wantJSON) {
			t.Fatalf("message over HTTP\n %s\ndiffers from Respond\n %s", gotJSON, wantJSON)
		}
		wantFinish := "stop"
		if len(want.ToolCalls) > 0 {
			wantFinish = "tool_calls"
			if !strings.Contains(string(b), `"content":null`) {
				t.Errorf("a tool-call message should carry a null content: %s", b)
			}
		}
		if got.Choices[0].FinishReason != wantFinish {
			t.Errorf("finish reason %q, want %q", got.Choices[0].FinishReason, wantFinish)
		}
		u := got.Usage
		if u.PromptTokens <= 0 || u.CompletionTokens <= 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
			t.Errorf("usage %+v", u)
		}
	}
}

func TestHTTP_StreamToolCall(t *testing.T) {
	s := startServer(t)
	r := firstTurnRequest(t)
	status, b, hdr := post(t, s.URL, body(t, r, true, true))
	if status != http.StatusOK || hdr.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", status, hdr.Get("Content-Type"))
	}
	a := assemble(t, readSSE(t, b))
	want := Respond(r)
	if a.finish != "tool_calls" || a.content != "" || len(a.calls) != 1 {
		t.Fatalf("finish %q content %q calls %+v", a.finish, a.content, a.calls)
	}
	got, wantCall := a.calls[0], want.ToolCalls[0]
	if got.ID != wantCall.ID || got.Function != wantCall.Function {
		t.Fatalf("streamed call %+v, want %+v", got, wantCall)
	}
	if a.fragments[0] != 2 {
		t.Errorf("arguments came in %d fragments, want 2", a.fragments[0])
	}
	if a.usage == nil || a.usage.PromptTokens <= 0 || a.usage.CompletionTokens <= 0 {
		t.Errorf("usage chunk missing or empty: %+v", a.usage)
	}
}

func TestHTTP_StreamText(t *testing.T) {
	s := startServer(t)
	r := textRequest(t)
	_, b, _ := post(t, s.URL, body(t, r, true, false))
	a := assemble(t, readSSE(t, b))
	want := Respond(r)
	if a.content != want.Content || a.finish != "stop" || len(a.calls) != 0 {
		t.Fatalf("streamed text %q finish %q, want %q", a.content, a.finish, want.Content)
	}
	if a.usage != nil {
		t.Errorf("usage chunk sent without include_usage")
	}
	if len(a.pieces) < 10 {
		t.Errorf("text came in %d pieces, want word-sized pieces", len(a.pieces))
	}
	for _, p := range a.pieces {
		if len(strings.Fields(p)) > 1 {
			t.Errorf("piece %q holds more than one word", p)
		}
	}
}

func TestHTTP_MalformedRequestIs400(t *testing.T) {
	s := startServer(t)
	for _, b := range []string{
		`{"model": "x", "messages": [`,
		`not json`,
		`{"model": "x", "messages": "hello"}`,
		`{"model": "x", "messages": []}`,
		``,
	} {
		status, resp, hdr := post(t, s.URL, []byte(b))
		if status != http.StatusBadRequest {
			t.Errorf("%q: status %d, want 400", b, status)
		}
		var e struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
			} `json:"error"`
		}
		if err := json.Unmarshal(resp, &e); err != nil || e.Error.Message == "" || e.Error.Type != "invalid_request_error" {
			t.Errorf("%q: error body %s (%v)", b, resp, err)
		}
		if !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
			t.Errorf("%q: content type %q", b, hdr.Get("Content-Type"))
		}
	}
}

func TestHTTP_WrongMethodOrPath(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, "/v1/chat/completions", http.StatusMethodNotAllowed},
		{http.MethodPost, "/v1/models", http.StatusMethodNotAllowed},
		{http.MethodGet, "/v1/embeddings", http.StatusNotFound},
	} {
		rq, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(rq)
		if err != nil {
			t.Fatal(err)
		}
		var e struct{ Error struct{ Message string } }
		err = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != tc.status || err != nil || e.Error.Message == "" {
			t.Errorf("%s %s: status %d, error %q (%v)", tc.method, tc.path, resp.StatusCode, e.Error.Message, err)
		}
	}
}

func TestHTTP_Models(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			ID, Object, OwnedBy string
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if list.Object != "list" || len(list.Data) != 1 || list.Data[0].ID != ModelName {
		t.Fatalf("models: %+v", list)
	}
}

func TestHTTP_DeterministicBytes(t *testing.T) {
	s := startServer(t)
	for _, r := range []*chat.Request{firstTurnRequest(t), textRequest(t)} {
		for _, stream := range []bool{false, true} {
			b := body(t, r, stream, true)
			_, first, _ := post(t, s.URL, b)
			_, second, _ := post(t, s.URL, b)
			if !bytes.Equal(first, second) {
				t.Fatalf("stream=%v: two replies to one request differ:\n%s\n%s", stream, first, second)
			}
		}
	}
}

func TestStartWith_ChunkDelaySendsTheSameStream(t *testing.T) {
	slow, err := StartWith(Options{ChunkDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fast := startServer(t)
	b := body(t, textRequest(t), true, true)
	_, want, _ := post(t, fast.URL, b)
	_, got, _ := post(t, slow.URL, b)
	if !bytes.Equal(got, want) {
		t.Fatalf("delayed stream differs:\n%s\n%s", got, want)
	}
}

func TestServer_CloseCutsAStreamInFlight(t *testing.T) {
	s, err := StartWith(Options{ChunkDelay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rq, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/chat/completions", bytes.NewReader(body(t, textRequest(t), true, false)))
	resp, err := http.DefaultClient.Do(rq)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	// The headers came; the first chunk waits an hour. Close must not.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if bytes.Contains(b, []byte("[DONE]")) {
		t.Fatalf("stream finished despite Close: %s", b)
	}
	if _, err := http.Post(s.URL+"/chat/completions", "application/json", strings.NewReader("{}")); err == nil {
		t.Fatalf("server still answers after Close")
	}
}

func TestRule4_AnswerRendersAsMarkdown(t *testing.T) {
	tricky := "a `b` *c* <d> _e_ [f](g) # h"
	r := req(baseSys(), nil, user("call odd_tool"), called("c1", "odd_tool", "{}"), result("c1", tricky))
	text := textOf(t, Respond(r))
	tr, err := glamour.NewTermRenderer(glamour.WithStandardStyle("notty"), glamour.WithWordWrap(0))
	if err != nil {
		t.Fatal(err)
	}
	out, err := tr.Render(text)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	for _, want := range []string{"[demo model]", "odd_tool answered: " + tricky} {
		if !strings.Contains(out, want) {
			t.Errorf("rendered answer lacks %q:\n%s", want, out)
		}
	}
}

func BenchmarkRespond(b *testing.B) {
	w := newWorld(b)
	for _, u := range []string{"review account ACC-1042 for anomalies", "write an incident report for yesterday's outage", "capture meeting notes: we decided to ship on Friday"} {
		w.turn(u)
	}
	w.transcript = append(w.transcript, user("run the release checks for v1.4.0"))
	r := w.request()
	b.ResetTimer()
	for b.Loop() {
		Respond(r)
	}
}

func BenchmarkHTTPStream(b *testing.B) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	r := req(baseSys(), offer(b, "load_skill"), user("hello"))
	r.Stream = true
	payload, err := r.Body()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", bytes.NewReader(payload))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
