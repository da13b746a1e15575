package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"skillet/harness/chat"
)

// Which timeout a TimeoutError reports.
const (
	TimeoutConnect   = "connect"
	TimeoutFirstByte = "first-byte"
	TimeoutIdle      = "idle"
	TimeoutReply     = "reply"
)

// TimeoutError says that one of the Config's timeouts fired.
type TimeoutError struct {
	// Which is TimeoutConnect, TimeoutFirstByte, TimeoutIdle or
	// TimeoutReply.
	Which string
	// After is the timeout's length.
	After time.Duration
}

// Error names the timeout that fired and its length.
func (e *TimeoutError) Error() string {
	switch e.Which {
	case TimeoutConnect:
		return fmt.Sprintf("model API: could not connect within the connect timeout (%s)", e.After)
	case TimeoutFirstByte:
		return fmt.Sprintf("model API: no answer within the first-byte timeout (%s)", e.After)
	case TimeoutIdle:
		return fmt.Sprintf("model API: the reply stalled, nothing arrived for the idle timeout (%s)", e.After)
	case TimeoutReply:
		return fmt.Sprintf("model API: the reply did not end within the reply timeout (%s; --reply-timeout or [model] reply_timeout changes it)", e.After)
	}
	return fmt.Sprintf("model API: %s timeout (%s)", e.Which, e.After)
}

// Timeout lets callers treat it like any net timeout.
func (e *TimeoutError) Timeout() bool { return true }

// maxErrorText is how much of a body that is not a known error shape is
// quoted in an APIError.
const maxErrorText = 500

// maxHTMLText is how much of an HTML error page's text is kept: a proxy's
// or gateway's page is boilerplate past its first sentences, and the
// message must stay one readable line in a status bar or a picker.
const maxHTMLText = 300

// apiError turns an error body into a chat.APIError carrying the server's own
// message: {"error": {...}}, {"error": "text"}, a flat {"message": ...}, a
// one-element array of those (Gemini), an HTML page's text, or else the
// body's first bytes.
func apiError(status int, body []byte) *chat.APIError {
	e := &chat.APIError{Status: status}
	if parseErrorJSON(bytes.TrimSpace(body), e) {
		return e
	}
	if isHTML(body) {
		e.Message = htmlText(body, maxHTMLText)
	} else {
		e.Message = firstText(body, maxErrorText)
	}
	if e.Message == "" && status != http.StatusOK {
		e.Message = http.StatusText(status)
	}
	return e
}

// parseErrorJSON fills e from a JSON error payload and says whether it knew
// the shape.
func parseErrorJSON(b []byte, e *chat.APIError) bool {
	if len(b) == 0 {
		return false
	}
	if b[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(b, &list) != nil || len(list) == 0 {
			return false
		}
		return parseErrorJSON(bytes.TrimSpace(list[0]), e)
	}
	if b[0] != '{' {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return false
	}
	if inner, ok := top["error"]; ok && !isNull(inner) {
		inner = bytes.TrimSpace(inner)
		var text string
		if json.Unmarshal(inner, &text) == nil {
			e.Message = text
			return true
		}
		return fillFromObject(inner, e)
	}
	if _, ok := top["message"]; ok {
		return fillFromObject(b, e)
	}
	if detail, ok := top["detail"]; ok { // FastAPI-based servers
		var text string
		if json.Unmarshal(detail, &text) == nil {
			e.Message = text
			return true
		}
		e.Message = string(detail)
		return true
	}
	return false
}

// fillFromObject reads an OpenAI error object, whose message may be a list
// and whose code may be a number, the way go-openai's APIError does.
func fillFromObject(b []byte, e *chat.APIError) bool {
	var oe openai.APIError
	if json.Unmarshal(b, &oe) != nil {
		var loose struct {
			Message any `json:"message"`
		}
		if json.Unmarshal(b, &loose) != nil || loose.Message == nil {
			return false
		}
		e.Message = fmt.Sprint(loose.Message)
		return true
	}
	e.Message, e.Type = oe.Message, oe.Type
	var code struct {
		Code json.RawMessage `json:"code"`
	}
	if json.Unmarshal(b, &code) == nil && !isNull(code.Code) {
		var s string
		if json.Unmarshal(code.Code, &s) != nil {
			s = string(bytes.TrimSpace(code.Code)) // a number
		}
		e.Code = s
	}
	if e.Message == "" {
		e.Message = string(b)
	}
	return true
}

func isNull(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) == 0 || string(b) == "null"
}

// firstText is at most n bytes of b as trimmed text, cut on a rune boundary.
func firstText(b []byte, n int) string {
	b = bytes.TrimSpace(b)
	if len(b) <= n {
		return strings.ToValidUTF8(string(b), "?")
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strings.ToValidUTF8(string(b[:cut]), "?") + "…"
}

// isHTML reports whether an error body is an HTML page, as reverse proxies,
// gateways and misconfigured endpoints send, by the standard sniffing rules.
func isHTML(b []byte) bool {
	return strings.HasPrefix(http.DetectContentType(bytes.TrimSpace(b)), "text/html")
}

// htmlText collapses an HTML page to one line of its text: the title, then
// the visible text without tags, scripts or styles, whitespace collapsed,
// at most n bytes. A body that repeats the title (a heading of the same
// words) is not doubled.
func htmlText(b []byte, n int) string {
	z := html.NewTokenizer(bytes.NewReader(b))
	var title, text []string
	skip := 0 // depth inside script, style and the like
	inTitle := false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				return firstText(b, n)
			}
			return joinPage(strings.Join(strings.Fields(strings.Join(title, " ")), " "),
				strings.Join(strings.Fields(strings.Join(text, " ")), " "), n)
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch a {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg:
				if tt == html.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
			case atom.Title:
				inTitle = tt == html.StartTagToken
			}
		case html.TextToken:
			if skip > 0 {
				continue
			}
			t := string(z.Text()) // entities decoded
			if inTitle {
				title = append(title, t)
			} else {
				text = append(text, t)
			}
		}
	}
}

// joinPage puts a page's title and text on one line, capped at n bytes.
func joinPage(title, text string, n int) string {
	line := text
	switch {
	case title == "":
	case text == "" || strings.HasPrefix(text, title):
		if text == "" {
			line = title
		}
	default:
		line = title + " — " + text
	}
	return firstText([]byte(line), n)
}

// redactedError hides the API key in an error's text while keeping the
// chain for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact makes sure no error leaving the client carries the key, even when
// a server or proxy echoes it back.
func (c *Client) redact(err error) error {
	if err == nil || len(c.secrets) == 0 {
		return err
	}
	if ae, ok := err.(*chat.APIError); ok {
		ae.Message = hideAll(ae.Message, c.secrets)
		return ae
	}
	if msg := err.Error(); hideAll(msg, c.secrets) != msg {
		return &redactedError{msg: hideAll(msg, c.secrets), err: err}
	}
	return err
}
