package demo

import (
	"net/http"
	"time"
	"unicode"
	"unicode/utf8"

	"skillet/harness/chat"
)

// usage is the token usage of a reply. The demo model has no tokenizer:
// the counts are estimates, one token per four characters, so the usage
// panes have something of the right size to show.
type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// estimateTokens is the chars/4 estimate, rounded up.
func estimateTokens(chars int) int { return (chars + 3) / 4 }

// reply is one answer with what both wire forms need.
type reply struct {
	id    string
	msg   chat.Message
	usage usage
}

func newReply(req *chat.Request) *reply {
	msg := Respond(req)
	prompt := 0
	for _, m := range req.Messages {
		prompt += messageChars(m)
	}
	if len(req.Tools) > 0 {
		prompt += utf8.RuneCountInString(encode(req.Tools))
	}
	u := usage{PromptTokens: estimateTokens(prompt), CompletionTokens: estimateTokens(messageChars(msg))}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return &reply{id: "chatcmpl-demo-" + requestHash(req)[:24], msg: msg, usage: u}
}

// messageChars counts the characters of a message that a tokenizer would
// see: its text and its tool calls.
func messageChars(m chat.Message) int {
	n := utf8.RuneCountInString(m.Content)
	for _, tc := range m.ToolCalls {
		n += utf8.RuneCountInString(tc.Function.Name) + utf8.RuneCountInString(tc.Function.Arguments)
	}
	return n
}

func (r *reply) finishReason() string {
	if len(r.msg.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// completion is the non-streaming chat.completion object.
func (r *reply) completion() any {
	type choice struct {
		Index        int          `json:"index"`
		Message      chat.Message `json:"message"`
		FinishReason string       `json:"finish_reason"`
	}
	return struct {
		ID                string   `json:"id"`
		Object            string   `json:"object"`
		Created           int64    `json:"created"`
		Model             string   `json:"model"`
		SystemFingerprint string   `json:"system_fingerprint"`
		Choices           []choice `json:"choices"`
		Usage             usage    `json:"usage"`
	}{
		ID: r.id, Object: "chat.completion", Model: ModelName, SystemFingerprint: fingerprint,
		Choices: []choice{{Message: r.msg, FinishReason: r.finishReason()}},
		Usage:   r.usage,
	}
}

// Stream chunk types, shaped like OpenAI's chat.completion.chunk.
type (
	chunk struct {
		ID                string        `json:"id"`
		Object            string        `json:"object"`
		Created           int64         `json:"created"`
		Model             string        `json:"model"`
		SystemFingerprint string        `json:"system_fingerprint"`
		Choices           []chunkChoice `json:"choices"`
		Usage             *usage        `json:"usage,omitempty"`
	}
	chunkChoice struct {
		Index        int     `json:"index"`
		Delta        delta   `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	}
	delta struct {
		Role      string          `json:"role,omitempty"`
		Content   *string         `json:"content,omitempty"`
		ToolCalls []toolCallDelta `json:"tool_calls,omitempty"`
	}
	toolCallDelta struct {
		Index    int           `json:"index"`
		ID       string        `json:"id,omitempty"`
		Type     string        `json:"type,omitempty"`
		Function functionDelta `json:"function"`
	}
	functionDelta struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
)

// chunks is the reply as the stream of chunks it is sent as: the role, the
// text in word-sized pieces, each tool call as a head (id, type, name) and
// its arguments in two fragments, the finish reason, and the usage when
// asked for.
func (r *reply) chunks(includeUsage bool) []chunk {
	mk := func(d delta, finish *string) chunk {
		return chunk{ID: r.id, Object: "chat.completion.chunk", Model: ModelName, SystemFingerprint: fingerprint,
			Choices: []chunkChoice{{Delta: d, FinishReason: finish}}}
	}
	var out []chunk
	role := delta{Role: chat.RoleAssistant}
	if len(r.msg.ToolCalls) == 0 {
		empty := ""
		role.Content = &empty
	}
	out = append(out, mk(role, nil))
	for _, piece := range splitWords(r.msg.Content) {
		p := piece
		out = append(out, mk(delta{Content: &p}, nil))
	}
	for i, tc := range r.msg.ToolCalls {
		out = append(out, mk(delta{ToolCalls: []toolCallDelta{{
			Index: i, ID: tc.ID, Type: "function", Function: functionDelta{Name: tc.Function.Name},
		}}}, nil))
		args := tc.Function.Arguments
		if args == "" {
			args = "{}"
		}
		first, second := splitHalf(args)
		for _, frag := range []string{first, second} {
			out = append(out, mk(delta{ToolCalls: []toolCallDelta{{Index: i, Function: functionDelta{Arguments: frag}}}}, nil))
		}
	}
	finish := r.finishReason()
	out = append(out, mk(delta{}, &finish))
	if includeUsage {
		u := r.usage
		out = append(out, chunk{ID: r.id, Object: "chat.completion.chunk", Model: ModelName, SystemFingerprint: fingerprint,
			Choices: []chunkChoice{}, Usage: &u})
	}
	return out
}

// stream sends the reply as server-sent events, ending with [DONE].
func (h *handler) stream(w http.ResponseWriter, req *http.Request, r *reply, includeUsage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if rc.Flush() != nil { // the headers go out before any delay
		return
	}
	send := func(data string) bool {
		if h.opts.ChunkDelay > 0 {
			t := time.NewTimer(h.opts.ChunkDelay)
			select {
			case <-req.Context().Done():
				t.Stop()
				return false
			case <-t.C:
			}
		}
		if _, err := w.Write([]byte("data: " + data + "\n\n")); err != nil {
			return false // the client left
		}
		return rc.Flush() == nil
	}
	for _, c := range r.chunks(includeUsage) {
		if !send(encode(c)) {
			return
		}
	}
	send("[DONE]")
}

// splitWords cuts text into word-sized pieces, each a word with the space
// after it, that join back to text exactly.
func splitWords(text string) []string {
	var out []string
	start, inSpace := 0, false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if inSpace && !space {
			out = append(out, text[start:i])
			start = i
		}
		inSpace = space
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// splitHalf cuts s in two at the rune boundary nearest its middle.
func splitHalf(s string) (string, string) {
	mid := len(s) / 2
	for mid > 0 && !utf8.RuneStart(s[mid]) {
		mid--
	}
	return s[:mid], s[mid:]
}
