package ui

// pane is a focusable region.
type pane int

const (
	paneInput pane = iota
	paneTranscript
	paneLRU
	paneContext
	paneTools
	numPanes
)

type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool {
	return r.w > 0 && r.h > 0 && x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h
}

type layoutMode int

const (
	layoutWide   layoutMode = iota // four panes side by side (≥ 160 columns)
	layoutMedium                   // the transcript beside a stack of three (100–159)
	layoutNarrow                   // one pane at a time under a tab bar (< 100)
	layoutZoom                     // one pane over the whole body (ctrl+z)
)

// layout is where everything goes on a w×h screen. Hidden panes have an
// empty rect.
type layout struct {
	mode   layoutMode
	w, h   int
	panes  [numPanes]rect
	tabs   rect
	msg    rect
	status rect
}

// computeLayout splits the screen: body, a message line, the input box,
// the status bar. inputLines is the text area's height; shown is the pane
// the narrow layout shows.
func computeLayout(w, h, inputLines int, shown pane) layout {
	l := layout{w: w, h: h}
	w, h = max(w, 0), max(h, 0)
	inH := min(inputLines+2, max(0, h-2))
	l.status = rect{0, h - 1, w, min(1, h)}
	l.panes[paneInput] = rect{0, max(0, h-1-inH), w, inH}
	l.msg = rect{0, max(0, h-2-inH), w, min(1, max(0, h-1-inH))}
	bodyH := max(0, h-2-inH)
	switch {
	case w >= 160:
		l.mode = layoutWide
		tw := w * 9 / 25
		lw := (w - tw) * 3 / 10
		tlw := (w - tw) * 3 / 10
		cw := w - tw - lw - tlw
		l.panes[paneTranscript] = rect{0, 0, tw, bodyH}
		l.panes[paneLRU] = rect{tw, 0, lw, bodyH}
		l.panes[paneContext] = rect{tw + lw, 0, cw, bodyH}
		l.panes[paneTools] = rect{tw + lw + cw, 0, tlw, bodyH}
	case w >= 100:
		l.mode = layoutMedium
		tw := w * 3 / 5
		sw := w - tw
		a := bodyH / 3
		b := bodyH / 3
		c := bodyH - a - b
		l.panes[paneTranscript] = rect{0, 0, tw, bodyH}
		l.panes[paneLRU] = rect{tw, 0, sw, a}
		l.panes[paneContext] = rect{tw, a, sw, c}
		l.panes[paneTools] = rect{tw, a + c, sw, b}
	default:
		l.mode = layoutNarrow
		l.tabs = rect{0, 0, w, min(1, bodyH)}
		if shown == paneInput {
			shown = paneTranscript
		}
		l.panes[shown] = rect{0, l.tabs.h, w, max(0, bodyH-l.tabs.h)}
	}
	return l
}

// zoomed gives pane p the whole body and hides the others.
func (l layout) zoomed(p pane) layout {
	if p == paneInput || p >= numPanes {
		return l
	}
	in := l.panes[paneInput]
	l.mode = layoutZoom
	l.tabs = rect{}
	l.panes = [numPanes]rect{}
	l.panes[paneInput] = in
	l.panes[p] = rect{0, 0, l.w, max(0, l.msg.y)}
	return l
}

// paneAt is the pane under a screen cell, if any.
func (l layout) paneAt(x, y int) (pane, bool) {
	for p := pane(0); p < numPanes; p++ {
		if l.panes[p].contains(x, y) {
			return p, true
		}
	}
	return 0, false
}

// tabAt is the pane whose tab is under column x of the tab bar.
func tabAt(x int) (pane, bool) {
	col := 0
	for p := paneTranscript; p < numPanes; p++ {
		w := len(p.shortTitle()) + 3
		if x >= col && x < col+w {
			return p, true
		}
		col += w
	}
	return 0, false
}
