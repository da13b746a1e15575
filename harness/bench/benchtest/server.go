// Package benchtest serves a loopback chat-completions endpoint whose
// replies a test scripts from each request: the agent under benchmark and
// the grader model, so a benchmark's verdicts can be checked against
// known answers.
package benchtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Request is what the script sees of one request.
type Request struct {
	// Body is the whole JSON request; System the system message; User the
	// last user message.
	Body   string
	System string
	User   string
	// Step counts the assistant messages since the last user message: 0
	// on a turn's first call.
	Step int
	// Tools names the tools offered; none for a grader's request.
	Tools []string
}

// Offers reports whether the request offers the tool.
func (r Request) Offers(tool string) bool {
	for _, t := range r.Tools {
		if t == tool {
			return true
		}
	}
	return false
}

// Call is one tool call of a reply.
type Call struct {
	Name string
	Args string
}

// Reply is the model's answer: text, tool calls, or an HTTP error Status.
type Reply struct {
	Text   string
	Calls  []Call
	Status int
	// Hang holds the reply this long before answering (a grader that
	// times out).
	Hang time.Duration
}

// Server is the scripted endpoint.
type Server struct {
	URL string
	srv *httptest.Server
	// Script answers each request.
	Script func(Request) Reply
	// Delay is how long each answer takes; Tokens the usage it reports.
	Delay  time.Duration
	Tokens int
	// Concurrency, when set, is how many requests are answered at once, as
	// a provider's limit: one more is answered 429 with a short
	// Retry-After-Ms.
	Concurrency int

	mu        sync.Mutex
	requests  int
	inflight  int
	throttled int
}

// Throttled counts the requests answered 429 for Concurrency.
func (s *Server) Throttled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.throttled
}

// New starts a server over a script.
func New(script func(Request) Reply) *Server {
	s := &Server{Script: script, Tokens: 100}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.CloseClientConnections(); s.srv.Close() }

// Requests counts the requests answered.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

type message struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ToolCalls []struct {
		ID string `json:"id"`
	} `json:"tool_calls"`
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []message `json:"messages"`
		Tools    []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad request body", http.StatusBadRequest)
		return
	}
	in := Request{Body: string(body)}
	user := -1
	for i, m := range req.Messages {
		switch m.Role {
		case "system":
			if in.System == "" {
				in.System = m.Content
			}
		case "user":
			user = i
			in.User = m.Content
		}
	}
	for _, m := range req.Messages[user+1:] {
		if m.Role == "assistant" {
			in.Step++
		}
	}
	for _, t := range req.Tools {
		in.Tools = append(in.Tools, t.Function.Name)
	}
	s.mu.Lock()
	if s.Concurrency > 0 && s.inflight >= s.Concurrency {
		s.throttled++
		s.mu.Unlock()
		w.Header().Set("Retry-After-Ms", "10")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"concurrency limit reached"}}`)
		return
	}
	s.inflight++
	s.requests++
	n := s.requests
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inflight--
		s.mu.Unlock()
	}()
	if s.Delay > 0 {
		time.Sleep(s.Delay)
	}
	rep := s.Script(in)
	if rep.Hang > 0 {
		select {
		case <-time.After(rep.Hang):
		case <-r.Context().Done():
			return
		}
	}
	if rep.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		fmt.Fprintf(w, `{"error":{"message":"scripted failure %d"}}`, rep.Status)
		return
	}
	msg := map[string]any{"role": "assistant", "content": rep.Text}
	finish := "stop"
	if len(rep.Calls) > 0 {
		var calls []any
		for i, c := range rep.Calls {
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Args}})
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "x", "object": "chat.completion", "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": s.Tokens - s.Tokens/4, "completion_tokens": s.Tokens / 4, "total_tokens": s.Tokens},
	})
}
