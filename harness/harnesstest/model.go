package harnesstest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"skillet/harness/chat"
)

// LoadSkillTool is the name of the engine's tool that loads a skill
// (harness.ToolLoadSkill).
const LoadSkillTool = "load_skill"

// Step answers one request. It may report pieces of its reply through on,
// which may be nil.
type Step func(ctx context.Context, req *chat.Request, on func(chat.StreamEvent)) (*chat.Reply, error)

// Model is a chat.Model that answers each request with the next step of
// its script, and Fallback once the script has run out. It keeps a copy of
// every request, so a test can check exactly what the model was given. It
// is safe for concurrent use.
type Model struct {
	// Fallback answers when the script has run out; nil says "done".
	Fallback Step
	// Names, when set, is what Models lists; when nil Models fails, as a
	// provider without a model list does.
	Names []string
	// Raw fills each reply's Raw, where its step left it empty, with the
	// JSON body a chat-completions endpoint answers, so what shows the
	// raw reply has one to show.
	Raw bool

	mu    sync.Mutex
	steps []Step
	reqs  []*chat.Request
	// calls numbers the tool calls this model made
	calls int
}

// New returns a model that plays steps in order.
func New(steps ...Step) *Model { return &Model{steps: steps} }

// Complete records req and answers it with the next step.
func (m *Model) Complete(ctx context.Context, req *chat.Request, on func(chat.StreamEvent)) (*chat.Reply, error) {
	// a deep copy: the engine may reuse the request's slices
	b, err := req.Body()
	if err != nil {
		return nil, err
	}
	var cp chat.Request
	if err := json.Unmarshal(b, &cp); err != nil {
		return nil, fmt.Errorf("copy chat request: %w", err)
	}
	m.mu.Lock()
	m.reqs = append(m.reqs, &cp)
	st := m.Fallback
	if len(m.steps) > 0 {
		st, m.steps = m.steps[0], m.steps[1:]
	}
	m.mu.Unlock()
	if st == nil {
		st = Say("done")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := st(ctx, &cp, on)
	if r != nil {
		m.number(&cp, r)
	}
	if r != nil && m.Raw && r.Raw == "" {
		r.Raw = RawBody(r)
	}
	return r, err
}

// RawBody is the JSON body of a non-streamed chat-completions answer
// carrying r.
func RawBody(r *chat.Reply) string {
	type choice struct {
		Index        int          `json:"index"`
		Message      chat.Message `json:"message"`
		FinishReason string       `json:"finish_reason"`
	}
	body := struct {
		Object  string      `json:"object"`
		Choices []choice    `json:"choices"`
		Usage   *chat.Usage `json:"usage,omitempty"`
	}{"chat.completion", []choice{{Message: r.Message, FinishReason: r.FinishReason}}, r.Usage}
	b, err := chat.MarshalPlain(body)
	if err != nil {
		return ""
	}
	return string(b)
}

// number gives the reply's tool calls that have no id the next ids c1, c2
// and so on: the same in every run, and past every such id of the request,
// so a session reopened with a fresh model never sees one twice.
func (m *Model) number(req *chat.Request, r *chat.Reply) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, msg := range req.Messages {
		for _, tc := range msg.ToolCalls {
			var n int
			if _, err := fmt.Sscanf(tc.ID, "c%d", &n); err == nil && n > m.calls {
				m.calls = n
			}
		}
	}
	for i := range r.Message.ToolCalls {
		if r.Message.ToolCalls[i].ID == "" {
			m.calls++
			r.Message.ToolCalls[i].ID = fmt.Sprintf("c%d", m.calls)
		}
	}
}

// Add appends steps to the script.
func (m *Model) Add(steps ...Step) {
	m.mu.Lock()
	m.steps = append(m.steps, steps...)
	m.mu.Unlock()
}

// Pending is how many scripted steps have not been played yet.
func (m *Model) Pending() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.steps)
}

// Requests returns every request received so far, oldest first.
func (m *Model) Requests() []*chat.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*chat.Request(nil), m.reqs...)
}

// Last returns the latest request, nil before the first.
func (m *Model) Last() *chat.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.reqs) == 0 {
		return nil
	}
	return m.reqs[len(m.reqs)-1]
}

// ForgetRequests drops the requests kept so far, so a long benchmark does
// not hold them all.
func (m *Model) ForgetRequests() {
	m.mu.Lock()
	m.reqs = nil
	m.mu.Unlock()
}

// Models lists Names (chat.Model's companion, harness.ModelLister).
func (m *Model) Models(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if m.Names == nil {
		return nil, fmt.Errorf("this scripted model lists no models")
	}
	return append([]string(nil), m.Names...), nil
}

