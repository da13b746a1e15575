package harness

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The layers as the go tool sees them, however indirectly one package
// depends on another: the shell on top, the packages under harness/ below
// it, the UI beside it typed in the event and view packages, and the rule
// book and the read models pure.

const shell = "skillet/harness"

// goPkg is one package as go list -deps reports it.
type goPkg struct{ imports, deps []string }

// listPackages lists the module's packages under harness/ and the UI with
// everything they depend on. The source files of the module's packages
// among them are looked at, so that a cached pass of these tests goes
// stale when one of them changes (the UI is not among the shell's own
// dependencies).
func listPackages(t *testing.T) map[string]goPkg {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to list dependencies")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f",
		"{{.ImportPath}}\t{{join .Imports \",\"}}\t{{join .Deps \",\"}}\t{{.Dir}}\t{{join .GoFiles \",\"}}", shell+"/...", "skillet/ui/...").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	pkgs := map[string]goPkg{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("go list printed %q", line)
		}
		pkgs[f[0]] = goPkg{imports: strings.Split(f[1], ","), deps: strings.Split(f[2], ",")}
		if strings.HasPrefix(f[0], "skillet/") {
			_, _ = os.ReadDir(f[3]) // a file added there
			for _, name := range strings.Split(f[4], ",") {
				_, _ = os.Stat(filepath.Join(f[3], name))
			}
		}
	}
	for _, p := range []string{shell, shell + "/rulebook", shell + "/view", "skillet/ui"} {
		if _, ok := pkgs[p]; !ok {
			t.Fatalf("go list did not list %s", p)
		}
	}
	return pkgs
}

// TestNoPackageUnderHarnessImportsTheShell keeps the layers apart: every
// package under skillet/harness/ (tests aside) is below the shell, so none
// may depend on skillet/harness. The shell wires them in (eval and bench
// get their sessions from a function the CLI builds).
func TestNoPackageUnderHarnessImportsTheShell(t *testing.T) {
	pkgs := listPackages(t)
	// through reports which of p's own imports brings in the shell
	through := func(p string) (string, bool) {
		for _, im := range pkgs[p].imports {
			if im == shell || slices.Contains(pkgs[im].deps, shell) {
				return im, true
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
		if via, ok := through(p); ok {
			t.Errorf("%s depends on the shell %s (through %s): packages under harness/ are below it", p, shell, via)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages under %s/ listed", checked, shell)
	}
}

// TestUIDoesNotImportTheShell keeps the terminal UI typed in the event
// and read-model packages: main hands it a session.
func TestUIDoesNotImportTheShell(t *testing.T) {
	for p, pk := range listPackages(t) {
		if (p == "skillet/ui" || strings.HasPrefix(p, "skillet/ui/")) && slices.Contains(pk.deps, shell) {
			t.Errorf("%s depends on the shell (%s)", p, shell)
		}
	}
}

// TestPureLayersReachNoIO keeps the rule book and the read models pure:
// nothing they depend on is a network client, runs a process or is the
// shell that does. Parsing packages under net/ that open nothing (net/url,
// net/netip) are allowed.
func TestPureLayersReachNoIO(t *testing.T) {
	allowedNet := map[string]bool{"net/url": true, "net/netip": true}
	banned := []string{"net", "os/exec", "os/signal", "crypto/tls", "github.com/sashabaranov/go-openai",
		"skillet/harness/llm", "skillet/harness/tools", "skillet/harness/sandbox", "skillet/ui"}
	pkgs := listPackages(t)
	for _, p := range []string{shell + "/rulebook", shell + "/view"} {
		for _, d := range pkgs[p].deps {
			if d == shell {
				t.Errorf("%s depends on the shell", p)
			}
			if allowedNet[d] {
				continue
			}
			for _, b := range banned {
				if d == b || strings.HasPrefix(d, b+"/") {
					t.Errorf("%s depends on %s: its dependencies hold no client, network or process package", p, d)
				}
			}
		}
	}
}
