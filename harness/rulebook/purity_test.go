package rulebook

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
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

// TestPurityDeps extends the purity check to everything the rule book
// pulls in: no package it depends on, however indirectly, may be a network
// client, a process runner or the shell. Parsing packages under net/ that
// open nothing (net/url, net/netip) are allowed.
func TestPurityDeps(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to list dependencies")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	allowedNet := map[string]bool{"net/url": true, "net/netip": true}
	bannedPrefix := []string{"net", "os/exec", "os/signal", "crypto/tls", "github.com/sashabaranov/go-openai",
		"skillet/harness/llm", "skillet/harness/tools", "skillet/harness/sandbox", "skillet/ui"}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed only %v", deps)
	}
	for _, d := range deps {
		if d == "skillet/harness" {
			t.Errorf("the rule book depends on the shell (skillet/harness)")
		}
		if allowedNet[d] {
			continue
		}
		for _, p := range bannedPrefix {
			if d == p || strings.HasPrefix(d, p+"/") {
				t.Errorf("the rule book depends on %s: its dependencies hold no client, network or process package", d)
			}
		}
	}
}