// Func is a step computed from the request alone.
func Func(f func(req *chat.Request) (*chat.Reply, error)) Step {
	return func(_ context.Context, req *chat.Request, on func(chat.StreamEvent)) (*chat.Reply, error) {
		r, err := f(req)
		if r != nil && on != nil && r.Message.Content != "" {
			on(chat.StreamEvent{Kind: chat.EventText, Text: r.Message.Content})
		}
		return r, err
	}
}

// Say answers text, whole, in one piece.
func Say(text string) Step {
	return Func(func(*chat.Request) (*chat.Reply, error) { return Text(text), nil })
}

// Text is a finished assistant reply saying text.
func Text(text string) *chat.Reply {
	return &chat.Reply{Message: chat.Message{Role: chat.RoleAssistant, Content: text}, FinishReason: "stop"}
}

// ToolCall makes a tool call without an id; the Model that answers with
// it gives it one.
func ToolCall(name, args string) chat.ToolCall {
	return chat.ToolCall{Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}
}

// Calls is a reply that calls tools, given as name and JSON arguments in
// turn; the Model that answers with it numbers the calls.
func Calls(pairs ...string) *chat.Reply {
	r := &chat.Reply{Message: chat.Message{Role: chat.RoleAssistant}, FinishReason: "tool_calls"}
	for i := 0; i+1 < len(pairs); i += 2 {
		r.Message.ToolCalls = append(r.Message.ToolCalls, ToolCall(pairs[i], pairs[i+1]))
	}
	return r
}

// Call answers with tool calls, given as name and JSON arguments in turn.
func Call(pairs ...string) Step {
	return Func(func(*chat.Request) (*chat.Reply, error) { return Calls(pairs...), nil })
}

// Load calls the load-skill tool for the named skill.
func Load(name string) Step { return Call(LoadSkillTool, LoadArgs(name)) }

// LoadArgs are the load-skill tool's arguments for the named skill.
func LoadArgs(name string) string { return fmt.Sprintf(`{"name":%q}`, name) }

// Fail answers with err, as a provider that failed does.
func Fail(err error) Step {
	return func(context.Context, *chat.Request, func(chat.StreamEvent)) (*chat.Reply, error) { return nil, err }
}

// Block answers nothing until ctx is cancelled, then returns ctx's error,
// as a model cut off mid-reply does. started, when not nil, is closed as
// the step begins (so a Block step with one channel plays once).
func Block(started chan<- struct{}) Step {
	return func(ctx context.Context, _ *chat.Request, _ func(chat.StreamEvent)) (*chat.Reply, error) {
		if started != nil {
			close(started)
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
}

// Streamed is a reply sent in pieces: its reasoning first, then its text,
// then its tool calls whole.
type Streamed struct {
	Text      string
	Reasoning string
	// Calls are tool calls as name and JSON arguments in turn.
	Calls []string
	// Chunk is the runes per piece; 0 means 12.
	Chunk int
	// Delay is the pause after each piece.
	Delay time.Duration
}

// Stream sends s piece by piece; a cancelled ctx stops it with ctx's
// error.
func Stream(s Streamed) Step {
	return func(ctx context.Context, _ *chat.Request, on func(chat.StreamEvent)) (*chat.Reply, error) {
		n := s.Chunk
		if n <= 0 {
			n = 12
		}
		send := func(kind chat.EventKind, text string) error {
			for _, piece := range chunks(text, n) {
				if err := ctx.Err(); err != nil {
					return err
				}
				if on != nil {
					on(chat.StreamEvent{Kind: kind, Text: piece})
				}
				if s.Delay > 0 {
					select {
					case <-ctx.Done():
						return ctx.Err()
					case <-time.After(s.Delay):
					}
				}
			}
			return nil
		}
		if err := send(chat.EventReasoning, s.Reasoning); err != nil {
			return nil, err
		}
		if err := send(chat.EventText, s.Text); err != nil {
			return nil, err
		}
		r := Text(s.Text)
		r.Reasoning = s.Reasoning
		if len(s.Calls) > 0 {
			c := Calls(s.Calls...)
			r.Message.ToolCalls, r.FinishReason = c.Message.ToolCalls, c.FinishReason
			if on != nil {
				for _, tc := range r.Message.ToolCalls {
					on(chat.StreamEvent{Kind: chat.EventToolCall, Text: tc.Function.Name})
				}
			}
		}
		return r, nil
	}
}

func chunks(s string, n int) []string {
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		k := min(n, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}
