// Package chat holds the chat-completions wire types the engine composes and
// a model answers, and the Model interface between them. Both the real
// OpenAI-compatible client and scripted test models speak these types.
package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat-completions message as sent on the wire.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// MarshalJSON sends an assistant message that only calls tools with a null
// content, which every provider accepts, where some reject "".
func (m Message) MarshalJSON() ([]byte, error) {
	type wire struct {
		Role       string     `json:"role"`
		Content    *string    `json:"content"`
		ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
		ToolCallID string     `json:"tool_call_id,omitempty"`
	}
	w := wire{Role: m.Role, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID}
	if !(m.Role == RoleAssistant && m.Content == "" && len(m.ToolCalls) > 0) {
		c := m.Content
		w.Content = &c
	}
	return MarshalPlain(w)
}

// MarshalPlain encodes compact JSON without escaping <, > and &, so what
// is recorded reads as it was meant (a system prompt full of XML tags,
// say).
func MarshalPlain(v any) ([]byte, error) {
	// The encoding grows in a reused buffer and is copied out at its
	// size: a journal encodes every event, and a buffer grown from empty
	// each time leaves about twice the result behind as garbage.
	w := plainPool.Get().(*plainEncoder)
	defer w.put()
	if err := w.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.Clone(bytes.TrimRight(w.buf.Bytes(), "\n")), nil
}

type plainEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// plainKeep is the largest buffer put back for reuse.
const plainKeep = 1 << 20

var plainPool = sync.Pool{New: func() any {
	w := &plainEncoder{}
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	return w
}}

func (w *plainEncoder) put() {
	if w.buf.Cap() > plainKeep {
		return
	}
	w.buf.Reset()
	plainPool.Put(w)
}

