package cassette

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"skillet/harness/chat"
	"skillet/harness/llm"
	"skillet/harness/tools"
)

const key = "sk-unit-SECRET-9876"

// echoServer streams a reply that quotes the request's Authorization
// header, split so the key straddles two network writes.
func echoServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Set-Cookie", "session="+key)
		f := w.(http.Flusher)
		ev := fmt.Sprintf(`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"you sent %s"},"finish_reason":null}]}`+"\n\n", auth)
		half := strings.Index(ev, "Bearer ") + 12 // inside the key
		fmt.Fprint(w, ev[:half])
		f.Flush()
		time.Sleep(5 * time.Millisecond)
		fmt.Fprint(w, ev[half:])
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func record(t *testing.T, srv *httptest.Server, path string, reqs ...*chat.Request) []*chat.Reply {
	t.Helper()
	rec, err := Create(path, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Start(Header{Model: "m", Endpoint: srv.URL + "/v1?api_key=" + key}); err != nil {
		t.Fatal(err)
	}
	client, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", APIKey: key, HTTPClient: &http.Client{Transport: rec.Transport(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	var out []*chat.Reply
	for _, req := range reqs {
		rep, err := client.Complete(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rep)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func request(user string) *chat.Request {
	return &chat.Request{Model: "m", Stream: true, Messages: []chat.Message{
		{Role: chat.RoleSystem, Content: "<rules>\nbe brief\n</rules>"}, {Role: chat.RoleUser, Content: user}}}
}

func TestRecordCutsTheKeyEvenWhenEchoed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	replies := record(t, echoServer(t), path, request("hello"))
	// the server echoed the key; the client hands it on cut out
	if c := replies[0].Message.Content; strings.Contains(c, key) || !strings.Contains(c, "[redacted API key]") {
		t.Fatalf("the echoed key should reach the engine redacted: %q", c)
	}
	raw, _ := os.ReadFile(path)
	if bytes.Contains(raw, []byte(key)) || bytes.Contains(bytes.ToLower(raw), []byte("authorization")) || bytes.Contains(raw, []byte("Cookie")) {
		t.Fatalf("the cassette holds a secret:\n%s", raw)
	}
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := request("hello").Body()
	if len(c.Calls) != 1 || !bytes.Equal(c.Calls[0].Body(), body) || c.Calls[0].Status != 200 {
		t.Fatalf("calls: %+v", c.Calls)
	}
	if c.Header.Endpoint != c.Header.Endpoint[:strings.Index(c.Header.Endpoint, "/v1")+3] {
		t.Fatalf("the endpoint keeps its query: %s", c.Header.Endpoint)
	}
	if n := len(c.Calls[0].Chunks); n < 2 || c.Calls[0].Chunks[n-1].MS < c.Calls[0].Chunks[0].MS {
		t.Fatalf("chunks and their times: %+v", c.Calls[0].Chunks)
	}
}

func TestPlayerServesTheRecordingToTheRealClient(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	want := record(t, echoServer(t), path, request("one"), request("two"))
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var heard []*Mismatch
	p, err := Play(c, PlayOptions{OnMismatch: func(m *Mismatch) { heard = append(heard, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	client, _ := llm.New(llm.Config{BaseURL: p.URL, MaxRetries: -1})
	got, err := client.Complete(context.Background(), request("one"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Message.Content != strings.ReplaceAll(want[0].Message.Content, key, llm.RedactedKey) {
		t.Fatalf("replayed %q, recorded %q", got.Message.Content, want[0].Message.Content)
	}
	_, err = client.Complete(context.Background(), request("deux"), nil)
	var ae *chat.APIError
	if !errors.As(err, &ae) || !strings.Contains(ae.Message, "request 2 differs") || !strings.Contains(ae.Message, "-two") || !strings.Contains(ae.Message, "+deux") {
		t.Fatalf("strict mismatch: %v", err)
	}
	if len(heard) != 1 || !heard[0].Fatal {
		t.Fatalf("mismatches heard: %+v", heard)
	}
	_, err = client.Complete(context.Background(), request("two"), nil)
	if err == nil || !strings.Contains(err.Error(), "stopped at request 2, which differed") {
		t.Fatalf("after a strict mismatch: %v", err)
	}

	p2, err := Play(c, PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	client, _ = llm.New(llm.Config{BaseURL: p2.URL, MaxRetries: -1})
	for _, u := range []string{"one", "two"} {
		if _, err := client.Complete(context.Background(), request(u), nil); err != nil {
			t.Fatal(err)
		}
	}
	_, err = client.Complete(context.Background(), request("three"), nil)
	if err == nil || !strings.Contains(err.Error(), "holds 2 model calls; this session asked for call 3") {
		t.Fatalf("past the end: %v", err)
	}
}

func TestLenientPlayerWantsTheSameToolCalls(t *testing.T) {
	call := func(args string) chat.Message {
		return chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c1", Function: chat.FunctionCall{Name: "lookup", Arguments: args}}}}
	}
	with := func(user, args string) []byte {
		r := request(user)
		r.Messages = append(r.Messages, call(args), chat.Message{Role: chat.RoleTool, ToolCallID: "c1", Content: "ok"})
		b, _ := r.Body()
		return b
	}
	p := &Player{opts: PlayOptions{Lenient: true}}
	rec := &Call{N: 1, Request: with("hi", `{"a":1,"b":2}`)}
	if m := p.check(rec, with("hello", `{"b":2, "a":1}`)); m == nil || m.Fatal {
		t.Fatalf("other user text, same calls: %+v", m)
	}
	if m := p.check(rec, with("hi", `{"a":2}`)); m == nil || !m.Fatal || !strings.Contains(m.Reason, `lookup {"a":2}`) {
		t.Fatalf("other arguments: %+v", m)
	}
}

func TestDeltaNamesWhatChanged(t *testing.T) {
	tool := func(name, desc string) chat.Tool {
		return chat.Tool{Type: "function", Function: &openaiFunction{Name: name, Description: desc}}
	}
	a := request("hi")
	a.Messages[0].Content = "intro\n<skill>\n<name>x</name>\n<description>old words</description>\n</skill>\nend"
	a.Tools = []chat.Tool{tool("keep", "same"), tool("gone", "g"), tool("edit", "before")}
	b := request("hi")
	b.Messages[0].Content = "intro\n<skill>\n<name>x</name>\n<description>new words</description>\n</skill>\nend"
	b.Messages = append(b.Messages, chat.Message{Role: chat.RoleUser, Content: "extra"})
	b.Tools = []chat.Tool{tool("keep", "same"), tool("edit", "after"), tool("added", "n")}
	ab, _ := a.Body()
	bb, _ := b.Body()
	got := strings.Join(Delta(ab, bb), "\n")
	for _, want := range []string{
		"skill list: the description of x changed",
		"message 0 (system) text:", "-<description>old words</description>", "+<description>new words</description>",
		"messages: recorded 2, now 3", `message 2 (user) is new: "extra"`,
		"tool removed: gone", "tool edit description:", "-before", "+after", "tool added: added",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "intro") {
		t.Errorf("unchanged lines far from the change are shown:\n%s", got)
	}
	if Delta(ab, []byte(` {"stream":true, "messages":`+string(mustMessages(t, a))+`,"model":"m","tools":`+string(mustTools(t, a))+`}`)) != nil {
		t.Error("the same JSON with other key order and spaces is a delta")
	}
}

func TestReadKeepsWhatCameBeforeADamagedLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	record(t, echoServer(t), path, request("one"), request("two"))
	raw, _ := os.ReadFile(path)
	cut := raw[:len(raw)-30]
	c, err := Read(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Truncated || len(c.Calls) != 1 || !strings.Contains(c.Problem, "cut at line 3") {
		t.Fatalf("truncated=%v calls=%d problem=%q", c.Truncated, len(c.Calls), c.Problem)
	}
	if _, err := Read(strings.NewReader("{\"kind\":\"call\"}\n")); err == nil || !strings.Contains(err.Error(), "not a cassette") {
		t.Fatalf("no header: %v", err)
	}
	if _, err := Read(strings.NewReader("")); err == nil {
		t.Fatal("an empty file is a cassette")
	}
}

func TestPaceGaps(t *testing.T) {
	for _, c := range []struct {
		pace Pace
		gap  time.Duration
		want time.Duration
	}{
		{Pace{}, time.Second, 0},
		{Pace{Speed: 1}, 300 * time.Millisecond, 300 * time.Millisecond},
		{Pace{Speed: 2}, 300 * time.Millisecond, 150 * time.Millisecond},
		{Pace{Speed: 1}, 30 * time.Second, MaxGap},
		{Pace{Speed: 2}, 30 * time.Second, MaxGap / 2},
		{Pace{Typing: true}, 0, TypingGap},
		{Pace{Speed: 1, Typing: true}, time.Second, time.Second},
		{Pace{Speed: 1}, -time.Second, 0},
	} {
		if got := c.pace.Gap(c.gap); got != c.want {
			t.Errorf("%+v.Gap(%v) = %v, want %v", c.pace, c.gap, got, c.want)
		}
	}
	for _, bad := range []string{"-1", "x", "NaN", "+Inf"} {
		if _, err := ParsePace(bad); err == nil {
			t.Errorf("--pace %s accepted", bad)
		}
	}
}

type openaiFunction = chat.FunctionDefinition

func mustMessages(t *testing.T, r *chat.Request) []byte {
	t.Helper()
	b, err := json.Marshal(r.Messages)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustTools(t *testing.T, r *chat.Request) []byte {
	t.Helper()
	b, err := json.Marshal(r.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestServeToolGivesTheRecordedResult(t *testing.T) {
	c, err := Read(strings.NewReader(`{"kind":"header","format":1}
{"kind":"tool","tool_call_id":"call_1","name":"run_checks","content":"all green","is_error":false}
{"kind":"tool","tool_call_id":"call_2","name":"run_checks","content":"exit 1","is_error":true}
`))
	if err != nil {
		t.Fatal(err)
	}
	if res, ok := c.ServeTool(context.Background(), tools.Call{ID: "call_2"}); !ok || res.Content != "exit 1" || !res.IsError {
		t.Fatalf("call_2: %+v %v", res, ok)
	}
	if res, ok := c.ServeTool(context.Background(), tools.Call{ID: "call_9"}); ok || !res.IsError || !strings.Contains(res.Content, "no result for tool call call_9") {
		t.Fatalf("unknown call: %+v %v", res, ok)
	}
}

func TestEventEndSplitsLFAndCRLFStreams(t *testing.T) {
	for in, want := range map[string]int{"data: a\n\ndata: b": 9, "data: a\r\n\r\ndata: b\n\n": 11, "data: a\n": -1} {
		if got := eventEnd([]byte(in)); got != want {
			t.Errorf("eventEnd(%q) = %d, want %d", in, got, want)
		}
	}
	if _, err := Read(strings.NewReader(`{"kind":"header","format":99,"skillet":"v9"}` + "\n")); err == nil || !strings.Contains(err.Error(), "format 99") || strings.Contains(err.Error(), "not a cassette") {
		t.Fatalf("newer format: %v", err)
	}
}

func TestACancelledReplyIsRecordedAsCut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"content":"first"},"finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the rest never comes
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "c.jsonl")
	rec, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rec.Start(Header{Model: "m", Endpoint: srv.URL})
	client, _ := llm.New(llm.Config{BaseURL: srv.URL, HTTPClient: &http.Client{Transport: rec.Transport(nil)}})
	ctx, cancel := context.WithCancel(context.Background())
	_, err = client.Complete(ctx, request("hi"), func(ev chat.StreamEvent) {
		if ev.Kind == chat.EventText {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want the cancel, got %v", err)
	}
	rec.Close()
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Calls) != 1 || !c.Calls[0].Cut || len(c.Calls[0].Chunks) != 1 || !strings.Contains(c.Calls[0].Chunks[0].Data, "first") {
		t.Fatalf("calls: %+v", c.Calls)
	}
}

func TestDecisionDeltaNamesEachList(t *testing.T) {
	was := &Decision{Offered: []string{"a", "b"}, Delivered: []string{"skill a"}}
	now := &Decision{Offered: []string{"b", "c"}, LeftOff: []string{"d"}, Delivered: []string{"skill a"}}
	got := strings.Join(DecisionDelta(was, now), "\n")
	if got != "Offered: -a +c\nLeft off: +d" {
		t.Fatalf("got:\n%s", got)
	}
	if DecisionDelta(was, was) != nil {
		t.Fatal("the same decision has a delta")
	}
}
