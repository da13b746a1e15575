package harness

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The session's lock is taken in a few functions only (read and step hand
// out frames; the others start, reopen, close and mark the session busy):
// every other function of the shell decides from a frame or runs outside
// the lock. A new s.mu.Lock call fails this test unless it replaces one.
func TestFewFunctionsTakeTheLock(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var takers []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			takes := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Lock" {
					return true
				}
				if inner, ok := sel.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "mu" {
					if id, ok := inner.X.(*ast.Ident); ok && id.Name == "s" {
						takes = true
					}
				}
				return true
			})
			if takes {
				takers = append(takers, name+":"+fn.Name.Name)
			}
		}
	}
	sort.Strings(takers)
	if len(takers) == 0 || len(takers) > 10 {
		t.Fatalf("%d functions take the session's lock (want 1 to 10): %s", len(takers), strings.Join(takers, ", "))
	}
	t.Logf("functions that take the session's lock: %s", strings.Join(takers, ", "))
}

// A session keeps about a dozen fields: the state is the rule book's, what
// the shell knows of the world is grouped in world.
func TestSessionStaysSmall(t *testing.T) {
	if n := reflect.TypeOf(Session{}).NumField(); n > 15 {
		t.Fatalf("Session has %d fields, want at most 15", n)
	}
}
