// Code in this file measures, cuts, wraps and cleans text for drawing in
// terminal cells: widths (escape codes aside, wide CJK and emoji counted
// as they draw), lines fitted or wrapped to a width, and text from outside
// made safe to draw in a pane (Sanitize; Plain is for text printed or
// exported whole).

package termtext

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// Reset ends every style, so what follows a cut line draws plain.
const Reset = "\x1b[0m"

// Width is the number of terminal columns s takes, escape codes aside.
func Width(s string) int { return ansi.StringWidth(s) }

// Fit cuts s to w columns and pads it with spaces to exactly w, so joined
// panes line up whatever the text (wide CJK, emoji, escape codes).
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := Width(s)
	if sw > w {
		s = ansi.Truncate(s, w, "")
		sw = Width(s)
		s += Reset
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// Clip cuts s to at most w columns with an ellipsis.
func Clip(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…") + Reset
}

// nbHyphen stands in for "-" while a line is wrapped: one column wide, and
// not a place to break.
const nbHyphen = "\u2011"

// Wrap breaks s (which may hold escape codes) into lines of at most w
// columns, breaking words — never at a hyphen — only when they do not fit.
func Wrap(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for _, line := range strings.Split(s, "\n") {
		if Width(line) <= w {
			out = append(out, line)
			continue
		}
		// ansi.Wrap breaks after a hyphen: names like account-review
		// would be cut in two, so hyphens are hidden from it
		hide := strings.Contains(line, "-") && !strings.Contains(line, nbHyphen)
		if hide {
			line = strings.ReplaceAll(line, "-", nbHyphen)
		}
		for _, l := range strings.Split(ansi.Wrap(line, w, ""), "\n") {
			if hide {
				l = strings.ReplaceAll(l, nbHyphen, "-")
			}
			if Width(l) > w { // a grapheme wider than the pane
				l = ansi.Truncate(l, w, "")
			}
			out = append(out, l)
		}
	}
	return out
}

// Sanitize makes text from outside (model replies, tool output, files) safe
// to draw: escape sequences and control characters removed, tabs expanded,
// carriage returns dropped. Without this one stray ESC garbles every pane.
func Sanitize(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n') || c == 0x7f {
			clean = false
			break
		}
	}
	if clean && !strings.Contains(s, "\u009b") {
		return s
	}
	s = ansi.Strip(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case r == '\n':
			b.WriteRune(r)
		case unicode.IsControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
