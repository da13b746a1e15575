package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A quoted paragraph keeps its bar on every line at every width, and no
// line is wider than asked.
func TestBlockQuotesWrapWithTheirBar(t *testing.T) {
	md := New("dark")
	quote := "> Before a release is tagged, run the checks and give a go / no-go answer, and record why."
	for w := 24; w < 120; w++ {
		for _, l := range md.Render(quote, w) {
			s := strings.TrimSpace(ansi.Strip(l))
			if s != "" && !strings.HasPrefix(s, "▎") {
				t.Fatalf("width %d: quoted line without its bar: %q", w, s)
			}
			if ansi.StringWidth(l) > w {
				t.Fatalf("width %d: line %d wide", w, ansi.StringWidth(l))
			}
		}
	}
}

// A code block draws the same every time: the 256-colour formatter chose
// between equally close colours (a comment's grey) at random.
func TestCodeHighlightIsStable(t *testing.T) {
	text := "```tsx\n// BEFORE: src/components/ProductCard.tsx\nconst x = <div className=\"card\">{/* note */}</div>;\n```\n"
	first := strings.Join(New("dark").Render(text, 60), "\n")
	for range 30 {
		if got := strings.Join(New("dark").Render(text, 60), "\n"); got != first {
			t.Fatalf("two renders of one code block differ:\n%q\n%q", first, got)
		}
	}
}
