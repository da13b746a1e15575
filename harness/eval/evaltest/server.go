// Package evaltest serves a loopback chat-completions endpoint whose
// decisions are scripted per query and run, so that an eval's rates,
// intervals and confusion can be checked against known answers.
package evaltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Decision is what the model does in one run, on its first call; the
// run's later calls follow from it.
type Decision struct {
	// Kind is "load" (load Skill), "answer" (text, no tool), "tool" (call
	// Tool, then answer), "tool-load" (call Tool, then load Skill),
	// "load-load" (load Skill, then Skill2), "call" (call Tool with Args,
	// then answer: a profile's own activation tool) or "error" (an HTTP
	// error, Status or 400, with Message).
	Kind    string
	Skill   string
	Skill2  string
	Tool    string
	Args    string
	Status  int
	Message string
}

// Call calls tool with JSON args on the first call, then answers.
func Call(tool, args string) Decision { return Decision{Kind: "call", Tool: tool, Args: args} }

// Load, Answer, Tool, ToolLoad and Fail build decisions.
func Load(skill string) Decision { return Decision{Kind: "load", Skill: skill} }
func Answer() Decision           { return Decision{Kind: "answer"} }
func Tool(tool string) Decision  { return Decision{Kind: "tool", Tool: tool} }
func ToolLoad(tool, skill string) Decision {
	return Decision{Kind: "tool-load", Tool: tool, Skill: skill}
}
func LoadLoad(skill, skill2 string) Decision {
	return Decision{Kind: "load-load", Skill: skill, Skill2: skill2}
}
func Fail() Decision { return Decision{Kind: "error"} }

// FailWith is an HTTP error of that status and message.
func FailWith(status int, message string) Decision {
	return Decision{Kind: "error", Status: status, Message: message}
}

// Server is the scripted endpoint.
type Server struct {
	// URL is the base URL to give the client (…/v1).
	URL string
	srv *httptest.Server

	mu sync.Mutex
	// script holds each query's decisions, the nth first call of a query
	// taking the nth (the last repeats once they run out).
	script map[string][]Decision
	next   map[string]int
	// Requests counts HTTP requests; every ThrottleEvery-th is answered
	// 429 with a short Retry-After-Ms before any decision is taken.
	requests      int
	throttled     int
	throttledBody map[string]bool
	ThrottleEvery int
	// ThrottleAfter, when set, is the Retry-After (seconds) of those 429s
	// instead of a Retry-After-Ms of 5.
	ThrottleAfter string
	// Delay is how long each answer takes.
	Delay time.Duration
	// Tokens is the usage each answer reports.
	Tokens int
	// Decide, when set, picks the first call's decision from the query
	// and the system message (the skill list), before the script.
	Decide func(query, system string) Decision
	// Improve answers requests that offer no tools: a description
	// improver's. Its prompts are kept in order.
	Improve func(prompt string) string
	prompts []string
	// Concurrency, when set, is how many requests the server answers at
	// once, as a provider's concurrency limit: one more is answered 429
	// with a Retry-After-Ms of RetryAfterMs (default 20).
	Concurrency  int
	RetryAfterMs int
	inflight     int
	peak         int
	overLimit    int
}

// Peak is the most requests the server held at once.
func (s *Server) Peak() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}

// OverLimit is how many requests were refused for Concurrency.
func (s *Server) OverLimit() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.overLimit
}

// Prompts are the user messages of the requests Improve answered.
func (s *Server) Prompts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prompts...)
}

// New starts a server over a script: query text → decisions per run.
func New(script map[string][]Decision) *Server {
	s := &Server{script: script, next: map[string]int{}, Tokens: 100}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Throttled is how many 429s the server answered.
func (s *Server) Throttled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.throttled
}

// Requests is how many chat requests the server answered.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Served is how many first calls each query got.
func (s *Server) Served(query string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next[query]
}

type message struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ToolCalls []struct {
		ID string `json:"id"`
	} `json:"tool_calls"`
}

