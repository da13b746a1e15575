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

// A renderer handed a stream draws a text that extends the stream's with
// it, and what it draws is a whole render's; a text the stream did not
// draw the start of is rendered whole, and the stream stays for later.
func TestContinueDrawsWithTheStream(t *testing.T) {
	reply := streamReplies["mixed"] + "\n\n" + streamReplies["lists"]
	fresh := New("dark")
	for _, c := range []struct {
		name       string
		seen, text string
		w          int
		used       bool
	}{
		{"the whole reply", reply, reply, 60, true},
		{"more after it", reply[:len(reply)/2], reply, 60, true},
		{"another width", reply, reply, 45, true},
		{"another text", reply, streamReplies["quotes"], 60, false},
	} {
		s := NewStream()
		s.Render("dark", c.seen, 60)
		md := New("dark")
		md.Continue(s)
		if d := diffLines(md.Render(c.text, c.w), fresh.Render(c.text, c.w)); d != "" {
			t.Fatalf("%s:\n%s", c.name, d)
		}
		if used := md.next == nil; used != c.used {
			t.Fatalf("%s: stream used %v, want %v", c.name, used, c.used)
		}
		if st := s.State(); c.used && (st.Whole || st.Chunks == 0) {
			t.Fatalf("%s: the stream drew without chunks (%+v)", c.name, st)
		}
	}
}
