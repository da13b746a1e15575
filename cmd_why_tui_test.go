package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The /why card in the terminal UI shows the record `skillet why` prints,
// for the live session, in a real terminal (tmux).
func TestWhyCardInTheTerminalUI(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install -y tmux)")
	}
	tmp := isolate(t)
	root := fruitSkills(t, tmp)
	bin := skilletBinary(t)
	sock := fmt.Sprintf("skillet-why-%d", os.Getpid())
	tmux := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	env := []string{"HOME=" + tmp, "XDG_STATE_HOME=" + filepath.Join(tmp, "state"), "XDG_CACHE_HOME=" + filepath.Join(tmp, "cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(tmp, "config"), "OPENAI_API_KEY=", "TERM=xterm-256color"}
	tmux("new-session", "-d", "-s", "why", "-x", "180", "-y", "50", "env "+strings.Join(env, " ")+" "+bin+" --skills "+root)
	t.Cleanup(func() { exec.Command("tmux", "-L", sock, "kill-server").Run() })
	screen := func() string { return tmux("capture-pane", "-p", "-t", "why") }
	waitFor := func(what string) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			s := screen()
			if strings.Contains(s, what) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("the screen never showed %q:\n%s", what, s)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("alpha")
	tmux("send-keys", "-t", "why", "-l", "load beta")
	tmux("send-keys", "-t", "why", "Enter")
	waitFor("[demo model]")
	tmux("send-keys", "-t", "why", "-l", "/why gamma")
	tmux("send-keys", "-t", "why", "Enter")
	s := waitFor("gamma: offered at rank")
	for _, w := range []string{"the model loaded beta instead", "status:", "cost in tokens"} {
		if !strings.Contains(s, w) {
			t.Errorf("the card lacks %q:\n%s", w, s)
		}
	}
}
