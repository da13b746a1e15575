package share

import (
	"strings"
	"testing"
	"time"
)

// wrap walks a paragraph once: 4 MB of one paragraph wraps in about the
// time of reading it (it took over a minute when each line copied the
// rest), every line fits, and the words come back in order.
func TestWrapIsLinearInAParagraph(t *testing.T) {
	para := "  " + strings.Repeat("lorem ipsum dolor sit amet ", 4<<20/27)
	start := time.Now()
	lines := wrap(para, CastWidth)
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("wrapping 4 MB took %s", took)
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > CastWidth {
			t.Fatalf("line %d has %d runes", i, n)
		}
		if i > 0 && i < len(lines)-1 && !strings.HasPrefix(l, "  ") {
			t.Fatalf("continuation line %d lost the indent: %q", i, l)
		}
	}
	if got, want := strings.Join(strings.Fields(strings.Join(lines, " ")), " "), strings.Join(strings.Fields(para), " "); got != want {
		t.Fatal("the words changed in wrapping")
	}
	if got := wrap("abcdefghij klmnop", 10); strings.Join(got, "|") != "abcdefghij|klmnop" {
		t.Errorf("wrap = %q", got)
	}
	if got := wrap("  aaaa bbbb cccc", 8); strings.Join(got, "|") != "  aaaa|  bbbb|  cccc" {
		t.Errorf("wrap with an indent = %q", got)
	}
}
