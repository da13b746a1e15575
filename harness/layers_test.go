package harness

import (
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestNoPackageUnderHarnessImportsTheShell keeps the layers apart: every
// package under skillet/harness/ (tests aside) is below the shell, so none
// may depend on skillet/harness, however indirectly. The shell wires them
// in (eval and bench get their sessions from a function the CLI builds).
func TestNoPackageUnderHarnessImportsTheShell(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to list dependencies")
	}
	const shell = "skillet/harness"
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \",\"}} {{join .Deps \",\"}}", shell+"/...").Output()
	if err != nil {
		t.Fatalf("go list -deps %s/...: %v", shell, err)
	}
	type pkg struct{ imports, deps []string }
	pkgs := map[string]pkg{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, " ")
		if len(f) != 3 {
			t.Fatalf("go list printed %q", line)
		}
		pkgs[f[0]] = pkg{imports: strings.Split(f[1], ","), deps: strings.Split(f[2], ",")}
	}
	// dependsOnShell reports whether p needs the shell, and through which
	// of its own imports.
	dependsOnShell := func(p string) (string, bool) {
		for _, im := range pkgs[p].imports {
			if im == shell {
				return im, true
			}
		}
		for _, im := range pkgs[p].imports {
			for _, d := range pkgs[im].deps {
				if d == shell {
					return im, true
				}
			}
		}
		return "", false
	}
	checked := 0
	for _, p := range slices.Sorted(maps.Keys(pkgs)) {
		if !strings.HasPrefix(p, shell+"/") {
			continue
		}
		checked++
		if via, ok := dependsOnShell(p); ok {
			t.Errorf("%s depends on the shell %s (through %s): packages under harness/ are below it", p, shell, via)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages under %s/ listed", checked, shell)
	}
}
