package ui

import "fmt"

// scroller is the scroll position of a pane whose lines are all built (the
// side panes): an offset kept within the content.
type scroller struct{ off int }

func (s *scroller) clamp(total, h int) {
	s.off = min(s.off, total-h)
	s.off = max(s.off, 0)
}

func (s *scroller) by(n, total, h int) {
	s.off += n
	s.clamp(total, h)
}

// show scrolls the least needed to bring lines from..to into view.
func (s *scroller) show(from, to, total, h int) {
	if to-from+1 > h || from < s.off {
		s.off = from
	} else if to >= s.off+h {
		s.off = to - h + 1
	}
	s.clamp(total, h)
}

// window is the visible part of lines.
func (s *scroller) window(lines []string, h int) []string {
	s.clamp(len(lines), h)
	end := min(len(lines), s.off+h)
	return lines[s.off:end]
}

// position is a footer such as "12–40/300", empty when everything fits.
func position(off, h, total int) string {
	if total <= h || h <= 0 {
		return ""
	}
	return fmt.Sprintf("%d–%d/%d", off+1, min(total, off+h), total)
}

// builtPane is the part of a side pane that holds its built lines and the
// selected item's line range, rebuilt when its content, width or focus
// changes.
type builtPane struct {
	sel     int             // the selected item
	open    map[string]bool // items shown unfolded, by name
	sc      scroller
	lines   []string
	selFrom int
	selTo   int
	builtW  int
	dirty   bool
	follow  bool // keep the selection in view after a rebuild
	focused bool
}

// show returns the h lines on screen, calling build when they are stale.
func (b *builtPane) show(w, h int, focused bool, build func(w int)) []string {
	if focused != b.focused {
		b.focused, b.dirty = focused, true
	}
	if b.dirty || b.builtW != w {
		build(w)
	}
	if b.follow {
		b.sc.show(b.selFrom, b.selTo, len(b.lines), h)
		b.follow = false
	}
	return b.sc.window(b.lines, h)
}

func (b *builtPane) footer(h int) string { return position(b.sc.off, h, len(b.lines)) }

// toggle folds or unfolds an item.
func (b *builtPane) toggle(name string) {
	if b.open == nil {
		b.open = map[string]bool{}
	}
	b.open[name] = !b.open[name]
	b.follow, b.dirty = true, true
}
