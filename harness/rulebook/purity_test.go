package rulebook

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPurity keeps the core deterministic: no file of the package (tests
// aside) may import I/O, locking, contexts, the network or the shell, nor
// read the clock.
func TestPurity(t *testing.T) {
	banned := map[string]bool{"os": true, "os/exec": true, "sync": true, "context": true, "net": true, "net/http": true,
		"skillet/harness": true, "skillet/harness/tools": true, "skillet/harness/llm": true, "skillet/harness/demo": true, "skillet/ui": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		checked++
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if banned[p] || strings.HasPrefix(p, "net/") {
				t.Errorf("%s imports %s: the rule book does no I/O, locking or networking", f, p)
			}
		}
		if strings.Contains(string(src), "time.Now") || strings.Contains(string(src), "time.Since") {
			t.Errorf("%s reads the clock: time arrives inside events", f)
		}
	}
	if checked == 0 {
		t.Fatal("no source files checked")
	}
}
