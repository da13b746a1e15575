//go:build linux

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTUIKeyEcho measures how long a typed key takes to show, the real
// binary in tmux: each key is sent, then the screen read until the text
// typed so far is on it. The floor is the same in a pane running cat,
// which the terminal echoes itself; both go through tmux and the polling
// (a capture every few milliseconds), so their difference is what the
// program adds. Keys are sent at random moments, as a typist's fall. Runs alternate between the two. It runs only with
// SKILLET_BENCH_KEYS=1 and skips without tmux:
//
//	SKILLET_BENCH_KEYS=1 go test -run TestTUIKeyEcho -v .
//
// SKILLET_BENCH_ROUNDS sets the rounds (3, of 40 keys each) and
// SKILLET_BENCH_BIN measures another build of skillet.
func TestTUIKeyEcho(t *testing.T) {
	if os.Getenv("SKILLET_BENCH_KEYS") == "" {
		t.Skip("set SKILLET_BENCH_KEYS=1 to measure key echo (about half a minute)")
	}
	bin := os.Getenv("SKILLET_BENCH_BIN")
	if bin == "" {
		bin = skilletBinary(t)
	}
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv("SKILLET_BENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	const word = "thequickbrownfoxjumpsoverthelazydogagain"
	echo := func(tm *tmuxSession) []time.Duration {
		var took []time.Duration
		for i := range len(word) {
			// a typist's keys fall anywhere in the renderer's frame: a
			// key sent right after the last one showed would always land
			// just after a frame
			time.Sleep(time.Duration(rand.N(40_000)) * time.Microsecond)
			t0 := time.Now()
			tm.typeText(word[i : i+1])
			for !strings.Contains(tm.screen(), word[:i+1]) {
				if time.Since(t0) > 10*time.Second {
					t.Fatalf("%q never showed; the screen:\n%s", word[:i+1], tm.screen())
				}
			}
			took = append(took, time.Since(t0))
		}
		return took
	}
	var prog, floor []time.Duration
	for range rounds {
		tmp := t.TempDir()
		cat := newTmux(t, tmp, "exec cat")
		time.Sleep(200 * time.Millisecond)
		floor = append(floor, echo(cat)...)
		cat.run("kill-server")

		env := strings.Join(procEnv(tmp), " ")
		tm := newTmux(t, tmp, fmt.Sprintf("exec env -i %s %s --offline", env, bin))
		tm.shows("offline demo model")
		time.Sleep(time.Second) // start-up work is done
		prog = append(prog, echo(tm)...)
		tm.run("kill-server")
	}
	pct := func(d []time.Duration, p int) time.Duration {
		s := slices.Sorted(slices.Values(d))
		return s[(len(s)-1)*p/100].Round(100 * time.Microsecond)
	}
	t.Logf("key echo over %d keys: median %v, 90th percentile %v, slowest %v; cat in tmux (the floor): median %v, 90th %v, slowest %v",
		len(prog), pct(prog, 50), pct(prog, 90), pct(prog, 100), pct(floor, 50), pct(floor, 90), pct(floor, 100))
	t.Logf("the program adds %v at the median, %v at the 90th percentile",
		pct(prog, 50)-pct(floor, 50), pct(prog, 90)-pct(floor, 90))
}
