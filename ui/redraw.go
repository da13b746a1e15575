package ui

import (
	"slices"

	"skillet/harness"
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
	snap             *harness.Snapshot
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
		m.status = statusMemo{key: k, line: fit(m.statusLine(w), w), ok: true}
	}
	return m.status.line
}
