package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tui is one skillet terminal UI running in a private tmux server.
type tui struct {
	t    *testing.T
	sock string
}

func startTUI(t *testing.T, dir string, args ...string) *tui {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	u := &tui{t: t, sock: filepath.Join(dir, fmt.Sprintf("tmux-%d", time.Now().UnixNano()))}
	cmd := fmt.Sprintf("cd %s && env HOME=%s XDG_CACHE_HOME=%s XDG_STATE_HOME=%s OPENAI_API_KEY= OPENAI_BASE_URL= %s %s; echo SKILLET-EXIT=$?; sleep 60",
		shellQuote(dir), shellQuote(dir), shellQuote(filepath.Join(dir, "cache")), shellQuote(filepath.Join(dir, "state")),
		shellQuote(skilletBinary(t)), strings.Join(args, " "))
	if out, err := exec.Command("tmux", "-S", u.sock, "new-session", "-d", "-s", "t", "-x", "160", "-y", "48", cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-S", u.sock, "kill-server").Run() })
	return u
}

func (u *tui) screen() string {
	out, _ := exec.Command("tmux", "-S", u.sock, "capture-pane", "-p", "-t", "t").Output()
	return string(out)
}

// waitFor polls the screen until text shows, failing after a generous
// limit (the machine may be busy; nothing here measures speed).
func (u *tui) waitFor(text string) {
	u.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(u.screen(), text) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	u.t.Fatalf("%q never showed; the screen was:\n%s", text, u.screen())
}

func (u *tui) keys(keys ...string) {
	exec.Command("tmux", append([]string{"-S", u.sock, "send-keys", "-t", "t"}, keys...)...).Run()
}

func (u *tui) send(text string) {
	exec.Command("tmux", "-S", u.sock, "send-keys", "-t", "t", "-l", "--", text).Run()
	u.keys("Enter")
}

func (u *tui) quit() {
	u.t.Helper()
	u.keys("C-c")
	u.keys("C-c")
	u.waitFor("SKILLET-EXIT=0")
}

func TestTUIRecordThenReplaySendsTheSameRequests(t *testing.T) {
	tmp := isolate(t)
	rec, again := filepath.Join(tmp, "rec.jsonl"), filepath.Join(tmp, "again.jsonl")

	u := startTUI(t, tmp, "--offline", "--record", shellQuote(rec))
	u.waitFor("Message the model")
	u.send("review account 4850")
	u.waitFor("get_account_activity")
	u.waitFor("[demo model]")
	u.quit()

	u = startTUI(t, tmp, "--replay", shellQuote(rec), "--typing", "--record", shellQuote(again))
	u.waitFor("⚠ replaying")
	u.send("review account 4850")
	u.waitFor("get_account_activity")
	u.waitFor("[demo model]")
	u.quit()
	sameRequests(t, openCassette(t, rec), openCassette(t, again))

	// a message the recording never saw: the error names the change
	u = startTUI(t, tmp, "--replay", shellQuote(rec))
	u.waitFor("Message the model")
	u.send("review account 4851")
	u.waitFor("request 1 differs from the recording")
	u.waitFor("+review account 4851")
	u.quit()
}
