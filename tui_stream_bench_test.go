//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"skillet/harness/procfs"
)

// streamReply is about n bytes of Markdown shaped like a long model reply
// (headings, prose, lists, code, tables, quotes), ending in a line that
// says the whole reply arrived.
func streamReply(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "## Part %d: what the logs show\n\n", i)
		fmt.Fprintf(&b, "The service restarted **%d times** between the deploys; each restart follows a burst of `timeout` errors from the gateway, and the retries pile up until the queue is full.\n\n", i)
		for j := range 5 {
			fmt.Fprintf(&b, "- node %d-%d: %d restarts, the last at 10:%02d\n", i, j, i+j, j*7)
		}
		fmt.Fprintf(&b, "\n```go\nfunc retry%d(call func() error) error {\n\tfor attempt := 0; attempt < 5; attempt++ {\n\t\tif err := call(); err == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n\treturn errors.New(\"gave up\")\n}\n```\n\n", i)
		fmt.Fprintf(&b, "| node | restarts |\n|---|---:|\n| a%d | %d |\n\n", i, i)
		b.WriteString("> Raise the gateway timeout before adding nodes.\n\n")
	}
	b.WriteString("The whole reply arrived: REPLY-END.\n")
	return b.String()
}

// streamPlan is how a loopback endpoint streams a reply: cut into chunks
// pieces, the first skip of them at once, then one every gap.
type streamPlan struct {
	reply  string
	chunks int
	skip   int
	gap    time.Duration
}

// streamingModel is a chat-completions endpoint that streams each request
// the reply of the plan next() returns.
func streamingModel(next func() streamPlan) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := next()
		w.Header().Set("Content-Type", "text/event-stream")
		fl, _ := w.(http.Flusher)
		send := func(delta, finish string) {
			s, _ := json.Marshal(delta)
			f := "null"
			if finish != "" {
				f = strconv.Quote(finish)
			}
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":%s}]}\n\n", s, f)
			if fl != nil {
				fl.Flush()
			}
		}
		next := time.Now()
		for i := range p.chunks {
			if i >= p.skip && p.gap > 0 {
				next = next.Add(p.gap)
				time.Sleep(time.Until(next))
			}
			select {
			case <-r.Context().Done():
				return
			default:
			}
			send(p.reply[i*len(p.reply)/p.chunks:(i+1)*len(p.reply)/p.chunks], "")
		}
		send("", "stop")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
}

// cpuOf is the CPU time (user and system) process pid has used so far,
// from the OS.
func cpuOf(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	st, ok := procfs.Read(pid)
	if !ok {
		tb.Fatalf("read the CPU time of process %d: it is gone", pid)
	}
	return st.CPU
}

// streamingTUI is the real binary in tmux talking to srv; pid is the
// skillet process.
type streamingTUI struct {
	*tmuxSession
	pid int
}

// profiled counts the processes that wrote a CPU profile, to name them.
var profiled atomic.Int32

// startStreamingTUI starts the binary; with SKILLET_BENCH_PROFILE=DIR set
// each process writes its CPU profile to DIR/NAME-N.pprof, for pprof.
func startStreamingTUI(t *testing.T, bin, srvURL, name string) *streamingTUI {
	t.Helper()
	tmp := t.TempDir()
	extra := []string{"OPENAI_API_KEY=" + testAPIKey}
	if dir := os.Getenv("SKILLET_BENCH_PROFILE"); dir != "" {
		extra = append(extra, fmt.Sprintf("SKILLET_CPUPROFILE=%s/%s-%d.pprof", dir, name, profiled.Add(1)))
		if hz := os.Getenv("SKILLET_BENCH_PROFILE_HZ"); hz != "" {
			extra = append(extra, "SKILLET_CPUPROFILE_HZ="+hz)
		}
		if after := os.Getenv("SKILLET_BENCH_PROFILE_AFTER_" + strings.ToUpper(name)); after != "" {
			extra = append(extra, "SKILLET_CPUPROFILE_AFTER="+after)
		}
	}
	env := strings.Join(procEnv(tmp, extra...), " ")
	// exec: the pane's process is skillet itself
	tm := newTmux(t, tmp, fmt.Sprintf("exec env -i %s %s --base-url %s/v1", env, bin, srvURL))
	tm.shows("gpt-4o-mini")
	pid, err := strconv.Atoi(tm.run("display-message", "-p", "-t", "t", "#{pane_pid}"))
	if err != nil {
		t.Fatalf("the pane's process: %v", err)
	}
	return &streamingTUI{tmuxSession: tm, pid: pid}
}

