//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"skillet/harness/harnesstest"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests run the real skillet binary with tools that leave processes
// behind, and check through /proc that none outlives its run, even when
// skillet itself is killed with -9.

// selfPid is shell text that sets p to the shell's pid as the machine
// numbers it: a tool's $$ is its PID namespace's.
const selfPid = `read -r p _ < /proc/self/stat; `

// toolPids waits (boundedly) until path holds n pids, one a line, and
// returns them; each is killed when the test ends, whatever happened. cmd
// is killed if they never come.
func toolPids(t *testing.T, path string, n int, cmd *exec.Cmd, stderr *strings.Builder) []int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if f := strings.Fields(string(b)); len(f) >= n {
			var out []int
			for _, s := range f[:n] {
				pid, err := strconv.Atoi(s)
				if err != nil {
					t.Fatalf("not a pid in %s: %q", path, s)
				}
				out = append(out, pid)
				harnesstest.KillAtEnd(t, pid)
			}
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tool never wrote %d pids to %s (%q):\n%s", n, path, b, stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startSkillet starts the binary with args in tmp, as an unprivileged user
// when nobody is set and the tests run as root; it is killed when the test
// ends if it is still running. exited is closed once it has ended.
func startSkillet(t *testing.T, tmp string, nobody bool, args ...string) (cmd *exec.Cmd, stderr *strings.Builder, exited chan struct{}) {
	t.Helper()
	cmd = exec.Command(skilletBinary(t), args...)
	cmd.Env, cmd.Dir = procEnv(tmp), tmp
	if nobody {
		asNobody(t, cmd, tmp)
	}
	stderr = &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited = make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	return cmd, stderr, exited
}

// A daemon that leaves its tool at once, in a session of its own with an
// emptied environment, ends with the tool, before skillet exits.
func TestBinaryEndsAQuickCleanDaemonWithItsTool(t *testing.T) {
	tmp := t.TempDir()
	pidFile := filepath.Join(tmp, "pids")
	boomSkills(t, filepath.Join(tmp, "skills"),
		"setsid env -i /bin/sh -c '"+selfPid+"echo $p >> "+pidFile+"; exec sleep 300' </dev/null >/dev/null 2>&1 &\n"+
			"while [ ! -s "+pidFile+" ]; do :; done\necho started")
	cmd, stderr, exited := startSkillet(t, tmp, false, "run", "--offline", "--skills", filepath.Join(tmp, "skills"), "--approve", "boom", "load boomer", "call boom {}")
	pids := toolPids(t, pidFile, 1, cmd, stderr)
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("skillet did not exit:\n%s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d:\n%s", code, stderr.String())
	}
	harnesstest.WaitGone(t, "a setsid env -i daemon after its tool and skillet ended", pids)
}

// kill -9 of skillet mid-call leaves none of the tool's processes running:
// not the tool, nor its child, nor the daemon it left. Run by root the
// tool gets a PID namespace alone; by another user, a user namespace too.
func TestBinaryKill9EndsTheToolsProcesses(t *testing.T) {
	for _, user := range []string{"same user", "unprivileged user"} {
		t.Run(user, func(t *testing.T) {
			if user == "unprivileged user" && os.Geteuid() != 0 {
				t.Skip("the tests do not run as root: the first case is the unprivileged one")
			}
			tmp := t.TempDir()
			pidFile := filepath.Join(tmp, "pids")
			boomSkills(t, filepath.Join(tmp, "skills"),
				"setsid env -i /bin/sh -c '"+selfPid+"echo $p >> "+pidFile+"; exec sleep 301' </dev/null >/dev/null 2>&1 &\n"+
					"/bin/sh -c '"+selfPid+"echo $p >> "+pidFile+"; exec sleep 302' &\n"+
					"while [ \"$(wc -l < "+pidFile+")\" -lt 2 ]; do sleep 0.01; done\n"+
					selfPid+"echo $p >> "+pidFile+"\nexec sleep 303")
			args := []string{"run", "--offline", "--skills", filepath.Join(tmp, "skills"), "--approve", "boom", "load boomer", "call boom {}"}
			cmd, stderr, _ := startSkillet(t, tmp, user == "unprivileged user", args...)
			pids := toolPids(t, pidFile, 3, cmd, stderr)
			cmd.Process.Signal(syscall.SIGKILL)
			harnesstest.WaitGone(t, "after kill -9 of skillet", pids)
		})
	}
}

// kill -9 of skillet while an MCP server answers a call takes the server
// down at once, not when the call would have ended: the server's call goes
// on for minutes when its client has gone.
func TestBinaryKill9EndsTheMCPServerMidCall(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	pidFile := filepath.Join(tmp, "mcp.pid")
	skills := filepath.Join(tmp, "skills")
	writeSkill(t, skills, "worker", "tools:\n  - name: srv/busy\n")
	cfg := filepath.Join(tmp, "skillet.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[mcp.servers.srv]\ncommand = %q\nenv = { %s = \"stdio\", %s = %q }\n",
		self, mcpServerMode, mcpPIDFile, pidFile)), 0o644)
	cmd, stderr, _ := startSkillet(t, tmp, false, "run", "--offline", "--config", cfg, "--skills", skills, "--approve", "srv__busy", "load worker", "call srv__busy {}")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(pidFile + ".called"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the MCP tool was never called:\n%s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	pids := toolPids(t, pidFile, 1, cmd, stderr)
	cmd.Process.Signal(syscall.SIGKILL)
	harnesstest.WaitGone(t, "the MCP server after kill -9 of skillet", pids)
}
