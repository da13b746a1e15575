package ui

import (
	"fmt"
	"skillet/harness/termtext"
	"strings"
)

// pager shows a long text (a 1 MB tool result, a model request) a screen at
// a time. Lines are wrapped only when they come into view, so opening and
// scrolling cost the visible part, not the whole text.
type pager struct {
	lines []string
	// top is the first visible line and sub the first visible row of it
	// once wrapped.
	top, sub int
	w        int
	rows     map[int][]string
	// atEnd is set by view when the last line's last row is on screen.
	atEnd bool
}

func newPager(text string) *pager {
	return &pager{lines: strings.Split(termtext.Sanitize(text), "\n"), rows: map[int][]string{}}
}

// wrapped is line i broken into rows at the current width.
func (p *pager) wrapped(i int) []string {
	if r, ok := p.rows[i]; ok {
		return r
	}
	if len(p.rows) > 4096 { // forget rows far from view on long scrolls
		clear(p.rows)
	}
	r := termtext.Wrap(p.lines[i], p.w)
	p.rows[i] = r
	return r
}

func (p *pager) setWidth(w int) {
	if w != p.w {
		p.w = w
		clear(p.rows)
		p.sub = 0
	}
}

// view draws h rows at width w.
func (p *pager) view(w, h int) []string {
	p.setWidth(w)
	p.clampEnd(h)
	out := make([]string, 0, h)
	p.atEnd = false
	for i, sub := p.top, p.sub; i < len(p.lines) && len(out) < h; i, sub = i+1, 0 {
		r := p.wrapped(i)
		for j, l := range r[min(sub, len(r)):] {
			if len(out) == h {
				break
			}
			out = append(out, l)
			if i == len(p.lines)-1 && min(sub, len(r))+j == len(r)-1 {
				p.atEnd = true
			}
		}
	}
	return out
}

// down scrolls n rows towards the end (n < 0 scrolls up).
func (p *pager) down(n, h int) {
	for ; n > 0; n-- {
		if p.sub+1 < len(p.wrapped(p.top)) {
			p.sub++
		} else if p.top+1 < len(p.lines) {
			p.top, p.sub = p.top+1, 0
		} else {
			break
		}
	}
	for ; n < 0; n++ {
		if p.sub > 0 {
			p.sub--
		} else if p.top > 0 {
			p.top--
			p.sub = len(p.wrapped(p.top)) - 1
		} else {
			break
		}
	}
	p.clampEnd(h)
}

// clampEnd keeps the last screen full: never scrolled past the end. It
// wraps at most a screen of lines, from the end.
func (p *pager) clampEnd(h int) {
	need := h
	for i := len(p.lines) - 1; i >= 0; i-- {
		r := len(p.wrapped(i))
		if r >= need {
			lastTop, lastSub := i, r-need
			if p.top > lastTop || (p.top == lastTop && p.sub > lastSub) {
				p.top, p.sub = lastTop, lastSub
			}
			return
		}
		need -= r
	}
	p.top, p.sub = 0, 0
}

func (p *pager) home() { p.top, p.sub = 0, 0 }

func (p *pager) end(h int) {
	p.top, p.sub = len(p.lines), 0
	p.clampEnd(h)
}

// footer says where the view is, by line.
func (p *pager) footer() string {
	n := len(p.lines)
	if n <= 1 {
		return ""
	}
	pct := p.top * 100 / n
	if p.atEnd {
		pct = 100
	}
	return fmt.Sprintf("line %d/%d · %d%%", p.top+1, n, pct)
}
