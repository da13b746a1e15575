package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"skillet/harness/chat"
)

// chunk is one streamed chat-completions chunk, or a whole non-streamed
// response: a choice carries a delta in the first and a message in the
// second. openai.ChatCompletionStreamResponse does not fit here: its tool
// call type drops unknown keys (extra_content) and it has neither
// "reasoning" nor "error".
type chunk struct {
	Choices []choice        `json:"choices"`
	Usage   *chat.Usage     `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type choice struct {
	Index        int     `json:"index"`
	Delta        *delta  `json:"delta"`
	Message      *delta  `json:"message"`
	FinishReason *string `json:"finish_reason"`
}

// delta is a piece of the assistant message (or all of it).
type delta struct {
	// Content is a string, null, or (from some servers) a list of parts.
	Content          any             `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ToolCalls        []toolCallPiece `json:"tool_calls"`
}

// text is the delta's content; of a list of parts, the text parts joined.
func (d *delta) text() string {
	switch c := d.Content.(type) {
	case string:
		return c
	case []any:
		var sb strings.Builder
		for _, p := range c {
			part, _ := p.(map[string]any)
			if typ, _ := part["type"].(string); typ == "" || typ == "text" {
				s, _ := part["text"].(string)
				sb.WriteString(s)
			}
		}
		return sb.String()
	}
	return ""
}

// reasoning is the delta's reasoning, from whichever field the server uses;
// servers that fill both with the same text give it once.
func (d *delta) reasoning() string {
	switch {
	case d.Reasoning == "" || d.Reasoning == d.ReasoningContent:
		return d.ReasoningContent
	case d.ReasoningContent == "":
		return d.Reasoning
	}
	return d.ReasoningContent + d.Reasoning
}

// toolCallPiece is a tool call, or a fragment of one in a stream. Pointers
// tell a field that was left out from one sent empty. Extra holds the keys
// beside the standard ones.
type toolCallPiece struct {
	Index    *int         `json:"index"`
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionPart `json:"function"`
	Extra    map[string]json.RawMessage
}

type functionPart struct {
	Name      *string    `json:"name"`
	Arguments *arguments `json:"arguments"`
}

// UnmarshalJSON decodes the standard fields in one pass, and only when the
// object holds other keys (rare: Gemini's extra_content) reads it again for
// them.
func (p *toolCallPiece) UnmarshalJSON(b []byte) error {
	type known struct {
		Index    *int         `json:"index"`
		ID       *string      `json:"id"`
		Type     *string      `json:"type"`
		Function functionPart `json:"function"`
	}
	var k known
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(&k)
	if err != nil && strings.HasPrefix(err.Error(), "json: unknown field") {
		k = known{}
		err = json.Unmarshal(b, &k)
		if err == nil {
			err = p.readExtra(b)
		}
	} else {
		p.Extra = nil
	}
	if err != nil {
		return fmt.Errorf("tool call: %w", err)
	}
	p.Index, p.Function = k.Index, k.Function
	p.ID, p.Type = deref(k.ID), deref(k.Type)
	return nil
}

// readExtra keeps the keys beside the standard ones, as they came.
func (p *toolCallPiece) readExtra(b []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	p.Extra = nil
	for k, v := range all {
		switch k {
		case "index", "id", "type", "function":
			continue
		}
		if isNull(v) {
			continue
		}
		if p.Extra == nil {
			p.Extra = map[string]json.RawMessage{}
		}
		p.Extra[k] = v
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// arguments is a tool call's arguments: a string holding JSON, or (from
// some servers) the JSON object itself, kept as its text.
type arguments string

func (a *arguments) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*a = ""
	case b[0] != '"':
		*a = arguments(b)
	case bytes.IndexByte(b, '\\') < 0:
		// No escapes: the text between the quotes is the string; the
		// decoder calling us has already checked the JSON.
		*a = arguments(b[1 : len(b)-1])
	default:
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return errors.New("arguments: " + err.Error())
		}
		*a = arguments(s)
	}
	return nil
}
