package llm

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"skillet/harness/chat"
)

// testKey is the API key the tests use; no error text may ever hold it.
const testKey = "sk-test-0123456789abcdefSECRET"

// seen is what the fake server received in one request.
type seen struct {
	method, path, auth, accept string
	body                       []byte
}

// fakeAPI is a loopback chat-completions server. Each request goes to
// handle with its 0-based number.
type fakeAPI struct {
	*httptest.Server
	mu     sync.Mutex
	seen   []seen
	handle func(w http.ResponseWriter, r *http.Request, n int)
}

func newFakeAPI(t testing.TB, handle func(w http.ResponseWriter, r *http.Request, n int)) *fakeAPI {
	t.Helper()
	f := &fakeAPI{handle: handle}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		n := len(f.seen)
		f.seen = append(f.seen, seen{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Accept"), body})
		f.mu.Unlock()
		f.handle(w, r, n)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.seen...)
}

// client makes a Client for the fake server at its /v1 root.
func (f *fakeAPI) client(t testing.TB, key string, tweak ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: f.URL + "/v1", APIKey: key}
	for _, fn := range tweak {
		fn(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// writeSSE sends transcript as an event stream, flushing after every
// event, or after every few bytes when chop > 0 so that lines arrive cut.
func writeSSE(w http.ResponseWriter, transcript string, chop int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	if chop > 0 {
		for len(transcript) > 0 {
			n := min(chop, len(transcript))
			io.WriteString(w, transcript[:n])
			fl.Flush()
			transcript = transcript[n:]
		}
		return
	}
	for _, part := range strings.SplitAfter(transcript, "\n\n") {
		io.WriteString(w, part)
		fl.Flush()
	}
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// testRequest is a small request with one tool, streamed or not.
func testRequest(stream bool) *chat.Request {
	req := &chat.Request{
		Model: "test-model",
		Messages: []chat.Message{
			{Role: chat.RoleSystem, Content: "You are terse. <current_context> & more"},
			{Role: chat.RoleUser, Content: "What is the weather in Paris?"},
		},
		Tools: []chat.Tool{{Type: "function", Function: &openaiFunction}},
	}
	if stream {
		req.Stream = true
		req.StreamOptions = &chat.StreamOptions{IncludeUsage: true}
	}
	return req
}

// recorder keeps the events a Complete call reported.
type recorder struct {
	mu     sync.Mutex
	events []chat.StreamEvent
}

func (r *recorder) on(ev chat.StreamEvent) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// joined is the text of every event of kind k, joined by sep.
func (r *recorder) joined(k chat.EventKind, sep string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var parts []string
	for _, ev := range r.events {
		if ev.Kind == k {
			parts = append(parts, ev.Text)
		}
	}
	return strings.Join(parts, sep)
}

func (r *recorder) kind(k chat.EventKind) []chat.StreamEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []chat.StreamEvent
	for _, ev := range r.events {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

// noKey fails when err's text holds the test key.
func noKey(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), testKey) {
		t.Errorf("error text holds the API key: %v", err)
	}
}

// blockUntilDone waits for the request to be abandoned by the client.
func blockUntilDone(r *http.Request) {
	<-r.Context().Done()
}

var openaiFunction = chat.FunctionDefinition{
	Name:        "get_weather",
	Description: "Weather for a city.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
}
