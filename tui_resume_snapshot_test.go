//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestResumeFromSnapshotShowsTheSameSession writes a long session with the
// real binary, which stores the fold of its journal as it closes, then
// reopens it from that snapshot and from the whole journal: skillet show
// --json prints the same, and --resume in the terminal UI shows the same
// screen. A reopening that used the snapshot and added nothing to the
// journal leaves the snapshot as it was; one that folded the whole journal
// stores a fresh one as it closes.
func TestResumeFromSnapshotShowsTheSameSession(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a session of about 1,500 messages: skipped with -short")
	}
	bin := skilletBinary(t)
	tmp := t.TempDir()
	const turns = 350
	dir, id := longSession(t, bin, tmp, turns)
	session := filepath.Join(dir, id)
	snapPath := filepath.Join(session, "fold.snapshot")
	fi, err := os.Stat(filepath.Join(session, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 1<<20 {
		t.Fatalf("the journal is %d bytes, under the 1 MiB a snapshot is stored for", fi.Size())
	}
	snap, err := os.ReadFile(snapPath)
	if err != nil {
		t.Fatalf("skillet run stored no snapshot as it closed: %v", err)
	}
	if !bytes.HasPrefix(snap, []byte("skillet fold snapshot\n")) {
		t.Fatalf("%s does not begin as a snapshot", snapPath)
	}

	show := func() string {
		t.Helper()
		cmd := exec.Command(bin, "show", "--json", session)
		cmd.Dir, cmd.Env = tmp, procEnv(tmp)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("skillet show --json: %v\n%s", err, errOut.String())
		}
		return out.String()
	}
	fromSnap := show()
	if b, _ := os.ReadFile(snapPath); !bytes.Equal(b, snap) {
		t.Fatal("skillet show (read-only) changed the snapshot")
	}
	moveAway(t, snapPath)
	whole := show()
	if _, err := os.Stat(snapPath); !os.IsNotExist(err) {
		t.Fatalf("skillet show (read-only) stored a snapshot: %v", err)
	}
	if fromSnap != whole {
		t.Fatalf("skillet show --json differs from the snapshot and from the whole journal:\n%s", firstDiff(whole, fromSnap))
	}
	if !strings.Contains(whole, fmt.Sprintf(`"turn": %d`, turns)) {
		t.Fatalf("skillet show --json does not reach turn %d", turns)
	}
	if err := os.WriteFile(snapPath, snap, 0o600); err != nil {
		t.Fatal(err)
	}

	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install tmux): the terminal UI part is skipped")
	}
	env := strings.Join(procEnv(tmp), " ")
	resume := func() string {
		t.Helper()
		tm := newTmux(t, tmp, fmt.Sprintf("env -i %s %s --offline --session-dir %s --resume %s", env, bin, dir, id))
		last := fmt.Sprintf("turn %d", turns)
		tm.waitFor("the reopened session's panes", func() bool {
			s := tm.screen()
			return strings.Contains(s, last) && strings.Contains(s, "whole next request") && !reopeningStatus.MatchString(s)
		})
		// settled: two looks apart the same
		var scr string
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
			scr = tm.screen()
			time.Sleep(300 * time.Millisecond)
			if tm.screen() == scr {
				break
			}
		}
		tm.keys("C-c")
		tm.keys("C-c")
		tm.shows("saved in")
		// the session closes (and stores its snapshot) after saying so:
		// done once the shell runs what follows skillet
		tm.waitFor("skillet to exit", func() bool {
			return tm.run("display-message", "-p", "-t", "t", "#{pane_current_command}") == "sleep"
		})
		return scr
	}
	screenSnap := resume()
	if b, err := os.ReadFile(snapPath); err != nil || !bytes.Equal(b, snap) {
		t.Fatalf("the reopening from the snapshot added to the journal or did not use the snapshot (it stored another: %v)", err)
	}
	moveAway(t, snapPath)
	screenWhole := resume()
	if b, err := os.ReadFile(snapPath); err != nil || bytes.Equal(b, snap) {
		t.Fatalf("the reopening that folded the whole journal stored no fresh snapshot: %v", err)
	}
	if screenSnap != screenWhole {
		t.Fatalf("--resume shows another screen from the snapshot than from the whole journal:\nfrom the snapshot:\n%s\nfrom the whole journal:\n%s", screenSnap, screenWhole)
	}
}

// moveAway renames a file aside.
func moveAway(t *testing.T, path string) {
	t.Helper()
	if err := os.Rename(path, path+".aside"); err != nil {
		t.Fatal(err)
	}
}

// firstDiff names the first line where two texts differ.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) && i < len(gl); i++ {
		if wl[i] != gl[i] {
			return fmt.Sprintf("line %d:\n whole:    %s\n snapshot: %s", i+1, wl[i], gl[i])
		}
	}
	return fmt.Sprintf("%d lines from the whole journal, %d from the snapshot", len(wl), len(gl))
}