// callID carries the decision through a run: c_<query>_<decision>_<step>.
var callIDRE = regexp.MustCompile(`^c_(\d+)_(\d+)_(\d+)$`)

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Messages []message         `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
	}
	body, _ := readBody(r)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad request body", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if s.Concurrency > 0 && s.inflight >= s.Concurrency {
		s.overLimit++
		wait := s.RetryAfterMs
		if wait == 0 {
			wait = 20
		}
		s.mu.Unlock()
		w.Header().Set("Retry-After-Ms", strconv.Itoa(wait))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"concurrency limit reached"}}`)
		return
	}
	s.inflight++
	s.peak = max(s.peak, s.inflight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inflight--
		s.mu.Unlock()
	}()
	if s.Delay > 0 {
		time.Sleep(s.Delay)
	}
	s.mu.Lock()
	s.requests++
	if s.ThrottleEvery > 0 && s.requests%s.ThrottleEvery == 0 && !s.throttledBody[string(body)] {
		// a body is throttled once, so its retry goes through however the
		// workers' requests interleave
		if s.throttledBody == nil {
			s.throttledBody = map[string]bool{}
		}
		s.throttledBody[string(body)] = true
		s.throttled++
		s.mu.Unlock()
		if s.ThrottleAfter != "" {
			w.Header().Set("Retry-After", s.ThrottleAfter)
		} else {
			w.Header().Set("Retry-After-Ms", "5")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"rate limited, slow down"}}`)
		return
	}
	if len(req.Tools) == 0 && s.Improve != nil {
		prompt := ""
		if n := len(req.Messages); n > 0 {
			prompt = req.Messages[n-1].Content
		}
		s.prompts = append(s.prompts, prompt)
		s.mu.Unlock()
		reply(w, s.Tokens, s.Improve(prompt), nil)
		return
	}
	// The user's message, and the calls made since it.
	user, last := -1, ""
	for i, m := range req.Messages {
		if m.Role == "user" {
			user = i
		}
	}
	var qkey string
	if user >= 0 {
		for k := range s.script {
			if strings.Contains(req.Messages[user].Content, k) && len(k) > len(qkey) {
				qkey = k
			}
		}
	}
	step, qi, di := 0, 0, -1
	for _, m := range req.Messages[user+1:] {
		for _, tc := range m.ToolCalls {
			last = tc.ID
		}
		if m.Role == "assistant" {
			step++
		}
	}
	if qkey == "" && s.Decide == nil {
		s.mu.Unlock()
		reply(w, s.Tokens, "no script for this query", nil)
		return
	}
	keys := sortedKeys(s.script)
	for i, k := range keys {
		if k == qkey {
			qi = i
		}
	}
	if m := callIDRE.FindStringSubmatch(last); step > 0 && m != nil {
		di, _ = strconv.Atoi(m[2])
	}
	if step == 0 {
		di = s.next[qkey]
		s.next[qkey]++
	}
	var d Decision
	if s.Decide != nil {
		system := ""
		if len(req.Messages) > 0 && req.Messages[0].Role == "system" {
			system = req.Messages[0].Content
		}
		d = s.Decide(req.Messages[max(user, 0)].Content, system)
	} else {
		ds := s.script[qkey]
		d = ds[min(max(di, 0), len(ds)-1)]
	}
	s.mu.Unlock()

	id := func() string { return fmt.Sprintf("c_%d_%d_%d", qi, di, step) }
	load := func(name string) []any { return []any{toolCall(id(), "load_skill", fmt.Sprintf(`{"name":%q}`, name))} }
	switch {
	case d.Kind == "error":
		status, msg := d.Status, d.Message
		if status == 0 {
			status = http.StatusBadRequest
		}
		if msg == "" {
			msg = "scripted failure"
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg}})
		w.Write(b)
	case step == 0 && (d.Kind == "load" || d.Kind == "load-load"):
		reply(w, s.Tokens, "", load(d.Skill))
	case step == 1 && d.Kind == "load-load":
		reply(w, s.Tokens, "", load(d.Skill2))
	case step == 0 && (d.Kind == "tool" || d.Kind == "tool-load"):
		reply(w, s.Tokens, "", []any{toolCall(id(), d.Tool, `{}`)})
	case step == 1 && d.Kind == "tool-load":
		reply(w, s.Tokens, "", load(d.Skill))
	case step == 0 && d.Kind == "call":
		reply(w, s.Tokens, "", []any{toolCall(id(), d.Tool, d.Args)})
	default:
		reply(w, s.Tokens, "done: "+d.Kind, nil)
	}
}

// readBody reads a request's body into a buffer of its stated length, so
// a long body is not grown and copied on the way: the server stands in
// for a remote model, and what it costs is not the harness's.
func readBody(r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n > 0 && n <= 64<<20 {
		buf := make([]byte, n)
		_, err := io.ReadFull(r.Body, buf)
		return buf, err
	}
	return io.ReadAll(r.Body)
}

func toolCall(id, name, args string) any {
	return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}
}

func reply(w http.ResponseWriter, tokens int, text string, calls []any) {
	msg := map[string]any{"role": "assistant", "content": text}
	finish := "stop"
	if len(calls) > 0 {
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "x", "object": "chat.completion", "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": tokens - tokens/4, "completion_tokens": tokens / 4, "total_tokens": tokens},
	})
}

func sortedKeys(m map[string][]Decision) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