// UnmarshalJSON accepts a null content.
func (m *Message) UnmarshalJSON(b []byte) error {
	var w struct {
		Role       string     `json:"role"`
		Content    *string    `json:"content"`
		ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
		ToolCallID string     `json:"tool_call_id,omitempty"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = Message{Role: w.Role, ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID}
	if w.Content != nil {
		m.Content = *w.Content
	}
	return nil
}

// ToolCall is one call of a function tool. Extra keeps fields a provider put
// on the call and requires back in the next request (Gemini's
// extra_content.google.thought_signature), so they round-trip untouched.
type ToolCall struct {
	ID       string                     `json:"id"`
	Type     string                     `json:"type"`
	Function FunctionCall               `json:"function"`
	Extra    map[string]json.RawMessage `json:"-"`
}

// FunctionCall is the name and JSON arguments of a tool call.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// MarshalJSON writes Extra beside the standard fields and sends empty
// arguments as "{}".
func (c ToolCall) MarshalJSON() ([]byte, error) {
	typ := c.Type
	if typ == "" {
		typ = "function"
	}
	fn := c.Function
	if fn.Arguments == "" {
		fn.Arguments = "{}"
	}
	fields := map[string]any{"id": c.ID, "type": typ, "function": fn}
	for k, v := range c.Extra {
		if _, std := fields[k]; !std {
			fields[k] = v
		}
	}
	return MarshalPlain(fields) // map keys marshal sorted: deterministic
}

// UnmarshalJSON keeps unknown fields in Extra.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	*c = ToolCall{}
	for k, v := range all {
		var err error
		switch k {
		case "id":
			err = json.Unmarshal(v, &c.ID)
		case "type":
			err = json.Unmarshal(v, &c.Type)
		case "function":
			err = json.Unmarshal(v, &c.Function)
		case "index":
			// stream-only; not part of a whole call
		default:
			if c.Extra == nil {
				c.Extra = map[string]json.RawMessage{}
			}
			c.Extra[k] = v
		}
		if err != nil {
			return fmt.Errorf("tool call field %q: %w", k, err)
		}
	}
	return nil
}

// ToolTypeFunction is the type of every tool the engine offers.
const ToolTypeFunction = "function"

// Tool is a function tool offered to the model.
type Tool struct {
	Type     string              `json:"type"`
	Function *FunctionDefinition `json:"function,omitempty"`
}

// MarshalJSON writes the tool as the requests recorded so far have it: keys
// sorted and HTML characters escaped, so a recorded request body matches
// the one composed again byte for byte.
func (t Tool) MarshalJSON() ([]byte, error) {
	m := map[string]any{"type": t.Type}
	if t.Function != nil {
		m["function"] = t.Function
	}
	return json.Marshal(m)
}

// FunctionDefinition is a function tool's name, description and JSON
// Schema of its arguments.
type FunctionDefinition struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Strict      bool   `json:"strict,omitempty"`
	// Parameters is the JSON Schema object (a json.RawMessage or a value
	// that marshals to one).
	Parameters any `json:"parameters"`
}

// Usage is the token usage a provider reports.
type Usage struct {
	PromptTokens            int                      `json:"prompt_tokens"`
	CompletionTokens        int                      `json:"completion_tokens"`
	TotalTokens             int                      `json:"total_tokens"`
	PromptTokensDetails     *PromptTokensDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails *CompletionTokensDetails `json:"completion_tokens_details"`
}

// PromptTokensDetails breaks down the prompt's tokens.
type PromptTokensDetails struct {
	AudioTokens  int `json:"audio_tokens"`
	CachedTokens int `json:"cached_tokens"`
}

// CompletionTokensDetails breaks down the completion's tokens.
type CompletionTokensDetails struct {
	AudioTokens              int `json:"audio_tokens"`
	ReasoningTokens          int `json:"reasoning_tokens"`
	AcceptedPredictionTokens int `json:"accepted_prediction_tokens"`
	RejectedPredictionTokens int `json:"rejected_prediction_tokens"`
}

// StreamOptions asks a streaming provider for a usage chunk.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Request is one chat-completions request body.
type Request struct {
	Model         string         `json:"model"`
	Messages      []Message      `json:"messages"`
	Tools         []Tool         `json:"tools,omitempty"`
	Stream        bool           `json:"stream,omitempty"`
	StreamOptions *StreamOptions `json:"stream_options,omitempty"`
}

// Body is the exact JSON the client sends for r; the engine records the same
// bytes in its model_call event.
func (r *Request) Body() ([]byte, error) {
	return encodeBody(r)
}

// Reply is a model's whole answer to one request.
type Reply struct {
	// Message is the assistant message: its text and whole tool calls.
	Message Message `json:"message"`
	// Reasoning is the reasoning text, kept apart from the answer.
	Reasoning string `json:"reasoning,omitempty"`
	// FinishReason is what the provider said, "" when it said nothing.
	FinishReason string `json:"finish_reason,omitempty"`
	// Usage is the reported token usage, nil when none came.
	Usage *Usage `json:"usage,omitempty"`
	// Interrupted is set when the stream ended without a finish reason; such
	// a reply carries no tool calls.
	Interrupted bool `json:"interrupted,omitempty"`
	// Raw is the reply as it came over the wire (the SSE text or JSON body),
	// for the inspector; it may be cut when very long.
	Raw string `json:"raw,omitempty"`
}

// EventKind says what a StreamEvent carries.
type EventKind int

// Kinds of stream events.
const (
	// EventText is a piece of the answer's text.
	EventText EventKind = iota + 1
	// EventReasoning is a piece of reasoning.
	EventReasoning
	// EventToolCall says a tool call's name is known (arguments may follow).
	EventToolCall
	// EventRetry says a request failed and is being retried after Wait.
	EventRetry
)

// StreamEvent is something the model client reports while a reply arrives.
type StreamEvent struct {
	Kind EventKind
	// Text is the text or reasoning piece, or the tool name for EventToolCall.
	Text string
	// Attempt, Wait and Err describe a retry.
	Attempt int
	Wait    time.Duration
	Err     error
}

// Model answers chat-completions requests. Complete reports pieces of the
// reply through on (which may be nil) as they arrive and returns the whole
// reply. A cancelled ctx stops the call; the error is then ctx's.
type Model interface {
	Complete(ctx context.Context, req *Request, on func(StreamEvent)) (*Reply, error)
}

// BodyModel is a Model that can send a request whose body the caller has
// already encoded with req.Body, as the engine does to record it: a body
// holding a long skill text is then encoded once, not twice.
type BodyModel interface {
	Model
	// CompleteBody is Complete of req, sending body, which is req.Body().
	CompleteBody(ctx context.Context, req *Request, body []byte, on func(StreamEvent)) (*Reply, error)
}

// APIError is an error a provider answered with: an HTTP error status, or an
// error event inside a stream.
type APIError struct {
	// Status is the HTTP status, 200 for an error inside a stream.
	Status int
	// Message is the provider's own message.
	Message string
	// Type and Code are the provider's error type and code, when given.
	Type string
	Code string
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = "no message"
	}
	switch e.Status {
	case 200:
		return "model error in a 200 reply: " + msg
	case 401:
		return fmt.Sprintf("model API said 401 Unauthorized (check the API key in OPENAI_API_KEY): %s", msg)
	default:
		return fmt.Sprintf("model API said %d: %s", e.Status, msg)
	}
}
