//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Reopening a long session in the terminal UI, with the real binary in
// tmux: the first frame says how far the journal has been read, a message
// typed meanwhile is sent once the session is open, and a session that
// cannot be reopened ends the program with its error.

// longSession runs turns headless with the demo model and returns the
// sessions folder and the session's ID.
func longSession(t *testing.T, bin, tmp string, turns int) (dir, id string) {
	t.Helper()
	var msgs strings.Builder
	for i := range turns {
		fmt.Fprintf(&msgs, "get account activity for ACC-%d\n", 1000+i)
	}
	dir = filepath.Join(tmp, "sessions")
	cmd := exec.Command(bin, "run", "--offline", "--session-dir", dir, "-")
	cmd.Dir, cmd.Env, cmd.Stdin = tmp, procEnv(tmp), strings.NewReader(msgs.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("skillet run: %v\n%s", err, out)
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 1 {
		t.Fatalf("want one session in %s: %v %v", dir, ents, err)
	}
	return dir, ents[0].Name()
}

var reopeningStatus = regexp.MustCompile(`reopening the session: (\d+ %|folding)`)

func TestTUIResumeShowsProgressThenTheTranscript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a session of about 3,000 messages: skipped with -short")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install tmux): skipped")
	}
	bin := skilletBinary(t)
	tmp := t.TempDir()
	const turns = 700
	dir, id := longSession(t, bin, tmp, turns)
	env := strings.Join(procEnv(tmp), " ")
	// the progress of folding the whole journal: from the fold stored as
	// the session closed, reopening is too quick to show any
	if err := os.Remove(filepath.Join(dir, id, "fold.snapshot")); err != nil {
		t.Fatalf("skillet run stored no snapshot of the fold: %v", err)
	}

	t.Run("progress, then the transcript and the queued message", func(t *testing.T) {
		tm := newTmux(t, tmp, fmt.Sprintf("env -i %s %s --offline --session-dir %s --resume %s", env, bin, dir, id))
		// the progress line lasts as long as the read: poll faster than
		// waitFor does
		var progress string
		for deadline := time.Now().Add(time.Minute); progress == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			scr := tm.screen()
			if strings.Contains(scr, fmt.Sprintf("turn %d", turns)) {
				t.Fatalf("the transcript showed before any progress line:\n%s", scr)
			}
			if reopeningStatus.MatchString(scr) {
				progress = scr
			}
		}
		if progress == "" {
			t.Fatalf("no progress line; the screen:\n%s", tm.screen())
		}
		if !strings.Contains(progress, "reopening") || !strings.Contains(progress, "MB") || !strings.Contains(progress, "the session is reopening — enter queues") {
			t.Fatalf("the progress frame does not say what is read and how far:\n%s", progress)
		}
		tm.typeText("get account activity for ACC-7")
		tm.keys("Enter")
		// the reopened transcript, then the queued message's own turn
		tm.shows(fmt.Sprintf("turn %d", turns+1))
		tm.shows("ACC-7")
		tm.waitFor("the turn to end", func() bool {
			return !reopeningStatus.MatchString(tm.screen()) && !strings.Contains(tm.screen(), "queued")
		})
		tm.keys("C-c")
		tm.keys("C-c")
		tm.shows("saved in")
		journal, err := os.ReadFile(filepath.Join(dir, id, "journal.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(fmt.Sprintf(`"type":"turn_start","turn":%d,[^\n]*"text":"get account activity for ACC-7"`, turns+1)).Match(journal) {
			t.Fatalf("the message typed while reopening is not turn %d of the journal", turns+1)
		}
	})

	t.Run("the oldest turns read back from sealed pages", func(t *testing.T) {
		// the window has long left turn 1: its entries are sealed
		tm := newTmux(t, tmp, fmt.Sprintf("env -i %s %s --offline --session-dir %s --resume %s", env, bin, dir, id))
		tm.waitFor("the session to open", func() bool {
			scr := tm.screen()
			return strings.Contains(scr, fmt.Sprintf("turn %d", turns+1)) && !reopeningStatus.MatchString(scr)
		})
		tm.keys("C-f")
		tm.typeText("activity for ACC-1000")
		tm.keys("Enter")
		tm.waitFor("the search to reach turn 1", func() bool {
			return strings.Contains(tm.screen(), "You · turn 1\n") || strings.Contains(tm.screen(), "You · turn 1 ")
		})
		if scr := tm.screen(); !strings.Contains(scr, "get account activity for ACC-1000") {
			t.Fatalf("turn 1's message is not shown:\n%s", scr)
		}
		tm.keys("C-c")
		tm.keys("C-c")
		tm.shows("saved in")
	})

	t.Run("a session that cannot reopen names why and exits 2", func(t *testing.T) {
		tm := newTmux(t, tmp, fmt.Sprintf("env -i %s %s --offline --profile codex --session-dir %s --resume %s; echo exit=$?", env, bin, dir, id))
		tm.shows("exit=")
		scr := tm.screen()
		if !strings.Contains(scr, "skillet: --profile codex: the session runs under skillet") || !strings.Contains(scr, "exit=2") {
			t.Fatalf("the failed reopen's error or status is missing:\n%s", scr)
		}
	})
}
