package harnesstest

import (
	"os"
	"path/filepath"
)

// SharedPath finds shared/ELEMS... (the reference skills and corpus) in a
// folder above the test's package, "" when it is not there: the checkout
// may sit at any depth.
func SharedPath(elems ...string) string {
	dir, _ := filepath.Abs(".")
	for range 6 {
		p := filepath.Join(append([]string{dir, "shared"}, elems...)...)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		dir = filepath.Dir(dir)
	}
	return ""
}
