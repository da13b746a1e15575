package llm

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
)

// walkJSON writes compact JSON back byte for byte when nothing changes,
// whatever its nesting, so that a scrubbed event differs only where a
// secret was.
func TestWalkJSONKeepsCompactJSON(t *testing.T) {
	for _, in := range []string{
		`{"choices":[{"index":0,"delta":{"content":"a<b>&c","tool_calls":[{"index":0,"function":{"arguments":"{\"x\":1}"}}]},"finish_reason":null}],"usage":{"n":1.5e3,"ok":true}}`,
		`[1,"two",[],{},[{"a":[null,false]}]]`,
		`"just a string"`,
	} {
		var paths []string
		out, err := walkJSON([]byte(in), func(p, s string) string { paths = append(paths, p); return s })
		if err != nil || string(out) != in {
			t.Errorf("walkJSON(%s) = %s, %v", in, out, err)
		}
		if strings.HasPrefix(in, `{"choices"`) && (len(paths) != 2 || paths[0] != "choices.0.delta.content" || paths[1] != "choices.0.delta.tool_calls.0.function.arguments") {
			t.Errorf("paths %v", paths)
		}
	}
}

// A secret split across events in any of its forms is cut, the piece
// where it starts saying so; text around it stays.
func TestScrubEventsJoinsEvents(t *testing.T) {
	key := "sk-abcdefghijklmnop"
	ev := func(s string) string { return `data: {"choices":[{"delta":{"content":"` + s + `"}}]}` + "\n\n" }
	for _, form := range []string{key, base64.StdEncoding.EncodeToString([]byte(key)), url.QueryEscape("p@ss word/+" + key)} {
		secret := key
		if strings.Contains(form, "%") {
			secret = "p@ss word/+" + key
		}
		events := []string{ev("before ")}
		for i := 0; i < len(form); i += 3 {
			events = append(events, ev(form[i:min(i+3, len(form))]))
		}
		events = append(events, ev(" after"), "data: [DONE]\n\n")
		out := ScrubEvents(events, []string{secret})
		joined := strings.Join(out, "")
		text := ""
		for _, e := range out {
			if d, ok := dataOf(strings.TrimRight(e, "\n")); ok {
				i := strings.Index(d, `"content":"`)
				if i < 0 {
					continue
				}
				text += d[i+len(`"content":"`) : strings.LastIndex(d, `"}}]}`)]
			}
		}
		if text != "before "+RedactedKey+" after" {
			t.Errorf("form %s: the stream now says %q", form, text)
		}
		if strings.Contains(joined, form[:6]+`"`) && len(form) > 6 {
			t.Errorf("form %s: a piece of it is left: %s", form, joined)
		}
		if out[0] != events[0] || out[len(out)-1] != events[len(events)-1] {
			t.Error("events without a share of the secret changed")
		}
	}
}

// Query credentials of a base URL are secrets, other parameters are not;
// requests keep the query after the path.
func TestURLSecretsAndEndpoint(t *testing.T) {
	u, _ := url.Parse("https://bob:pw12345678@h.example/v1?api-version=2024-01-01&api-key=K1234567&access_token=T1234567")
	got := strings.Join(URLSecrets(u), " ")
	for _, want := range []string{"pw12345678", "bob:pw12345678", "K1234567", "T1234567"} {
		if !strings.Contains(got, want) {
			t.Errorf("URLSecrets misses %s: %s", want, got)
		}
	}
	if strings.Contains(got, "2024-01-01") {
		t.Errorf("api-version is no secret: %s", got)
	}
	if e := endpointURL(u, "chat/completions"); e != "https://bob:pw12345678@h.example/v1/chat/completions?api-version=2024-01-01&api-key=K1234567&access_token=T1234567" {
		t.Errorf("endpoint %s", e)
	}
	r := Redacted(u.String())
	if strings.Contains(r, "pw12345678") || strings.Contains(r, "K1234567") || strings.Contains(r, "T1234567") || !strings.Contains(r, "api-version=2024-01-01") {
		t.Errorf("Redacted = %s", r)
	}
}
