package llm

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// SecretForms is every way a secret may be written where Skillet keeps
// text: as it is, JSON-escaped, URL-encoded (query and path) and in
// base64 (standard, URL-safe, padded or not). Each must be cut out, or an
// echo of the secret survives in another encoding.
func SecretForms(s string) []string {
	if s == "" {
		return nil
	}
	out := []string{s, url.QueryEscape(s), url.PathEscape(s)}
	if b, err := json.Marshal(s); err == nil {
		out = append(out, string(b[1:len(b)-1]))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) == nil {
		b := bytes.TrimSpace(buf.Bytes())
		out = append(out, string(b[1:len(b)-1]))
	}
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		out = append(out, e.EncodeToString([]byte(s)))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// credentialParams are the query parameters whose values are credentials
// wherever they appear in a base URL (Azure's api-key, Google's key, an
// OAuth access_token ...). Others, such as api-version, are no secret.
var credentialParams = []string{"key", "api-key", "api_key", "apikey", "access_token", "token", "auth", "password",
	"secret", "client_secret", "sig", "signature", "code", "x-api-key", "subscription-key"}

// IsCredentialParam reports whether a query parameter of this name holds a
// credential.
func IsCredentialParam(name string) bool {
	n := strings.ToLower(name)
	if slices.Contains(credentialParams, n) {
		return true
	}
	for _, part := range []string{"token", "secret", "password", "apikey", "api-key", "api_key"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// URLSecrets are the credentials a base URL carries: the password of its
// user info, the Basic Authorization value made of it, and the values of
// its credential query parameters.
func URLSecrets(u *url.URL) []string {
	if u == nil {
		return nil
	}
	var out []string
	if u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			out = append(out, pw, u.User.Username()+":"+pw)
		}
	}
	for name, vals := range u.Query() {
		if IsCredentialParam(name) {
			for _, v := range vals {
				if v != "" {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// Redacted is a base URL as it may be shown or written: no password, no
// credential in its query.
func Redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for name := range q {
			if IsCredentialParam(name) {
				q.Set(name, "xxxxx")
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// withForms is secrets with every form of each, longest first, so that
// one inside another is cut whole.
func withForms(secrets []string) []string {
	var out []string
	for _, s := range secrets {
		out = append(out, SecretForms(s)...)
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(out)
}

// ScrubEvents cuts the secrets out of a reply's server-sent events taken
// together: a server may echo a key split across events, so that no one
// event holds it. The string values of each event's JSON data are joined
// along the same field (choices[0].delta.content, say) across events, the
// secrets found in the joined text, and each event's share of a secret
// taken out — the piece where a secret starts holds RedactedKey. Events
// that change are written again as compact JSON in the same key order;
// the others are kept byte for byte.
func ScrubEvents(events []string, secrets []string) []string {
	var keys []string
	for _, k := range withForms(secrets) {
		if len(k) >= MinHiddenKey {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return events
	}
	type piece struct {
		ev, line, ord int
		text          string
	}
	byPath := map[string][]piece{}
	var order []string
	lines := make([][]string, len(events))
	for i, ev := range events {
		lines[i] = strings.SplitAfter(ev, "\n")
		for j, l := range lines[i] {
			data, ok := dataOf(l)
			if !ok {
				continue
			}
			ord := 0
			_ = eachString([]byte(data), func(path, s string) {
				if _, seen := byPath[path]; !seen {
					order = append(order, path)
				}
				byPath[path] = append(byPath[path], piece{i, j, ord, s})
				ord++
			})
		}
	}
	// replace[ev][line][ord] is the new text of a string value
	replace := map[[3]int]string{}
	for _, path := range order {
		ps := byPath[path]
		if len(ps) < 2 {
			continue // one piece alone was scrubbed with its event
		}
		var joined strings.Builder
		for _, p := range ps {
			joined.WriteString(p.text)
		}
		spans := findAll(joined.String(), keys)
		if len(spans) == 0 {
			continue
		}
		at := 0
		for _, p := range ps {
			start, end := at, at+len(p.text)
			at = end
			var b strings.Builder
			changed := false
			for k := start; k < end; k++ {
				in, first := inSpan(spans, k)
				switch {
				case !in:
					b.WriteByte(joined.String()[k])
				case first:
					b.WriteString(RedactedKey)
					changed = true
				default:
					changed = true
				}
			}
			if changed {
				replace[[3]int{p.ev, p.line, p.ord}] = b.String()
			}
		}
	}
	if len(replace) == 0 {
		return events
	}
	out := slices.Clone(events)
	for i := range events {
		touched := false
		for j, l := range lines[i] {
			data, ok := dataOf(l)
			if !ok {
				continue
			}
			ord := 0
			hit := false
			b, err := walkJSON([]byte(data), func(_, s string) string {
				r, ok := replace[[3]int{i, j, ord}]
				ord++
				if ok {
					hit = true
					return r
				}
				return s
			})
			if err != nil || !hit {
				continue
			}
			nl := ""
			if strings.HasSuffix(l, "\r\n") {
				nl = "\r\n"
			} else if strings.HasSuffix(l, "\n") {
				nl = "\n"
			}
			lines[i][j] = "data: " + string(b) + nl
			touched = true
		}
		if touched {
			out[i] = strings.Join(lines[i], "")
		}
	}
	return out
}

// ScrubStream is ScrubEvents on a reply kept whole: it is cut into its
// events (each with its blank line) and put back together.
func ScrubStream(raw string, secrets []string) string {
	var events []string
	rest := raw
	for rest != "" {
		end := eventEndOf(rest)
		if end < 0 {
			events = append(events, rest)
			break
		}
		events = append(events, rest[:end])
		rest = rest[end:]
	}
	if len(events) < 2 {
		return raw
	}
	return strings.Join(ScrubEvents(events, secrets), "")
}

// eventEndOf is where the first event of s ends, after its blank line.
func eventEndOf(s string) int {
	lf := strings.Index(s, "\n\n")
	// only a CRLF end that starts before the LF one counts: looking
	// through the whole rest for it, event after event, is quadratic in
	// the stream
	scope := s
	if lf >= 0 {
		scope = s[:min(len(s), lf+3)]
	}
	crlf := strings.Index(scope, "\r\n\r\n")
	switch {
	case lf >= 0 && (crlf < 0 || lf < crlf):
		return lf + 2
	case crlf >= 0:
		return crlf + 4
	}
	return -1
}

// dataOf is the JSON of an event's "data:" line.
func dataOf(line string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data:")
	if !ok {
		return "", false
	}
	rest = strings.TrimPrefix(rest, " ")
	if !strings.HasPrefix(rest, "{") && !strings.HasPrefix(rest, "[") {
		return "", false
	}
	return rest, true
}

// findAll is where each key occurs in s, the longest first where two
// overlap.
func findAll(s string, keys []string) [][2]int {
	var spans [][2]int
	for _, k := range keys {
		for from := 0; ; {
			i := strings.Index(s[from:], k)
			if i < 0 {
				break
			}
			a := from + i
			spans = append(spans, [2]int{a, a + len(k)})
			from = a + len(k)
		}
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	// overlapping spans become one
	var merged [][2]int
	for _, sp := range spans {
		if n := len(merged); n > 0 && sp[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], sp[1])
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

func inSpan(spans [][2]int, k int) (in, first bool) {
	i, _ := slices.BinarySearchFunc(spans, k, func(sp [2]int, k int) int {
		switch {
		case sp[1] <= k:
			return -1
		case sp[0] > k:
			return 1
		}
		return 0
	})
	if i < len(spans) && spans[i][0] <= k && k < spans[i][1] {
		return true, spans[i][0] == k
	}
	return false, false
}

// walkJSON calls f on every string value of a JSON text, with the value's
// path (keys and indexes joined by dots), and writes the text again,
// compact, in the same key order, with each string as f returns it.
func walkJSON(b []byte, f func(path, s string) string) ([]byte, error) {
	var out bytes.Buffer
	err := walkStrings(b, &out, f)
	return out.Bytes(), err
}

// eachString calls f on every string value of a JSON text with its path,
// writing nothing: reading a long stream's events, most of which hold no
// secret, costs only the reading.
func eachString(b []byte, f func(path, s string)) error {
	return walkStrings(b, nil, func(path, s string) string { f(path, s); return s })
}

// walkStrings is walkJSON writing to out, or only reading when out is
// nil.
func walkStrings(b []byte, out *bytes.Buffer, f func(path, s string) string) error {
	write := out != nil
	if !write {
		out = &bytes.Buffer{} // the punctuation lands here, unread
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	type frame struct {
		obj, wantKey bool
		n            int
		key          string
	}
	var stack []*frame
	var segs []string
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	str := func(s string) {
		if !write {
			return
		}
		buf.Reset()
		_ = enc.Encode(s)
		out.Write(bytes.TrimRight(buf.Bytes(), "\n"))
	}
	// before a value: the comma, and the value's path segment
	seg := func() string {
		if len(stack) == 0 {
			return ""
		}
		top := stack[len(stack)-1]
		if !top.obj && top.n > 0 {
			out.WriteByte(',')
		}
		if top.obj {
			return top.key
		}
		return strconv.Itoa(top.n)
	}
	after := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		top.n++
		if top.obj {
			top.wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if len(stack) > 0 {
			if top := stack[len(stack)-1]; top.obj && top.wantKey {
				if d, ok := tok.(json.Delim); ok && d == '}' {
					// the object ends
				} else {
					k, _ := tok.(string)
					if top.n > 0 {
						out.WriteByte(',')
					}
					str(k)
					out.WriteByte(':')
					top.key, top.wantKey = k, false
					continue
				}
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				segs = append(segs, seg())
				out.WriteByte(byte(t))
				stack = append(stack, &frame{obj: t == '{', wantKey: t == '{'})
			case '}', ']':
				out.WriteByte(byte(t))
				stack = stack[:len(stack)-1]
				segs = segs[:len(segs)-1]
				after()
			}
		case string:
			path := strings.Join(append(segs[min(1, len(segs)):], seg()), ".")
			str(f(path, t))
			after()
		case json.Number:
			seg()
			out.WriteString(t.String())
			after()
		case bool:
			seg()
			out.WriteString(strconv.FormatBool(t))
			after()
		case nil:
			seg()
			out.WriteString("null")
			after()
		}
	}
	return nil
}
