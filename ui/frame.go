package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"skillet/harness/termtext"
)

// border pieces: rounded for a pane, thick for the focused one.
type borderSet struct{ tl, tr, bl, br, h, v string }

var (
	roundBorder = borderSet{"╭", "╮", "╰", "╯", "─", "│"}
	thickBorder = borderSet{"┏", "┓", "┗", "┛", "━", "┃"}
)

// box draws lines inside a border of exactly w×h cells with a title in the
// top edge and an optional footer (a scroll position) in the bottom edge.
// Lines are cut and padded to the inner width; extra lines are dropped.
func box(th *theme, title string, lines []string, w, h int, focused bool, footer string) []string {
	if w <= 0 || h <= 0 {
		return nil
	}
	if w < 2 || h < 2 {
		out := make([]string, h)
		for i := range out {
			out[i] = termtext.Fit("", w)
		}
		return out
	}
	b, bs, ts := roundBorder, th.border, th.title
	if focused {
		b, bs, ts = thickBorder, th.borderFocus, th.titleFocus
	}
	inner := w - 2
	out := make([]string, 0, h)

	if title != "" && inner >= 5 {
		t := termtext.Clip(title, inner-3)
		rest := inner - 3 - termtext.Width(t)
		out = append(out, bs.Render(b.tl+b.h)+ts.Render(" "+t+" ")+bs.Render(strings.Repeat(b.h, max(0, rest))+b.tr))
	} else {
		out = append(out, bs.Render(b.tl+strings.Repeat(b.h, inner)+b.tr))
	}

	side := bs.Render(b.v)
	for i := 0; i < h-2; i++ {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		out = append(out, side+termtext.Fit(l, inner)+termtext.Reset+side)
	}

	bottom := strings.Repeat(b.h, inner)
	if footer != "" && inner >= 4 {
		f := termtext.Clip(footer, inner-3)
		bottom = bs.Render(strings.Repeat(b.h, inner-3-termtext.Width(f))) + th.footer.Render(" "+f+" ") + bs.Render(b.h)
		out = append(out, bs.Render(b.bl)+bottom+bs.Render(b.br))
	} else {
		out = append(out, bs.Render(b.bl+bottom+b.br))
	}
	return out
}

// place draws fg over bg with fg's top-left corner at (x, y); bg lines are
// w columns wide and stay so.
func place(bg, fg []string, x, y, w int) []string {
	out := append([]string(nil), bg...)
	for i, l := range fg {
		row := y + i
		if row < 0 || row >= len(out) {
			continue
		}
		fw := termtext.Width(l)
		if x+fw > w {
			l = ansi.Truncate(l, max(0, w-x), "")
			fw = termtext.Width(l)
		}
		base := out[row]
		left := termtext.Fit(ansi.Truncate(base, x, ""), x)
		right := ansi.TruncateLeft(base, x+fw, "")
		out[row] = termtext.Fit(left+termtext.Reset+l+termtext.Reset+right, w)
	}
	return out
}

// cover draws a dialog over bg so that nothing of what is under it shows
// at its edges: a blank cell frames it, what stays visible around it is
// drawn in dim (when dim is given), and a dialog that takes most of the
// screen gets a blank backdrop. The status bar, the last line, stays.
func cover(bg, fg []string, x, y, w int, dim func(string) string) []string {
	if len(fg) == 0 {
		return bg
	}
	fw := 0
	for _, l := range fg {
		fw = max(fw, termtext.Width(l))
	}
	out := append([]string(nil), bg...)
	if 10*fw*len(fg) >= 7*w*len(bg) {
		for i := 0; i < len(out)-1; i++ {
			out[i] = termtext.Fit("", w)
		}
		return place(out, fg, x, y, w)
	}
	left, right := min(1, x), min(1, max(0, w-x-fw))
	if dim != nil {
		top := max(0, y-1)
		for i := 0; i < len(out)-1; i++ {
			if i >= top && i <= y+len(fg) {
				// a word the dialog cuts in two would show a stray
				// letter or two beside it
				out[i] = dropCutWords(ansi.Strip(out[i]), x-left, x+fw+right)
			}
			out[i] = dim(out[i])
		}
	}
	blank := strings.Repeat(" ", left+fw+right)
	framed := make([]string, 0, len(fg)+2)
	if y > 0 {
		framed = append(framed, blank)
	}
	for _, l := range fg {
		framed = append(framed, strings.Repeat(" ", left)+termtext.Fit(l, fw)+strings.Repeat(" ", right))
	}
	if y+len(fg) < len(bg) {
		framed = append(framed, blank)
	}
	top := y
	if y > 0 {
		top--
	}
	return place(out, framed, x-left, top, w)
}

// dropCutWords blanks what is left of the words that columns [from, to)
// of a plain line cut in two, so only whole words show around a dialog.
// Box-drawing characters are not words: a pane's border stays.
func dropCutWords(line string, from, to int) string {
	w := termtext.Width(line)
	from, to = max(0, min(from, w)), max(0, min(to, w))
	if from >= to {
		return line
	}
	isWord := func(r rune) bool { return r != ' ' && (r < 0x2500 || r > 0x259f) }
	blankEnd := func(s string, fromEnd bool) string {
		rs := []rune(s)
		if fromEnd {
			for i := len(rs) - 1; i >= 0 && isWord(rs[i]); i-- {
				rs[i] = ' '
			}
		} else {
			for i := 0; i < len(rs) && isWord(rs[i]); i++ {
				rs[i] = ' '
			}
		}
		return string(rs)
	}
	before, under, after := ansi.Truncate(line, from, ""), ansi.Cut(line, from, to), ansi.TruncateLeft(line, to, "")
	if u := []rune(under); len(u) > 0 {
		if isWord(u[0]) {
			before = blankEnd(before, true)
		}
		if isWord(u[len(u)-1]) {
			after = blankEnd(after, false)
		}
	}
	return termtext.Fit(before, from) + under + after
}

// hjoin puts equally tall columns of lines side by side.
func hjoin(cols ...[]string) []string {
	if len(cols) == 0 {
		return nil
	}
	h := 0
	for _, c := range cols {
		h = max(h, len(c))
	}
	out := make([]string, h)
	var b strings.Builder
	for i := range out {
		b.Reset()
		for _, c := range cols {
			if i < len(c) {
				b.WriteString(c[i])
			}
		}
		out[i] = b.String()
	}
	return out
}

// style renders s with st unless s is empty, which keeps empty lines free of
// escape codes.
func style(st lipgloss.Style, s string) string {
	if s == "" {
		return s
	}
	return st.Render(s)
}
