package harnesstest

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// FirstDiff names the first line two texts differ at, for a test's
// failure message.
func FirstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d\nwant: %q\ngot:  %q", i+1, wl, gl)
		}
	}
	return "same lines, different endings"
}

// FirstLineDiff names the first line two drawings differ at, escapes
// shown and stripped, for a test's failure message; "" when they are the
// same. an and bn name the two drawings.
func FirstLineDiff(an, bn string, a, b []string) string {
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("line %d of %d/%d:\n %s %q\n %s %q\n visible %q | %q", i, len(a), len(b), an, x, bn, y, ansi.Strip(x), ansi.Strip(y))
		}
	}
	return ""
}
