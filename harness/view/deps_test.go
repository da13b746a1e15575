package view

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// deps lists what pkg depends on, however indirectly, with the go tool.
// The source files of the module's packages among them are looked at, so
// a cached pass of the test goes stale when one of them changes.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to list dependencies")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var list []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, rest, _ := strings.Cut(line, "\t")
		dir, files, _ := strings.Cut(rest, "\t")
		list = append(list, path)
		if strings.HasPrefix(path, "skillet/") || path == "skillet" {
			_, _ = os.ReadDir(dir) // a file added there
			for _, f := range strings.Fields(files) {
				_, _ = os.Stat(filepath.Join(dir, f))
			}
		}
	}
	if len(list) < 10 || !slices.Contains(list, pkg) {
		t.Fatalf("go list -deps %s listed only %v", pkg, list)
	}
	return list
}

// TestReadModelsReachNoShell keeps the read models pure data over the
// fold and the journal: nothing they depend on runs a process, opens a
// connection or is the shell that does. Parsing packages under net/ that
// open nothing (net/url, net/netip) are allowed.
func TestReadModelsReachNoShell(t *testing.T) {
	allowedNet := map[string]bool{"net/url": true, "net/netip": true}
	banned := []string{"skillet/harness", "net", "os/exec", "os/signal", "crypto/tls",
		"skillet/harness/llm", "skillet/harness/tools", "skillet/harness/sandbox", "skillet/ui"}
	for _, d := range deps(t, "skillet/harness/view") {
		if allowedNet[d] {
			continue
		}
		for _, p := range banned {
			// the shell alone, not the packages inside its folder
			if d == p || (p != "skillet/harness" && strings.HasPrefix(d, p+"/")) {
				t.Errorf("the read models depend on %s", d)
			}
		}
	}
}

// TestUIDoesNotImportTheShell keeps the terminal UI typed in the event
// and read-model packages: the program's main hands it a session, and
// nothing the UI depends on, however indirectly, is skillet/harness.
func TestUIDoesNotImportTheShell(t *testing.T) {
	for _, d := range deps(t, "skillet/ui") {
		if d == "skillet/harness" {
			t.Fatal("skillet/ui depends on the shell (skillet/harness)")
		}
	}
}
