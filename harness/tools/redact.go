package tools

import (
	"bytes"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// redacted replaces a secret in what the runner writes.
const redacted = "REDACTED"

// minSecret is the shortest value hidden wherever it appears: shorter ones
// would blank out ordinary words.
const minSecret = 4

// secretName matches flag and variable names whose value is a credential.
var secretName = regexp.MustCompile(`(?i)(token|key|secret|pass|pwd|auth|credential|cookie|session)`)

// RedactURL hides the credentials a URL may carry: its user info, and the
// values of its query (some endpoints and gateways take a key there). MCP
// server addresses and the model's base URL are recorded through it.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.User == nil && u.RawQuery == "" {
		return raw
	}
	if u.User != nil {
		u.User = url.User(redacted)
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			q.Set(k, redacted)
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// secrets collects the values to hide in a server's log and messages.
type secrets struct{ vals []string }

func (s *secrets) add(v string) {
	if len(v) >= minSecret {
		s.vals = append(s.vals, v)
		if e := url.QueryEscape(v); e != v {
			s.vals = append(s.vals, e)
		}
	}
}

// addURL hides a URL's user info and query values.
func (s *secrets) addURL(raw string) {
	u, err := url.Parse(raw)
	if err != nil || (u.User == nil && u.RawQuery == "") {
		return
	}
	if u.User != nil {
		// The user name too: Go's own URL errors print it, hiding only
		// the password.
		s.add(u.User.String())
		s.add(u.User.Username())
		if p, ok := u.User.Password(); ok {
			s.add(p)
		}
	}
	for _, vals := range u.Query() {
		for _, v := range vals {
			s.add(v)
		}
	}
}

// replacer replaces every collected value, the longest first so a secret
// holding another is hidden whole.
func (s *secrets) replacer() *strings.Replacer {
	vals := append([]string(nil), s.vals...)
	slices.SortStableFunc(vals, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(vals))
	for _, v := range vals {
		pairs = append(pairs, v, redacted)
	}
	return strings.NewReplacer(pairs...)
}

// redactArgs returns a command line fit for a log: URLs lose their
// credentials, and the value of a flag or assignment whose name looks like
// a credential (--token=X, --api-key X, PASSWORD=X) is hidden. The hidden
// values are added to s, so they are hidden wherever else they appear.
func redactArgs(args []string, s *secrets) []string {
	out := make([]string, len(args))
	hideNext := false
	for i, a := range args {
		switch {
		case hideNext && !strings.HasPrefix(a, "-"):
			s.add(a)
			out[i] = redacted
			hideNext = false
			continue
		case strings.Contains(a, "://"):
			s.addURL(a)
			out[i] = RedactURL(a)
			if !strings.HasPrefix(out[i], "(") {
				hideNext = false
				continue
			}
			out[i] = a // not a URL after all: treat it as a word
		}
		hideNext = false
		name, val, assign := strings.Cut(a, "=")
		switch {
		case assign && secretName.MatchString(name):
			s.add(val)
			out[i] = name + "=" + redacted
		case assign && strings.Contains(val, "://"):
			s.addURL(val)
			out[i] = name + "=" + RedactURL(val)
		case !assign && strings.HasPrefix(a, "-") && secretName.MatchString(a):
			out[i] = a
			hideNext = true
		default:
			out[i] = a
		}
	}
	return out
}

// maxLogLine is how much of a line without an end the redacting writer
// holds before writing it out anyway.
const maxLogLine = 64 << 10

// redactingWriter hides secrets in what a server writes to its log, a
// whole line at a time so a secret split across writes is still found.
type redactingWriter struct {
	mu  sync.Mutex
	w   io.Writer
	rep *strings.Replacer
	buf []byte
}

func (rw *redactingWriter) Write(p []byte) (int, error) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.buf = append(rw.buf, p...)
	for {
		i := bytes.IndexByte(rw.buf, '\n')
		if i < 0 {
			if len(rw.buf) > maxLogLine {
				if err := rw.emit(len(rw.buf)); err != nil {
					return len(p), err
				}
			}
			return len(p), nil
		}
		if err := rw.emit(i + 1); err != nil {
			return len(p), err
		}
	}
}

// emit writes the first n bytes of the buffer, redacted.
func (rw *redactingWriter) emit(n int) error {
	line := rw.rep.Replace(string(rw.buf[:n]))
	rw.buf = rw.buf[n:]
	_, err := io.WriteString(rw.w, line)
	return err
}

// Flush writes a last line without an end.
func (rw *redactingWriter) Flush() error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if len(rw.buf) == 0 {
		return nil
	}
	return rw.emit(len(rw.buf))
}
