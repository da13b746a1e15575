package ui

import (
	"strings"
	"sync"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders messages with glamour. Renderers are made per wrap width
// and kept. A TermRenderer is not safe for concurrent use, so the program's
// goroutine has its own set and the streaming render (a command, in another
// goroutine) has a second set behind a mutex.
type markdown struct {
	style string
	fg    map[int]*glamour.TermRenderer

	mu sync.Mutex
	bg map[int]*glamour.TermRenderer
}

func newMarkdown(style string) *markdown {
	return &markdown{style: style, fg: map[int]*glamour.TermRenderer{}, bg: map[int]*glamour.TermRenderer{}}
}

// render draws text as Markdown in at most w columns; on the program's
// goroutine only.
func (md *markdown) render(text string, w int) []string {
	return renderWith(md.fg, md.style, text, w)
}

// renderAsync is render for commands running outside the program's
// goroutine.
func (md *markdown) renderAsync(style, text string, w int) []string {
	md.mu.Lock()
	defer md.mu.Unlock()
	if style != md.style {
		clear(md.bg)
	}
	return renderWith(md.bg, style, text, w)
}

// setStyle switches between "dark" and "light" (or any glamour standard
// style); callers drop their caches.
func (md *markdown) setStyle(style string) {
	md.style = style
	clear(md.fg)
}

func renderWith(rs map[int]*glamour.TermRenderer, style, text string, w int) []string {
	text = sanitize(text)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	ww := max(w, 8)
	r, ok := rs[ww]
	if !ok {
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(ww))
		if err != nil {
			return wrap(text, w)
		}
		rs[ww] = r
	}
	out, err := r.Render(text)
	if err != nil {
		return wrap(text, w)
	}
	return trimBlank(strings.Split(out, "\n"))
}

// trimBlank drops blank lines around glamour's output and spaces it pads
// lines with, so cached lines are small and pane borders stay in place.
func trimBlank(lines []string) []string {
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	isBlank := func(l string) bool { return strings.TrimSpace(ansi.Strip(l)) == "" }
	for len(lines) > 0 && isBlank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isBlank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}
