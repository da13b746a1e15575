package llm

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEventEndOfFirstEnd checks that the end of an event is the earliest
// blank line, LF or CRLF, whatever follows it, against a plain search.
func TestEventEndOfFirstEnd(t *testing.T) {
	want := func(s string) int {
		for i := range len(s) {
			if strings.HasPrefix(s[i:], "\n\n") {
				return i + 2
			}
			if strings.HasPrefix(s[i:], "\r\n\r\n") {
				return i + 4
			}
		}
		return -1
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"\r", "\n", "a", "data: {}"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		if s := b.String(); eventEndOf(s) != want(s) {
			t.Fatalf("eventEndOf(%q) = %d, want %d", s, eventEndOf(s), want(s))
		}
	}
}
