package harnesstest

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// FirstDiff names the first line two texts differ at, for a test's
// failure message.
func FirstDiff(want, got string) string {
	i, wl, gl, ok := firstDiffering(strings.Split(want, "\n"), strings.Split(got, "\n"))
	if !ok {
		return "same lines, different endings"
	}
	return fmt.Sprintf("line %d\nwant: %q\ngot:  %q", i+1, wl, gl)
}

// FirstLineDiff names the first line two drawings differ at, escapes
// shown and stripped, for a test's failure message; "" when they are the
// same. an and bn name the two drawings.
func FirstLineDiff(an, bn string, a, b []string) string {
	i, x, y, ok := firstDiffering(a, b)
	if !ok {
		return ""
	}
	return fmt.Sprintf("line %d of %d/%d:\n %s %q\n %s %q\n visible %q | %q", i, len(a), len(b), an, x, bn, y, ansi.Strip(x), ansi.Strip(y))
}

// firstDiffering is the first index where a and b hold different lines
// (a missing line reads as ""), with the two lines.
func firstDiffering(a, b []string) (i int, x, y string, ok bool) {
	for i = 0; i < max(len(a), len(b)); i++ {
		x, y = "", ""
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return i, x, y, true
		}
	}
	return 0, "", "", false
}
