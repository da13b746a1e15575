package skills

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir finds rel (such as "real-skills") in a shared/ folder beside
// one of the folders above the package, and returns it relative to the
// package; "" when there is none. The checkout may sit at any depth.
func sharedDir(t testing.TB, rel string) string {
	t.Helper()
	up := ".."
	for range 6 {
		p := filepath.Join(up, "shared", rel)
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			return p
		}
		up = filepath.Join(up, "..")
	}
	return ""
}
