package harnesstest

import (
	"fmt"
	"strings"
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