// settle waits until the process uses no CPU for 200 ms (start-up work,
// such as loading the tokenizer, is done), at most 10 s.
func (s *streamingTUI) settle() {
	last := cpuOf(s.t, s.pid)
	for range 50 {
		time.Sleep(200 * time.Millisecond)
		now := cpuOf(s.t, s.pid)
		if now == last {
			return
		}
		last = now
	}
}

// turnCPU sends a message and returns the CPU the process used until the
// screen shows the reply's last line with the turn ended and the process
// is quiet again (the wall time is until the screen showed it).
func (s *streamingTUI) turnCPU(msg string) (time.Duration, time.Duration) {
	s.t.Helper()
	s.settle()
	c0, t0 := cpuOf(s.t, s.pid), time.Now()
	s.typeText(msg)
	s.keys("Enter")
	s.waitFor("the whole reply on the screen", func() bool {
		scr := s.screen()
		return strings.Contains(scr, "REPLY-END") && !strings.Contains(scr, "a turn is running")
	})
	took := time.Since(t0)
	// the raw text shows before its Markdown: count the render that lands
	s.settle()
	return cpuOf(s.t, s.pid) - c0, took
}

// TestTUIStreamCPU measures the whole process streaming a 100 KB reply,
// CPU time from the OS, against floors measured in the same run:
//
//   - paced: 2,000 chunks over about 5.5 s;
//   - instant: the same 2,000 chunks as fast as the endpoint writes;
//   - floor: the same reply in one chunk — one full render of the final
//     transcript plus the turn around it;
//   - slow: about 100 tokens a second (a 5-byte chunk every 10 ms) of
//     more of the same reply after its first 100 KB arrived at once, CPU
//     over 5 s as a share of one core; beside it the worst case of one
//     paragraph of 2,000 words (drawn again whole on every frame while
//     it is open), and two floors: the same stream through `skillet run`
//     (the network and the engine without a screen) and the program
//     sitting idle after a reply (see slowShares);
//   - version: `skillet --version`.
//
// Pairs alternate (floor, paced, floor, instant, ...) so load on the
// machine falls on both. It runs only with SKILLET_BENCH_STREAM=1 (it
// takes about a minute) and skips without tmux:
//
//	SKILLET_BENCH_STREAM=1 go test -run TestTUIStreamCPU -v .
//
// SKILLET_BENCH_BIN measures another build of skillet instead of this
// checkout's. SKILLET_BENCH_ROUNDS=N sets the pairs (0: the 100 tokens/s measures
// alone; their rounds are SKILLET_BENCH_SLOW_ROUNDS, 3 by default); SKILLET_BENCH_PROFILE=DIR has each process write a CPU profile
// there (the binary's SKILLET_CPUPROFILE), and
// SKILLET_BENCH_PROFILE_AFTER_SLOW=4s starts the slow one's late enough
// to leave out the burst before it (SKILLET_BENCH_PROFILE_HZ=1000 samples
// more often); SKILLET_BENCH_SLOW=12s measures the
// slow one longer than 5 s, for a profile with more samples.
func TestTUIStreamCPU(t *testing.T) {
	if os.Getenv("SKILLET_BENCH_STREAM") == "" {
		t.Skip("set SKILLET_BENCH_STREAM=1 to measure streaming CPU (about a minute)")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install tmux): skipped")
	}
	bin := os.Getenv("SKILLET_BENCH_BIN") // another build, to compare with
	if bin == "" {
		bin = skilletBinary(t)
	}
	reply := streamReply(100 << 10)
	const chunks = 2000
	plans := map[string]streamPlan{
		"floor":   {reply: reply, chunks: 1},
		"paced":   {reply: reply, chunks: chunks, gap: 5500 * time.Millisecond / chunks},
		"instant": {reply: reply, chunks: chunks},
	}
	var current streamPlan
	srv := streamingModel(func() streamPlan { return current })
	defer srv.Close()
	rounds := 3
	// 0 rounds: the 100 tokens/s measure alone, for profiling it
	if n, err := strconv.Atoi(os.Getenv("SKILLET_BENCH_ROUNDS")); err == nil && n >= 0 {
		rounds = n
	}
	sum := map[string]time.Duration{}
	wall := map[string]time.Duration{}
	for range rounds {
		for _, name := range []string{"floor", "paced", "floor", "instant"} {
			// a fresh process each time: the transcript starts empty
			current = plans[name]
			tui := startStreamingTUI(t, bin, srv.URL, name)
			cpu, took := tui.turnCPU("explain the restarts")
			sum[name] += cpu
			wall[name] += took
			t.Logf("%-8s cpu %v wall %v", name, cpu, took.Round(time.Millisecond))
			tui.run("kill-server")
		}
	}
	slow := slowShares(t, bin, srv, &current, reply)
	if rounds == 0 {
		return
	}

	var version time.Duration
	for range rounds {
		cmd := exec.Command(bin, "--version")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("skillet --version: %v\n%s", err, out)
		}
		version += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	floor := sum["floor"] / 2
	r := time.Duration(rounds)
	t.Logf("100 KB reply, %d chunks, CPU per turn (mean of %d): paced %v (wall %v), instant %v, one chunk (floor) %v, --version %v",
		chunks, rounds, sum["paced"]/r, (wall["paced"] / r).Round(time.Millisecond), sum["instant"]/r, floor/r, version/r)
	t.Logf("paced/floor %.2f×  instant/floor %.2f×  paced/version %.1f×  100 tokens/s at 100 KB: %.1f%% of a core",
		float64(sum["paced"])/float64(floor), float64(sum["instant"])/float64(floor),
		float64(sum["paced"])/float64(version), 100*slow)
}

