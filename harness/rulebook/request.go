// Reading a recorded request back (R23's frozen prompt, time travel, the
// share page): the parts the composition put in it.

package rulebook

import (
	"encoding/json"
	"strings"

	"skillet/harness/chat"
)

// Request is a recorded request body taken apart.
type Request struct {
	// Instructions is the leading system message, "" when there is none;
	// Messages are the messages after it.
	Instructions string
	Messages     []chat.Message
	Tools        []chat.Tool
	// Context is the <current_context> block, tags included, of the
	// instructions or else of the first message that carries one.
	Context string
}

// ParseRequest takes a request body apart; false when it is not one.
func ParseRequest(body []byte) (Request, bool) {
	var req chat.Request
	if json.Unmarshal(body, &req) != nil {
		return Request{}, false
	}
	r := Request{Messages: req.Messages, Tools: req.Tools}
	if len(r.Messages) > 0 && r.Messages[0].Role == chat.RoleSystem {
		r.Instructions, r.Messages = r.Messages[0].Content, r.Messages[1:]
	}
	r.Context = ContextBlock(r.Instructions)
	for i := 0; r.Context == "" && i < len(r.Messages); i++ {
		r.Context = ContextBlock(r.Messages[i].Content)
	}
	return r, true
}

// ContextBlock is the <current_context> block of a text, tags included, or
// "" when it has none; a block left open runs to the end.
func ContextBlock(text string) string {
	const open, end = "<current_context>", "</current_context>"
	i := strings.Index(text, open)
	if i < 0 {
		return ""
	}
	if j := strings.Index(text[i:], end); j >= 0 {
		return text[i : i+j+len(end)]
	}
	return text[i:]
}

// Declared are the request's tools that declare a function, with their
// parameters as JSON.
func (r Request) Declared() []DeclaredTool {
	var out []DeclaredTool
	for _, t := range r.Tools {
		if t.Function == nil {
			continue
		}
		params, _ := json.Marshal(t.Function.Parameters)
		out = append(out, DeclaredTool{Name: t.Function.Name, Description: t.Function.Description, Parameters: params})
	}
	return out
}

// DeclaredTool is one function a request declares.
type DeclaredTool struct {
	Name, Description string
	Parameters        json.RawMessage
}
