//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tmuxSession runs a command in a detached tmux server of its own.
type tmuxSession struct {
	t    *testing.T
	sock string
}

func newTmux(t *testing.T, dir, command string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install tmux): skipped")
	}
	s := &tmuxSession{t: t, sock: fmt.Sprintf("skillet-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	t.Cleanup(func() { exec.Command("tmux", "-L", s.sock, "kill-server").Run() })
	s.run("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "160", "-y", "48", "-c", dir, command+"; sleep 600")
	return s
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p", "-t", "t") }

// waitFor polls until cond holds, failing with the screen after a minute.
func (s *tmuxSession) waitFor(what string, cond func() bool) {
	s.t.Helper()
	for range 1200 {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("%s never happened; the screen:\n%s", what, s.screen())
}

func TestTUISignalsCancelTheTurnAndCloseTheJournal(t *testing.T) {
	bin := skilletBinary(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
		code string
	}{
		{syscall.SIGTERM, "SIGTERM", "143"},
		{syscall.SIGHUP, "SIGHUP", "129"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			srv, requests := stallingServer(t)
			env := strings.Join(procEnv(tmp, "OPENAI_API_KEY="+testAPIKey), " ")
			// a shell runs skillet, as in a terminal, and keeps its status
			statusFile := filepath.Join(tmp, "status")
			tm := newTmux(t, tmp, fmt.Sprintf("env -i %s %s --base-url %s/v1; echo $? > %s", env, bin, srv.URL, statusFile))
			tm.waitFor("the UI showing", func() bool { return strings.Contains(tm.screen(), "gpt-4o-mini") })
			tm.run("send-keys", "-t", "t", "-l", "hello")
			tm.run("send-keys", "-t", "t", "Enter")
			select {
			case <-requests:
			case <-time.After(60 * time.Second):
				t.Fatalf("no model request arrived; the screen:\n%s", tm.screen())
			}
			var shell int
			fmt.Sscan(tm.run("display-message", "-p", "-t", "t", "#{pane_pid}"), &shell)
			pid := childNamed(shell, "skillet")
			if pid == 0 {
				t.Fatalf("no skillet process under the pane's shell %d", shell)
			}
			syscall.Kill(pid, tc.sig)
			status := ""
			tm.waitFor("skillet exiting", func() bool {
				b, err := os.ReadFile(statusFile)
				status = strings.TrimSpace(string(b))
				return err == nil && status != ""
			})
			if status != tc.code {
				t.Errorf("exit status %s, want %s; the screen:\n%s", status, tc.code, tm.screen())
			}
			if got := lastTurnEnd(journalEvents(t, tmp)); got != "cancelled" {
				t.Fatalf("the journal's last turn ended %q, want cancelled", got)
			}
		})
	}
}

// childNamed finds the process named name among pid's children and their
// children (env execs it, a shell may fork first).
func childNamed(pid int, name string) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, f := range strings.Fields(string(b)) {
		var child int
		fmt.Sscan(f, &child)
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", child)); strings.TrimSpace(string(comm)) == name {
			return child
		}
		if found := childNamed(child, name); found != 0 {
			return found
		}
	}
	return 0
}