// slowFor is how long each 100 tokens/s measure runs: 5 s, or
// SKILLET_BENCH_SLOW (at most 15 s: the paragraph's words run out after
// 20 s).
func slowFor(t *testing.T) time.Duration {
	s := os.Getenv("SKILLET_BENCH_SLOW")
	if s == "" {
		return 5 * time.Second
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > 15*time.Second {
		t.Fatalf("SKILLET_BENCH_SLOW %q: want a duration up to 15s", s)
	}
	return d
}

// slowShares measures, as shares of one core over slowFor, the program
// while a reply streams at 100 tokens a second after its first 100 KB
// (reply) came at once: the same kind of reply going on ("slow"), one long
// paragraph ("paragraph"), the same stream through `skillet run` with no
// screen ("headless"), and the terminal UI idle after a short reply
// ("idle"). Each is measured SKILLET_BENCH_SLOW_ROUNDS times, in turn so
// the machine's load falls on all; it logs the medians and returns the
// slow one's.
func slowShares(t *testing.T, bin string, srv *httptest.Server, current *streamPlan, reply string) float64 {
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv("SKILLET_BENCH_SLOW_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	trickle := func(tail string) streamPlan {
		all := reply + tail
		return streamPlan{reply: all, chunks: len(all) / 5, skip: len(reply) / 5, gap: 10 * time.Millisecond}
	}
	plans := map[string]streamPlan{
		"slow":      trickle(streamReply(64 << 10)),
		"paragraph": trickle(strings.Repeat("word ", 2000)),
		"headless":  trickle(streamReply(64 << 10)),
		"idle":      {reply: "REPLY-END", chunks: 1},
	}
	names := []string{"slow", "headless", "paragraph", "idle"}
	shares := map[string][]float64{}
	for range rounds {
		for _, name := range names {
			*current = plans[name]
			var pid int
			var stop func()
			if name == "headless" {
				cmd := exec.Command(bin, "run", "--base-url", srv.URL+"/v1", "explain the restarts")
				cmd.Env = procEnv(t.TempDir(), "OPENAI_API_KEY="+testAPIKey)
				if err := cmd.Start(); err != nil {
					t.Fatalf("skillet run: %v", err)
				}
				pid, stop = cmd.Process.Pid, func() { cmd.Process.Kill(); cmd.Wait() }
				// its first 100 KB came at once
				time.Sleep(2 * time.Second)
			} else {
				tui := startStreamingTUI(t, bin, srv.URL, name)
				tui.typeText("explain the restarts")
				tui.keys("Enter")
				tui.shows("REPLY-END")
				time.Sleep(time.Second) // the burst's render settles
				pid, stop = tui.pid, func() { tui.run("kill-server") }
			}
			c0, t0 := cpuOf(t, pid), time.Now()
			time.Sleep(slowFor(t))
			shares[name] = append(shares[name], float64(cpuOf(t, pid)-c0)/float64(time.Since(t0)))
			stop()
		}
	}
	med := map[string]float64{}
	for _, name := range names {
		v := slices.Sorted(slices.Values(shares[name]))
		med[name] = (v[(len(v)-1)/2] + v[len(v)/2]) / 2
	}
	t.Logf("100 tokens/s at 100 KB, share of a core (median of %d): %.1f%%; one 2,000-word paragraph %.1f%%; floors: headless (skillet run) %.1f%%, idle %.1f%%",
		rounds, 100*med["slow"], 100*med["paragraph"], 100*med["headless"], 100*med["idle"])
	return med["slow"]
}
