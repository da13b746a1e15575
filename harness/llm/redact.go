package llm

import (
	"bytes"
	"net/url"
	"strings"

	"skillet/harness/chat"
)

// RedactedKey stands in for the API key wherever a server echoed it.
const RedactedKey = "[redacted API key]"

// MinHiddenKey is the shortest key that is taken out of a reply's text. A
// local server's placeholder key ("none", "ollama") is no secret, and
// replacing a common word in every reply would garble it.
const MinHiddenKey = 8

// secretsOf lists what the client sends that a reply must never show: the
// API key and the credentials of the base URL (URLSecrets), each in every
// form it may be echoed in (SecretForms). Longest first, so that one
// secret inside another is never half replaced.
func secretsOf(key string, base *url.URL) []string {
	var out []string
	if key != "" {
		out = append(out, key)
	}
	return withForms(append(out, URLSecrets(base)...))
}

// hideAll replaces every secret in s, however short.
func hideAll(s string, secrets []string) string {
	for _, k := range secrets {
		if strings.Contains(s, k) {
			s = strings.ReplaceAll(s, k, RedactedKey)
		}
	}
	return s
}

// keyFilter takes the secrets out of text that arrives in pieces, where a
// secret may be split between two of them: it holds back the end of a
// piece while that end could be the start of one.
type keyFilter struct {
	keys []string
	held string
}

// newKeyFilter filters the secrets at least MinHiddenKey long.
func newKeyFilter(secrets []string) keyFilter {
	var keys []string
	for _, k := range secrets {
		if len(k) >= MinHiddenKey {
			keys = append(keys, k)
		}
	}
	return keyFilter{keys: keys}
}

// hide replaces the secrets in s.
func (f *keyFilter) hide(s string) string { return hideAll(s, f.keys) }

// feed takes in the next piece and returns what can be shown of the text so
// far, without the secrets.
func (f *keyFilter) feed(piece string) string {
	if len(f.keys) == 0 {
		return piece
	}
	s := f.hide(f.held + piece)
	keep := len(s)
	// The longest end of s that begins a secret is held back.
	for _, k := range f.keys {
		for i := max(0, len(s)-len(k)+1); i < keep; i++ {
			if s[i] == k[0] && strings.HasPrefix(k, s[i:]) {
				keep = i
				break
			}
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

// hideKey takes the secrets out of everything in a reply a server could
// have echoed them into: the text, the reasoning and the tool calls.
func (c *Client) hideKey(r *chat.Reply) {
	f := newKeyFilter(c.secrets)
	if len(f.keys) == 0 || r == nil {
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
			for _, secret := range f.keys {
				if bytes.Contains(v, []byte(secret)) {
					v = bytes.ReplaceAll(v, []byte(secret), []byte(RedactedKey))
				}
			}
			tc.Extra[k] = v
		}
	}
}
