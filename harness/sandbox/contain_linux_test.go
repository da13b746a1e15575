package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"skillet/harness/harnesstest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runnerMode, set in the environment, makes the test binary run one
// command through a sandbox and block, so a test can kill it with -9.
const runnerMode = "SKILLET_SANDBOX_TEST_RUNNER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(runnerMode); mode != "" {
		os.Exit(runAndBlock(mode))
	}
	os.Exit(m.Run())
}

// runAndBlock runs SKILLET_SANDBOX_TEST_COMMAND confined or unconfined
// (mode) in SKILLET_SANDBOX_TEST_WS; the test kills it mid-command.
func runAndBlock(mode string) int {
	var s *Sandbox
	if mode == "confined" {
		var err error
		if s, err = New(Options{NoCgroup: true}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	} else {
		s = Unconfined(Options{NoCgroup: true})
	}
	_, err := s.Run(context.Background(), Spec{Command: os.Getenv("SKILLET_SANDBOX_TEST_COMMAND"), Workspace: os.Getenv("SKILLET_SANDBOX_TEST_WS"), Env: env()})
	fmt.Fprintln(os.Stderr, "the command ended before the runner was killed:", err)
	return 3
}

// leaveDaemons is a command that starts a daemon in a session of its own
// with an empty environment and a background child, each running "sleep
// marker", waits until both have written a line to lineFile, and then
// blocks, or ends once lineFile.go exists (letEnd does that).
func leaveDaemons(marker, lineFile string, block bool) string {
	self := `echo up >> ` + lineFile + `; exec sleep ` + marker
	cmd := `setsid env -i /bin/sh -c '` + self + `' < /dev/null > /dev/null 2>&1 &
/bin/sh -c '` + self + `' < /dev/null > /dev/null 2>&1 &
while [ "$(wc -l < ` + lineFile + ` 2>/dev/null)" != 2 ]; do sleep 0.01; done
`
	if block {
		return cmd + "sleep " + marker
	}
	return cmd + "while [ ! -e " + lineFile + ".go ]; do sleep 0.01; done; echo started"
}

// letEnd lets a leaveDaemons command end.
func letEnd(t *testing.T, lineFile string) {
	t.Helper()
	if err := os.WriteFile(lineFile+".go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitLines waits (boundedly) until path holds n lines.
func waitLines(t *testing.T, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Count(string(b), "\n") >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %d lines: %q", path, n, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// markedPids lists the live processes whose command line holds "sleep
// marker", as the machine numbers them; each is killed when the test
// ends, whatever happened.
func markedPids(t *testing.T, marker string) []int {
	t.Helper()
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), "sleep "+marker) || !harnesstest.KillAtEnd(t, pid) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

func testMarker() string {
	return fmt.Sprintf("%d.%d", 4000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
}

// Unconfined and without a cgroup, a daemon that leaves at once with an
// empty environment in a session of its own still ends with its command:
// the command's PID namespace goes when the command does.
func TestUnconfinedDaemonsEndWithoutCgroup(t *testing.T) {
	if !PIDNamespaces() {
		t.Skip("no PID namespace can be made here: a daemon that leaves its process group survives unconfined")
	}
	s := Unconfined(Options{NoCgroup: true})
	ws := t.TempDir()
	marker := testMarker()
	lineFile := filepath.Join(ws, "up")
	done := make(chan Result, 1)
	go func() {
		res, err := s.Run(context.Background(), Spec{Command: leaveDaemons(marker, lineFile, false), Workspace: ws, Env: env()})
		if err != nil {
			res.Stdout = []byte(err.Error())
		}
		done <- res
	}()
	waitLines(t, lineFile, 2)
	pids := markedPids(t, marker)
	letEnd(t, lineFile)
	res := <-done
	if string(res.Stdout) != "started\n" || res.ExitCode != 0 {
		t.Fatalf("daemons: %s", describe(res))
	}
	if len(pids) < 2 {
		t.Fatalf("found %d of the daemons running: the test proves nothing", len(pids))
	}
	harnesstest.WaitGone(t, "after the command ended", pids)

	// and the namespace does not change what the command sees of signals
	res = run(t, s, Spec{Command: `kill -TERM $$; echo not reached`, Workspace: ws})
	if res.Signal != "SIGTERM" || strings.Contains(string(res.Stdout), "not reached") {
		t.Errorf("a command that signals itself: %s", describe(res))
	}
}

// kill -9 of the process running a command takes the command and every
// process it started with it, confined (bwrap dies with its parent) or
// not (the PID namespace's init does).
func TestKill9OfTheCallerEndsTheCommand(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"unconfined", "confined"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "confined" {
				newSandbox(t)
			} else if !PIDNamespaces() {
				t.Skip("no PID namespace can be made here")
			}
			ws := t.TempDir()
			marker := testMarker()
			lineFile := filepath.Join(ws, "up")
			cmd := exec.Command(self, "-test.run=^$")
			cmd.Env = append(os.Environ(), runnerMode+"="+mode, "SKILLET_SANDBOX_TEST_WS="+ws,
				"SKILLET_SANDBOX_TEST_COMMAND="+leaveDaemons(marker, lineFile, true))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waited := false
			t.Cleanup(func() {
				if !waited {
					cmd.Process.Kill()
					cmd.Wait()
				}
			})
			waitLines(t, lineFile, 2)
			pids := markedPids(t, marker)
			if len(pids) < 2 {
				t.Fatalf("found %d of the command's processes running: the test proves nothing", len(pids))
			}
			cmd.Process.Kill()
			cmd.Wait()
			waited = true
			harnesstest.WaitGone(t, "after kill -9 of the caller", pids)
			if t.Failed() {
				t.Logf("runner said: %s", stderr.String())
			}
		})
	}
}

// Through unshare(1), as Skillet does when it is not root, a command's
// daemons end with it too, and its exit status comes through.
func TestUnshareModeEndsDaemons(t *testing.T) {
	path, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare program here")
	}
	how := namespaceMode{kind: "unshare", unshare: path}
	probe := exec.Command(path, append(unshareFlags, initShell, "-c", "exit 0")...)
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("unshare cannot make the namespaces here: %v %s", err, out)
	}
	ws := t.TempDir()
	marker := testMarker()
	lineFile := filepath.Join(ws, "up")
	cmd := exec.Command(initShell, "-c", leaveDaemons(marker, lineFile, false)+"; exit 3")
	cmd.Dir = ws
	if !containIn(cmd, "", how) {
		t.Fatal("not contained")
	}
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	waitLines(t, lineFile, 2)
	pids := markedPids(t, marker)
	if len(pids) < 2 {
		t.Fatalf("found %d of the daemons running: the test proves nothing", len(pids))
	}
	letEnd(t, lineFile)
	err = <-done
	done <- err
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("exit: %v, want exit status 3", err)
	}
	harnesstest.WaitGone(t, "after the command ended", pids)
}
