package event

import "testing"

// A line torn anywhere — inside a key, an escape, a value — is refused
// with an error. (go-json panics on some such lines, depending on the
// memory beyond them; the fuzz seeds in harness/testdata keep two that
// did.)
func TestUnmarshalTornLines(t *testing.T) {
	lines := []string{
		`{"type":"assistant","turn":3,"call":2,"message":{"role":"assistant","content":"a \"quoted\" \\ reply \u00e9"},"raw":"data: {}\n\n"}`,
		`{"type":"assistant","C\\u0041":"x","turn":1}`,
		`{"type":"tool_result","tool_call_id":"c\\"1","content":"\\\\"}`,
	}
	for _, line := range lines {
		for _, tail := range []string{"", `\`, `\0`, `\u`, `"\`, `":\`} {
			for n := range len(line) {
				b := []byte(line[:n] + tail)
				if _, err := Unmarshal(b); err == nil {
					t.Errorf("Unmarshal(%q) accepted a torn line", b)
				}
			}
		}
	}
}
