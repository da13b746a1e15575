package llm

import (
	"bytes"
	"strings"

	"skillet/harness/chat"
)

// redactedKey stands in for the API key wherever a server echoed it.
const redactedKey = "[redacted API key]"

// minHiddenKey is the shortest key that is taken out of a reply's text. A
// local server's placeholder key ("none", "ollama") is no secret, and
// replacing a common word in every reply would garble it.
const minHiddenKey = 8

// keyFilter takes the API key out of text that arrives in pieces, where the
// key may be split between two of them: it holds back the end of a piece
// while that end could be the start of the key.
type keyFilter struct {
	key  string
	held string
}

func newKeyFilter(key string) keyFilter {
	if len(key) < minHiddenKey {
		return keyFilter{}
	}
	return keyFilter{key: key}
}

// hide replaces the key in s.
func (f *keyFilter) hide(s string) string {
	if f.key == "" || !strings.Contains(s, f.key) {
		return s
	}
	return strings.ReplaceAll(s, f.key, redactedKey)
}

// feed takes in the next piece and returns what can be shown of the text so
// far, without the key.
func (f *keyFilter) feed(piece string) string {
	if f.key == "" {
		return piece
	}
	s := f.hide(f.held + piece)
	keep := len(s)
	// The longest end of s that begins the key is held back.
	for i := max(0, len(s)-len(f.key)+1); i < len(s); i++ {
		if s[i] == f.key[0] && strings.HasPrefix(f.key, s[i:]) {
			keep = i
			break
		}
	}
	f.held = s[keep:]
	return s[:keep]
}

// flush returns what is held back: the text has ended.
func (f *keyFilter) flush() string {
	out := f.held
	f.held = ""
	return out
}

// hideKey takes the key out of everything in a reply a server could have
// echoed it into: the text, the reasoning and the tool calls.
func (c *Client) hideKey(r *chat.Reply) {
	f := newKeyFilter(c.key)
	if f.key == "" || r == nil {
		return
	}
	r.Message.Content = f.hide(r.Message.Content)
	r.Reasoning = f.hide(r.Reasoning)
	for i := range r.Message.ToolCalls {
		tc := &r.Message.ToolCalls[i]
		tc.ID = f.hide(tc.ID)
		tc.Function.Name = f.hide(tc.Function.Name)
		tc.Function.Arguments = f.hide(tc.Function.Arguments)
		for k, v := range tc.Extra {
			if bytes.Contains(v, []byte(c.key)) {
				tc.Extra[k] = bytes.ReplaceAll(v, []byte(c.key), []byte(redactedKey))
			}
		}
	}
}
