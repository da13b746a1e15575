package ui

import (
	"slices"
	"strings"

	"skillet/harness/termtext"
	"skillet/harness/view"
)

// The program draws the screen after every message it handles, while most
// messages change one part of it or none (a streamed chunk changes the
// transcript, a spinner tick the status bar). The parts below keep what
// they drew with the inputs it was drawn from, and draw again only when an
// input changed.

// boxMemo is one pane's box as last drawn.
type boxMemo struct {
	th            *theme
	title, footer string
	lines         []string
	w, h          int
	focused       bool
	out           []string
	// hit is whether the last call returned the box drawn before.
	hit bool
}

// box is box(...), drawn again only when an argument changed. Lines below
// the box's inner height are not shown, so they are not compared.
func (c *boxMemo) box(th *theme, title string, lines []string, w, h int, focused bool, footer string) []string {
	if inner := max(0, h-2); len(lines) > inner {
		lines = lines[:inner]
	}
	c.hit = c.out != nil && c.th == th && c.title == title && c.footer == footer &&
		c.w == w && c.h == h && c.focused == focused && slices.Equal(c.lines, lines)
	if !c.hit {
		c.out = box(th, title, lines, w, h, focused, footer)
		c.th, c.title, c.footer, c.w, c.h, c.focused = th, title, footer, w, h, focused
		// a copy: callers may write into the slice they passed
		c.lines = append(c.lines[:0], lines...)
	}
	// full: an append by the caller never writes into the memo
	return c.out[:len(c.out):len(c.out)]
}

// statusKey is everything the status bar is drawn from.
type statusKey struct {
	w                int
	th               *theme
	snap             *view.Snapshot
	running, present bool
	opening          bool
	activity, spin   string
	travel           string
}

// statusMemo is the status bar as last drawn.
type statusMemo struct {
	key  statusKey
	line string
	ok   bool
}

// statusBar is the status bar fitted to w columns, drawn again only when
// what it shows changed.
func (m *model) statusBar(w int) string {
	k := statusKey{w: w, th: m.th, snap: m.snap, running: m.running, present: m.present,
		opening: m.opening != nil, activity: m.activity, travel: m.travelBar()}
	if m.running || m.activity != "" {
		k.spin = m.spin.View()
	}
	if !m.status.ok || m.status.key != k {
		m.status = statusMemo{key: k, line: termtext.Fit(m.statusLine(w), w), ok: true}
	}
	return m.status.line
}

// sameLines is whether a and b are the same slice: a memo hands back the
// slice it drew before, so an unchanged part is found without comparing
// its text.
func sameLines(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// joinMemo is lines joined from parts, joined again only when a part is
// not the slice it was.
type joinMemo struct {
	in  [][]string
	out []string
}

func (j *joinMemo) same(parts [][]string) bool {
	if j.out == nil || len(parts) != len(j.in) {
		return false
	}
	for i := range parts {
		if !sameLines(parts[i], j.in[i]) {
			return false
		}
	}
	return true
}

func (j *joinMemo) keep(parts [][]string, out []string) []string {
	j.in, j.out = append(j.in[:0], parts...), out
	return out[:len(out):len(out)]
}

// hjoin is hjoin(cols...), kept.
func (j *joinMemo) hjoin(cols ...[]string) []string {
	if j.same(cols) {
		return j.out[:len(j.out):len(j.out)]
	}
	return j.keep(cols, hjoin(cols...))
}

// vjoin is the parts one under another, kept.
func (j *joinMemo) vjoin(parts ...[]string) []string {
	if j.same(parts) {
		return j.out[:len(j.out):len(j.out)]
	}
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return j.keep(parts, out)
}

// screenMemo is the frame as last joined into one string.
type screenMemo struct {
	lines []string
	out   string
}

// join is strings.Join(lines, "\n"), kept: most frames are the frame
// before, and their lines the strings drawn before, so the comparison
// is cheap and the terminal renderer sees the very string it saw.
func (s *screenMemo) join(lines []string) string {
	if s.lines == nil || !slices.Equal(s.lines, lines) {
		s.lines, s.out = append(s.lines[:0], lines...), strings.Join(lines, "\n")
	}
	return s.out
}

// helpKey is what the message line's key hints are drawn from.
type helpKey struct {
	w        int
	th       *theme
	focus    pane
	paneMode bool
}

// helpMemo is the key hints as last drawn.
type helpMemo struct {
	key  helpKey
	line string
	ok   bool
}

// prefixMemo is lines with a prefix before each, kept while the lines are
// the slice they were (a pane hands back the lines it drew before while
// nothing changed). Lines are prefixed as they are asked for: a long item
// shows a screenful of its lines at most.
type prefixMemo struct {
	prefix  string
	in, out []string
}

func (c *prefixMemo) reset(prefix string, lines []string) {
	if c.out == nil || c.prefix != prefix || !sameLines(c.in, lines) {
		c.prefix, c.in, c.out = prefix, lines, make([]string, len(lines))
	}
}

// line is lines[i] after prefix.
func (c *prefixMemo) line(prefix string, lines []string, i int) string {
	c.reset(prefix, lines)
	if c.out[i] == "" { // never a prefixed line: it holds the prefix
		c.out[i] = prefix + lines[i]
	}
	return c.out[i]
}

// pad is pad(lines), kept.
func (c *prefixMemo) pad(lines []string) []string {
	c.reset(" ", lines)
	for i := range lines {
		c.line(" ", lines, i)
	}
	return c.out[:len(c.out):len(c.out)]
}
