//go:build linux

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

// A first session in tmux, at the sizes people use: a tool approved for the
// session says so in the Tools pane, and the loaded-skills pane keeps its
// legend and the names the list left off whole.

func TestTUISessionApprovalAndWholeNamesInTheLRU(t *testing.T) {
	tm := offlineTUI(t, "")
	tm.typeText("/set list_size 2")
	tm.keys("Enter")
	tm.typeText("run the release checks for v1.4.0")
	tm.keys("Enter")
	tm.shows("Approval needed")
	time.Sleep(400 * time.Millisecond) // keys of the dialog's first 300 ms are ignored
	tm.keys("s")
	tm.shows("turn 1 ended")
	tm.shows("1 approved for the session")
	tm.keys("Tab", "Tab", "Tab", "Tab")
	tm.shows("┏━ Tools")
	tm.keys("End")
	tm.shows("✓ approved for the") // wrapped in a narrow pane
	tm.keys("Escape")
	tm.shows("┏━ Message") // before the next key, which would read as alt+key
	leftOff := []string{"fraud-triage", "incident-report", "meeting-notes", "sql-review"}
	for _, size := range [][2]string{{"140", "40"}, {"200", "50"}} {
		tm.run("resize-window", "-t", "t", "-x", size[0], "-y", size[1])
		tm.keys("Tab", "Tab")
		tm.shows("┏━ Loaded skills (LRU)")
		tm.keys("End")
		tm.shows("left off the list (R10):")
		lru := lruColumn(tm.screen())
		for _, n := range leftOff {
			if !strings.Contains(lru, n) {
				t.Fatalf("%sx%s: %s is not whole in the LRU pane:\n%s", size[0], size[1], n, lru)
			}
		}
		// down the pane, a row at a time, until the table's legend scrolls
		// into view
		tm.keys("Home")
		for i := 0; !strings.Contains(lruColumn(tm.screen()), "O offered"); i++ {
			if i == 12 {
				t.Fatalf("%sx%s: the legend never showed:\n%s", size[0], size[1], tm.screen())
			}
			tm.keys("Down")
			time.Sleep(150 * time.Millisecond)
		}
		if lru := lruColumn(tm.screen()); !strings.Contains(strings.Join(strings.Fields(lru), " "), "L loaded (R20)") {
			t.Fatalf("%sx%s: the legend is cut:\n%s", size[0], size[1], lru)
		}
		tm.keys("Escape")
		tm.shows("┏━ Message")
	}
}

// lruColumn is the text of the loaded-skills pane on a screen: the box
// whose title row holds "Loaded skills", cut out by its columns.
func lruColumn(screen string) string {
	lines := strings.Split(screen, "\n")
	var from, to, row int = -1, -1, -1
	for i, l := range lines {
		r := []rune(l)
		if j := strings.Index(l, "Loaded skills (LRU)"); j >= 0 {
			start := len([]rune(l[:j]))
			for start > 0 && r[start-1] != '╭' && r[start-1] != '┏' {
				start--
			}
			end := start
			for end < len(r) && r[end] != '╮' && r[end] != '┓' {
				end++
			}
			from, to, row = start, end, i
			break
		}
	}
	if row < 0 {
		return ""
	}
	var out []string
	for _, l := range lines[row+1:] {
		r := []rune(l)
		if to > len(r) {
			break
		}
		cell := strings.TrimSpace(string(r[from:to]))
		if strings.HasPrefix(cell, "━") || strings.HasPrefix(cell, "─") {
			break
		}
		out = append(out, cell)
	}
	return strings.Join(out, "\n")
}

func TestTUIPastedMessageKeepsItsLines(t *testing.T) {
	tm := offlineTUI(t, "")
	var lines []string
	for i := 1; i <= 201; i++ {
		lines = append(lines, fmt.Sprintf("pasted line %d", i))
	}
	buf := filepath.Join(t.TempDir(), "paste.txt")
	if err := os.WriteFile(buf, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.run("load-buffer", buf)
	tm.run("paste-buffer", "-p", "-t", "t") // a bracketed paste, as a terminal sends one
	tm.shows("pasted line 201")
	tm.keys("Enter")
	tm.shows("turn 1 ended")
	tm.keys("Tab")
	tm.shows("┏━ Transcript")
	tm.keys("Home")
	tm.shows("❯ You · turn 1")
	rows := strings.Split(tm.screen(), "\n")
	for i, r := range rows {
		if strings.Contains(r, "❯ You · turn 1") {
			for j := 1; j <= 3 && i+j < len(rows); j++ {
				want := fmt.Sprintf("┃   pasted line %d ", j) // the transcript has the focus
				if !strings.HasPrefix(rows[i+j], want) {
					t.Fatalf("line %d of the message is not on a line of its own: %q\n%s", j, rows[i+j], tm.screen())
				}
			}
			break
		}
	}
	tm.shows("177 more line(s) · enter unfolds")
}

func TestTUIResumeWithNoIDOffersRecentSessions(t *testing.T) {
	bin := skilletBinary(t)
	tmp := t.TempDir()
	env := procEnv(tmp)
	for _, msgs := range [][]string{{"first session's message"}, {"the newest session opens here", "and goes on"}} {
		cmd := exec.Command(bin, append([]string{"run", "--offline"}, msgs...)...)
		cmd.Env, cmd.Dir = env, tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run: %v\n%s", err, out)
		}
		time.Sleep(20 * time.Millisecond) // apart in time, newest first
	}
	tm := newTmux(t, tmp, fmt.Sprintf("env -i %s %s --offline --resume", strings.Join(env, " "), bin))
	tm.shows("Resume which session?")
	s := tm.screen()
	newest, older := strings.Index(s, "the newest session opens here"), strings.Index(s, "first session's message")
	if newest < 0 || older < 0 || newest > older || !strings.Contains(s, "· 2 turn(s)") || !strings.Contains(s, "· 1 turn(s)") {
		t.Fatalf("the picker does not list both sessions, newest first, with their turns:\n%s", s)
	}
	tm.keys("Enter")
	tm.shows("offline demo model") // the UI, on the session chosen: its last turn at the end
	tm.shows("and goes on")
	tm.shows("turn 2 ended")
}
