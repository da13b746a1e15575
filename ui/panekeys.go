package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// navKey moves a side pane's selection among n items or scrolls it h rows
// at a time, by the key map; it reports whether the key was one of its.
func navKey(b *builtPane, k keyMap, msg tea.KeyPressMsg, n, h int) bool {
	switch {
	case key.Matches(msg, k.Up):
		b.sel, b.follow, b.dirty = max(0, b.sel-1), true, true
	case key.Matches(msg, k.Down):
		b.sel, b.follow, b.dirty = max(0, min(n-1, b.sel+1)), true, true
	default:
		return scrollKey(&b.sc, k, msg, len(b.lines), h)
	}
	return true
}

// scrollKey scrolls a pane without a selection; it reports whether the
// key was one of its.
func scrollKey(sc *scroller, k keyMap, msg tea.KeyPressMsg, n, h int) bool {
	switch {
	case key.Matches(msg, k.Up):
		sc.by(-1, n, h)
	case key.Matches(msg, k.Down):
		sc.by(1, n, h)
	case key.Matches(msg, k.PageDown):
		sc.by(max(1, h-2), n, h)
	case key.Matches(msg, k.PageUp):
		sc.by(-max(1, h-2), n, h)
	case key.Matches(msg, k.Top):
		sc.off = 0
	case key.Matches(msg, k.Bottom):
		sc.by(n, n, h)
	default:
		return false
	}
	return true
}
