//go:build linux

package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// finalScreenProblem says what is wrong with the screen a streamed turn
// ended on, "" when nothing is: the reply's last line stands right above
// the turn's end mark, at the bottom of a full transcript pane.
func finalScreenProblem(scr string) string {
	lines := strings.Split(scr, "\n")
	end, mark := -1, -1
	for i, l := range lines {
		if strings.Contains(l, "REPLY-END") {
			end = i
		}
		if strings.Contains(l, "turn 1 ended") {
			mark = i
		}
	}
	switch {
	case end < 0 || mark < 0:
		return "the reply's last line or the turn's end mark is missing"
	case mark != end+1:
		return fmt.Sprintf("the turn's end mark is on row %d, the reply's last line on row %d", mark, end)
	}
	// the transcript box's rows above the reply's end show the reply
	blank := 0
	for _, l := range lines[1:end] {
		if inner, _, _ := strings.Cut(strings.TrimPrefix(l, "│"), "│"); strings.TrimSpace(inner) == "" {
			blank++
		}
	}
	if blank > end/2 {
		return fmt.Sprintf("%d of the %d transcript rows above the reply's end are blank", blank, end-1)
	}
	return ""
}

// TestTUIStreamFinalScreen streams a 100 KB reply to the real binary many
// times, in the ways the streaming benchmark does (one chunk, 2,000 chunks
// at once, 2,000 over a second), and checks every final screen. It runs
// only with SKILLET_STRESS_STREAM=N (N runs, about 3 s each):
//
//	SKILLET_STRESS_STREAM=30 go test -run TestTUIStreamFinalScreen -v .
func TestTUIStreamFinalScreen(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("SKILLET_STRESS_STREAM"))
	if runs <= 0 {
		t.Skip("set SKILLET_STRESS_STREAM=N to stream N replies and check each final screen")
	}
	bin := skilletBinary(t)
	reply := streamReply(100 << 10)
	plans := []streamPlan{
		{reply: reply, chunks: 1},
		{reply: reply, chunks: 2000},
		{reply: reply, chunks: 2000, gap: time.Second / 2000},
		{reply: reply, chunks: 2000, gap: 3 * time.Second / 2000},
	}
	var current streamPlan
	srv := streamingModel(func() streamPlan { return current })
	defer srv.Close()
	bad := 0
	for i := range runs {
		current = plans[i%len(plans)]
		tui := startStreamingTUI(t, bin, srv.URL, "stress")
		tui.typeText("explain the restarts")
		tui.keys("Enter")
		tui.waitFor("the turn's end", func() bool {
			scr := tui.screen()
			return strings.Contains(scr, "turn 1 ended") && !strings.Contains(scr, "a turn is running")
		})
		tui.settle()
		scr := tui.screen()
		problem := finalScreenProblem(scr)
		if problem == "" {
			// what the terminal shows is what a full redraw shows: a
			// resize there and back draws everything again
			tui.run("resize-window", "-t", "t", "-x", "150")
			tui.settle()
			tui.run("resize-window", "-t", "t", "-x", "160")
			again := ""
			for range 100 { // the redraw lands, however loaded the machine
				if again = tui.screen(); again == scr {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if again != scr {
				problem = "the screen differs from a full redraw of it:\n" + again + "\nbefore the redraw"
			}
		}
		if problem != "" {
			bad++
			t.Errorf("run %d (%d chunks, %v apart): %s:\n%s", i, current.chunks, current.gap, problem, scr)
		}
		tui.run("kill-server")
	}
	t.Logf("%d of %d final screens wrong", bad, runs)
}
