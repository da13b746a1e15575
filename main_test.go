package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// binDir holds the skillet binary the tests that need a real process
// build, once per test run.
var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binError error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// skilletBinary builds the skillet binary (once) and returns its path.
func skilletBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binError = os.MkdirTemp("", "skillet-bin-")
		if binError != nil {
			return
		}
		// readable by every user: a test runs it as another one
		os.Chmod(binDir, 0o755)
		binPath = filepath.Join(binDir, "skillet")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binError = &buildError{out: string(out), err: err}
		}
	})
	if binError != nil {
		t.Fatalf("build skillet: %v", binError)
	}
	return binPath
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }
