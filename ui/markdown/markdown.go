// Package markdown draws Markdown for the terminal with glamour: a whole
// message at a width, and a reply while it streams in, drawing each
// finished block once and equal, byte for byte, to a whole render.
package markdown

import (
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"

	"skillet/harness/termtext"
)

// Renderer renders messages with glamour, on one goroutine (a
// TermRenderer is not safe for concurrent use; a streaming reply has its
// own, see Stream). Renderers are made per wrap width and kept.
type Renderer struct {
	style string
	fg    map[int]*glamour.TermRenderer
	// next drew a reply as it streamed in; see Continue.
	next *Stream
}

// New is a Renderer in a glamour standard style ("dark", "light").
func New(style string) *Renderer {
	return &Renderer{style: style, fg: map[int]*glamour.TermRenderer{}}
}

// Render draws text as Markdown in at most w columns: sanitized, trimmed
// of blank lines at both ends; nil when it is blank.
func (md *Renderer) Render(text string, w int) []string {
	if s := md.next; s != nil && s.extendedBy(text) {
		md.next = nil
		return s.Render(md.style, text, w)
	}
	return renderWith(md.fg, md.style, text, w)
}

// Continue hands over a stream that drew a reply as it came in, for when
// the whole reply is drawn as a message: the next Render of a text that
// extends the stream's draws it with the stream, which draws again only
// its open tail (a whole render of a long reply costs as much as all the
// chunks of its stream). The result is a whole render's, byte for byte. A
// render of the stream still running elsewhere finishes first. One stream
// is kept, until it draws or another takes its place.
func (md *Renderer) Continue(s *Stream) { md.next = s }

// Style is the style the renderer draws in.
func (md *Renderer) Style() string { return md.style }

// SetStyle switches between "dark" and "light" (or any glamour standard
// style); callers drop what they cached.
func (md *Renderer) SetStyle(style string) {
	md.style = style
	clear(md.fg)
}

func renderWith(rs map[int]*glamour.TermRenderer, style, text string, w int) []string {
	text = termtext.Sanitize(text)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	ww := max(w, 8)
	r, ok := rs[ww]
	if !ok {
		var err error
		if r, err = newRenderer(style, ww); err != nil {
			return termtext.Wrap(text, w)
		}
		rs[ww] = r
	}
	return renderWhole(r, text, w)
}

// newRenderer is a glamour renderer for a style at wrap width ww.
//
// Code is highlighted in 24-bit colour, which the terminal's colour
// profile brings down where needed. Chroma's 256-colour formatter picks
// among equally close palette entries in map order, so the same code
// block came out in different colours from one render to the next.
func newRenderer(style string, ww int) (*glamour.TermRenderer, error) {
	return glamour.NewTermRenderer(glamour.WithStyles(styleConfig(style)), glamour.WithWordWrap(ww), glamour.WithChromaFormatter("terminal16m"))
}

// renderWhole draws sanitized text with r; the fallback for an error is
// the text wrapped plain at w.
func renderWhole(r *glamour.TermRenderer, text string, w int) []string {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	out, err := r.Render(text)
	if err != nil {
		return termtext.Wrap(text, w)
	}
	return trimBlank(strings.Split(out, "\n"))
}

// styleConfig is a glamour standard style with a block quote bar one
// column wide. Glamour counts the bar as one column of indent, so its
// standard two-column "│ " pushed quoted lines one column past the wrap
// width, and the overflow came out as a lone word without the bar.
func styleConfig(name string) gansi.StyleConfig {
	base, ok := styles.DefaultStyles[name]
	if !ok {
		base = styles.DefaultStyles["dark"]
	}
	st := *base
	if tok := st.BlockQuote.IndentToken; tok != nil {
		bar := strings.TrimRight(*tok, " ")
		if bar == "│" {
			bar = "▎" // drawn at the cell's left edge, so the text keeps its gap
		}
		if ansi.StringWidth(bar) == 1 {
			st.BlockQuote.IndentToken = &bar
		}
	}
	return st
}

// trimBlank drops blank lines around glamour's output and spaces it pads
// lines with, so cached lines are small and pane borders stay in place.
func trimBlank(lines []string) []string {
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return trimBlankEnds(lines)
}

// trimBlankEnds drops the blank lines (spaces and styles only) at both
// ends.
func trimBlankEnds(lines []string) []string {
	for len(lines) > 0 && isBlankLine(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && isBlankLine(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func isBlankLine(l string) bool { return strings.TrimSpace(ansi.Strip(l)) == "" }
