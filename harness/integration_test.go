package harness_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"skillet/harness"
	"skillet/harness/config"
	"skillet/harness/event"
	"skillet/harness/llm"
	"skillet/harness/rulebook"
	"skillet/skills"
)

// samples opens the sample workspace with its own config.
func samples(t *testing.T) (*config.Config, *skills.Catalog) {
	t.Helper()
	cfg, err := config.Load("../sample-skills/skillet.toml")
	if err != nil {
		t.Fatal(err)
	}
	cat := skills.NewCatalog(skills.DefaultRoots(nil, cfg.SkillsDirs, "", ""), cfg.ToolsDirs)
	if _, err := cat.Refresh(); err != nil {
		t.Fatal(err)
	}
	return cfg, cat
}

// sseServer answers each request with the next scripted SSE body, and
// records the bodies it received.
type sseServer struct {
	mu     sync.Mutex
	bodies []string
	script []func(w http.ResponseWriter, flush func())
}

func (s *sseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(b))
	var step func(http.ResponseWriter, func())
	if len(s.script) > 0 {
		step, s.script = s.script[0], s.script[1:]
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	flush := func() { w.(http.Flusher).Flush() }
	if step == nil {
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
		return
	}
	step(w, flush)
}

func chunk(w io.Writer, v string) { fmt.Fprintf(w, "data: %s\n\n", v) }

func TestR25_CancelMidStreamOverHTTPLeavesAValidTranscript(t *testing.T) {
	cfg, cat := samples(t)
	release := make(chan struct{})
	srv := &sseServer{script: []func(http.ResponseWriter, func()){
		func(w http.ResponseWriter, flush func()) {
			chunk(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"load_skill","arguments":"{\"name\":"}}]}}]}`)
			chunk(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"incident-report\"}"}}]},"finish_reason":"tool_calls"}]}`)
			fmt.Fprint(w, "data: [DONE]\n\n")
		},
		func(w http.ResponseWriter, flush func()) {
			chunk(w, `{"choices":[{"index":0,"delta":{"content":"Here is the start of"}}]}`)
			flush()
			<-release // never finishes on its own
		},
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer close(release)
	client, err := llm.New(llm.Config{BaseURL: hs.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := harness.New(harness.Options{Config: cfg, Catalog: cat, Model: client, ModelName: "m", OnEvent: func(e event.Event) {
		if d, ok := e.(*event.TextDelta); ok && strings.Contains(d.Text, "start") {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan *event.TurnEnd)
	go func() {
		end, _ := s.Turn(ctx, "write an incident report")
		done <- end
	}()
	var end *event.TurnEnd
	select {
	case end = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("cancel did not stop the stream")
	}
	if end.StopReason != event.StopCancelled {
		t.Fatalf("stop %s", end.StopReason)
	}
	tr := s.Transcript().Items()
	last := tr[len(tr)-1]
	if last.Kind != rulebook.EntryAssistant || !last.Interrupted || last.Text != "Here is the start of" {
		t.Fatalf("last entry %+v", last)
	}
	// the next request over HTTP carries a valid transcript
	if _, err := s.Turn(context.Background(), "go on"); err != nil {
		t.Fatal(err)
	}
	var req struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	srv.mu.Lock()
	json.Unmarshal([]byte(srv.bodies[len(srv.bodies)-1]), &req)
	srv.mu.Unlock()
	open := map[string]bool{}
	for _, m := range req.Messages {
		for _, tc := range m.ToolCalls {
			open[tc.ID] = true
		}
		if m.Role == "tool" {
			delete(open, m.ToolCallID)
		}
	}
	if len(open) != 0 {
		t.Fatalf("calls without results: %v", open)
	}
}

func TestProviderFieldsOnToolCallsGoBackThroughTheEngine(t *testing.T) {
	cfg, cat := samples(t)
	srv := &sseServer{script: []func(http.ResponseWriter, func()){
		func(w http.ResponseWriter, flush func()) {
			chunk(w, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"g1","type":"function","function":{"name":"load_skill","arguments":"{\"name\":\"sql-review\"}"},"extra_content":{"google":{"thought_signature":"c2ln=="}}}]},"finish_reason":"stop"}]}`)
			fmt.Fprint(w, "data: [DONE]\n\n")
		},
	}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	client, _ := llm.New(llm.Config{BaseURL: hs.URL + "/v1", APIKey: "k"})
	s, err := harness.New(harness.Options{Config: cfg, Catalog: cat, Model: client, ModelName: "gemini"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	end, err := s.Turn(context.Background(), "review this query")
	if err != nil {
		t.Fatal(err)
	}
	if !contains(end.Loaded, "sql-review") {
		t.Fatalf("finish_reason stop with a complete call should still run it: %+v", end)
	}
	srv.mu.Lock()
	second := srv.bodies[1]
	srv.mu.Unlock()
	if !strings.Contains(second, `"extra_content":{"google":{"thought_signature":"c2ln=="}}`) {
		t.Fatalf("thought signature not sent back: %s", second)
	}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
