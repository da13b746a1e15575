//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// nextRequest is the status bar's count of the next request: "~" before
// it while it is an estimate.
var nextRequest = regexp.MustCompile(`next request (~?)[0-9][0-9,]* tok`)

// TestTUIFirstScreen measures how long the real binary, started in tmux
// against a loopback endpoint, takes to show its first screen and then the
// exact token counts on it (until then they are marked "~" as estimates),
// with the CPU it used by then, against `skillet --version` started the
// same way in the same run (the floor: starting the process at all). It
// runs only with SKILLET_BENCH_FIRST=1 and skips without tmux:
//
//	SKILLET_BENCH_FIRST=1 SKILLET_BENCH_ROUNDS=5 go test -run TestTUIFirstScreen -v .
func TestTUIFirstScreen(t *testing.T) {
	if os.Getenv("SKILLET_BENCH_FIRST") == "" {
		t.Skip("set SKILLET_BENCH_FIRST=1 to measure the first screen (about 20 s)")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install tmux): skipped")
	}
	bin := skilletBinary(t)
	srv := streamingModel(func() streamPlan { return streamPlan{reply: "ok", chunks: 1} })
	defer srv.Close()
	rounds := 5
	if n, err := strconv.Atoi(os.Getenv("SKILLET_BENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	var first, exact, cpu, version time.Duration
	for range rounds {
		// the floor: the process started and ended in tmux the same way
		tmp := t.TempDir()
		env := strings.Join(procEnv(tmp), " ")
		done := tmp + "/done"
		t0 := time.Now()
		tm := newTmux(t, tmp, fmt.Sprintf("env -i %s %s --version >/dev/null; touch %s", env, bin, done))
		for {
			if _, err := os.Stat(done); err == nil {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		version += time.Since(t0)
		tm.run("kill-server")

		tmp = t.TempDir()
		env = strings.Join(procEnv(tmp, "OPENAI_API_KEY="+testAPIKey), " ")
		t0 = time.Now()
		tm = newTmux(t, tmp, fmt.Sprintf("exec env -i %s %s --base-url %s/v1", env, bin, srv.URL))
		var tFirst time.Duration
		for i := 0; ; i++ {
			if i > 3000 {
				t.Fatalf("no exact counts after 30 s:\n%s", tm.screen())
			}
			m := nextRequest.FindStringSubmatch(tm.screen())
			if m != nil && tFirst == 0 {
				tFirst = time.Since(t0)
			}
			if m != nil && m[1] == "" {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		tExact := time.Since(t0)
		pid, err := strconv.Atoi(tm.run("display-message", "-p", "-t", "t", "#{pane_pid}"))
		if err != nil {
			t.Fatalf("the pane's process: %v", err)
		}
		c := cpuOf(t, pid)
		t.Logf("first screen %v, exact counts %v (CPU %v)", tFirst.Round(time.Millisecond), tExact.Round(time.Millisecond), c)
		first += tFirst
		exact += tExact
		cpu += c
		tm.run("kill-server")
	}
	r := time.Duration(rounds)
	t.Logf("mean of %d: first screen %v, exact counts %v, CPU by then %v; --version in tmux %v",
		rounds, (first / r).Round(time.Millisecond), (exact / r).Round(time.Millisecond), cpu/r, (version / r).Round(time.Millisecond))
	t.Logf("exact counts %.1f× --version, %v after it", float64(exact)/float64(version), ((exact - version) / r).Round(time.Millisecond))
}
