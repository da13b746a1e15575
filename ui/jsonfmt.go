package ui

import (
	"bytes"
	"encoding/json"
	"strings"
)

// prettyJSON indents s when it is a JSON object or array; anything else
// comes back as it was.
func prettyJSON(s string) string {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return s
	}
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(t), "", "  "); err != nil {
		return s
	}
	return b.String()
}

// compactJSON is s on one line when it is JSON.
func compactJSON(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return strings.Join(strings.Fields(s), " ")
	}
	return b.String()
}

// prettyRaw indents a raw JSON value; empty or null is "{}".
func prettyRaw(r json.RawMessage) string {
	if len(bytes.TrimSpace(r)) == 0 || string(bytes.TrimSpace(r)) == "null" {
		return "{}"
	}
	return prettyJSON(string(r))
}

// readableJSON undoes Go's HTML escaping (\u003c, \u003e, \u0026) inside
// JSON strings, so a request shows <current_context> as the model reads
// it. The JSON is unchanged in meaning.
func readableJSON(s string) string {
	if !strings.Contains(s, `\u00`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		if s[i+1] == 'u' && i+6 <= len(s) {
			switch s[i+2 : i+6] {
			case "003c":
				b.WriteByte('<')
				i += 5
				continue
			case "003e":
				b.WriteByte('>')
				i += 5
				continue
			case "0026":
				b.WriteByte('&')
				i += 5
				continue
			}
		}
		// any other escape is copied whole, so \\u003c stays as it is
		b.WriteByte(c)
		b.WriteByte(s[i+1])
		i++
	}
	return b.String()
}
