// Package reqdelta says what changed from one composed chat-completions
// request body to another: the model, the skills in <current_context>, the
// skill list's entries and their descriptions, the tools, the messages and
// any other field. `skillet replay diff` compares a recorded request with
// today's, and the inspector a call with the call before; both read the
// one Delta this package computes, each in its own words.
package reqdelta

import (
	"bytes"
	"encoding/json"
	"fmt"

	"skillet/harness/chat"
)

// Request is the part of a chat-completions body a delta names; Other
// holds every other field as plain JSON values.
type Request struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools"`
	Other    map[string]any
}

// Message is one message of a request.
type Message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls"`
	ToolCallID string     `json:"tool_call_id"`
}

// Text is the message's content, "" when it has none.
func (m Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// ToolCall is one tool call of an assistant message.
type ToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Tool is one tool a request declares.
type Tool struct {
	Function struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Parameters  any    `json:"parameters"`
	} `json:"function"`
}

// Parse reads a body in one pass: the fields a delta names into their
// types, every other field as plain JSON values.
func Parse(b []byte) (*Request, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	r := &Request{Other: map[string]any{}}
	for k, v := range fields {
		var err error
		switch k {
		case "model":
			err = json.Unmarshal(v, &r.Model)
		case "messages":
			err = json.Unmarshal(v, &r.Messages)
		case "tools":
			err = json.Unmarshal(v, &r.Tools)
		default:
			var x any
			err = json.Unmarshal(v, &x)
			r.Other[k] = x
		}
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", k, err)
		}
	}
	return r, nil
}

// Canonical is the JSON text with keys sorted and no spaces, numbers
// kept as written; two requests are the same when their canonical forms are.
func Canonical(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	return chat.MarshalPlain(v)
}

// Same reports whether two request bodies are equal as JSON.
func Same(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	ca, err1 := Canonical(a)
	cb, err2 := Canonical(b)
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}

// ToolSequence is the tool calls the request's transcript holds, in
// order, as NAME ARGUMENTS with the arguments canonical.
func (r *Request) ToolSequence() []string {
	var out []string
	for _, m := range r.Messages {
		for _, c := range m.ToolCalls {
			args := c.Function.Arguments
			if canon, err := Canonical([]byte(args)); err == nil {
				args = string(canon)
			}
			out = append(out, c.Function.Name+" "+args)
		}
	}
	return out
}
