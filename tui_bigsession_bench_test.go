//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"skillet/harness/procfs"
)

// TestBigSession measures a long session on the whole process — the real
// binary, in tmux for the terminal UI, memory and CPU from the OS — each
// beside a floor measured in the same run:
//
//   - live: the peak resident size of `skillet run` writing the session
//     (the same session live);
//   - resume: `--resume` until the screen shows the last turn with every
//     pane filled, its peak resident size while it does, beside a new
//     session's panes filled — first from the journal alone, then, after
//     a clean quit stored the fold beside it, from that snapshot;
//   - travel: /history (the last call) and /history 1 (the first) in the
//     resumed session until the bar says which call is viewed, beside the
//     same in a session of one turn;
//   - why and show: `skillet why --session` and `skillet show --json`,
//     peak resident size, beside `skillet --version`.
//
// It runs only with SKILLET_BENCH_SESSION=1 and skips without tmux:
//
//	SKILLET_BENCH_SESSION=1 go test -run TestBigSession -v -timeout 30m .
//
// SKILLET_BENCH_MESSAGES sets the session's length (50,000 messages by
// default; writing it takes a few minutes), SKILLET_BENCH_ROUNDS the
// rounds (3), SKILLET_BENCH_SESSION_DIR a folder that keeps the written
// session and its live figure for the next run, and SKILLET_BENCH_BIN
// another build of skillet to measure instead of this checkout's.
func TestBigSession(t *testing.T) {
	if os.Getenv("SKILLET_BENCH_SESSION") == "" {
		t.Skip("set SKILLET_BENCH_SESSION=1 to measure a long session (several minutes)")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install tmux): skipped")
	}
	bin := os.Getenv("SKILLET_BENCH_BIN") // another build, to compare with
	if bin == "" {
		bin = skilletBinary(t)
	}
	msgs := 50000
	if n, err := strconv.Atoi(os.Getenv("SKILLET_BENCH_MESSAGES")); err == nil && n > 0 {
		msgs = n
	}
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv("SKILLET_BENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	home := os.Getenv("SKILLET_BENCH_SESSION_DIR")
	if home == "" {
		home = t.TempDir()
	}
	b := writeBigSession(t, bin, home, msgs)
	t.Logf("session: %d turns, %d MiB of journal; live peak %d MiB", b.turns, b.size>>20, b.liveKB>>10)

	var r bigResults
	for i := range rounds {
		r.add(measureNewSession(t, bin, home))
		r.add(measureResume(t, bin, home, b, i))
		r.add(measureReaders(t, bin, home, b))
	}
	n := float64(rounds)
	avg := func(k string) float64 { return r.sum[k] / n }
	live := float64(b.liveKB)
	t.Logf("resume without a snapshot: panes filled %.0f ms (a new session's %.0f ms: ×%.1f), peak %.0f MiB = ×%.2f live, CPU %.0f ms, waiting for a core %.0f ms",
		avg("resume_ms"), avg("new_ms"), avg("resume_ms")/avg("new_ms"), avg("resume_kb")/1024, avg("resume_kb")/live, avg("resume_cpu_ms"), avg("resume_wait_ms"))
	t.Logf("quitting after the first resume: %.0f ms (storing a snapshot of %.0f MiB, when the build stores one); after the resume from it: %.0f ms",
		avg("quit_ms"), avg("snap_kb")/1024, avg("quit_again_ms"))
	t.Logf("resume from the snapshot the quit stored: panes filled %.0f ms, peak %.0f MiB = ×%.2f live, CPU %.0f ms, waiting for a core %.0f ms; travel to the last call %.0f ms",
		avg("snap_resume_ms"), avg("snap_resume_kb")/1024, avg("snap_resume_kb")/live, avg("snap_resume_cpu_ms"), avg("snap_resume_wait_ms"), avg("snap_travel_last_ms"))
	t.Logf("travel: last call %.0f ms, first call %.0f ms (one-turn session: %.0f ms); CPU %.0f ms and %.0f ms",
		avg("travel_last_ms"), avg("travel_first_ms"), avg("new_travel_ms"), avg("travel_last_cpu_ms"), avg("travel_first_cpu_ms"))
	t.Logf("why --session: peak %.0f MiB, CPU %.0f ms; show --json: peak %.0f MiB, CPU %.0f ms; --version: peak %.0f MiB",
		avg("why_kb")/1024, avg("why_cpu_ms"), avg("show_kb")/1024, avg("show_cpu_ms"), avg("version_kb")/1024)
}

// bigSession is a session written for the benchmark.
type bigSession struct {
	journal      string
	turns        int
	size, liveKB int64
}

// writeBigSession writes a session of about msgs messages with the demo
// model under home, or finds the one an earlier run wrote there.
func writeBigSession(t *testing.T, bin, home string, msgs int) bigSession {
	t.Helper()
	turns := msgs * 2145 / 10012 // the demo model's messages a turn, as measured
	made := filepath.Join(home, fmt.Sprintf("made-%d", msgs))
	note := made + ".live"
	var b bigSession
	if text, err := os.ReadFile(note); err == nil {
		if _, err := fmt.Sscan(string(text), &b.turns, &b.liveKB); err == nil {
			if ents, _ := os.ReadDir(made); len(ents) == 1 {
				b.journal = filepath.Join(made, ents[0].Name(), "journal.jsonl")
				if fi, err := os.Stat(b.journal); err == nil {
					b.size = fi.Size()
					return b
				}
			}
		}
	}
	os.RemoveAll(made)
	var in strings.Builder
	for i := range turns {
		fmt.Fprintf(&in, []string{"review account ACC-%d for anomalies\n", "write an incident report for outage %d\n", "get account activity for ACC-%d\n"}[i%3], i)
	}
	t.Logf("writing a session of %d turns (about %d messages)", turns, msgs)
	gen := exec.Command(bin, "run", "--offline", "--session-dir", made, "-")
	var errOut strings.Builder
	gen.Dir, gen.Env, gen.Stdin, gen.Stdout, gen.Stderr = home, procEnv(home), strings.NewReader(in.String()), io.Discard, &errOut
	if err := gen.Run(); err != nil {
		t.Fatalf("skillet run: %v\n%s", err, errOut.String())
	}
	ents, err := os.ReadDir(made)
	if err != nil || len(ents) != 1 {
		t.Fatalf("want one session in %s: %v %v", made, ents, err)
	}
	b = bigSession{journal: filepath.Join(made, ents[0].Name(), "journal.jsonl"), turns: turns, liveKB: maxRSS(gen)}
	fi, err := os.Stat(b.journal)
	if err != nil {
		t.Fatal(err)
	}
	b.size = fi.Size()
	if err := os.WriteFile(note, fmt.Appendf(nil, "%d %d\n", b.turns, b.liveKB), 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}

// runQueueWait is how long a running process's threads have waited,
// runnable, for a core (the second field of each thread's schedstat,
// summed; threads that have ended are not counted). On a loaded machine
// it is where wall time goes that CPU time does not explain.
func runQueueWait(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var ns int64
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // ended since the listing
		}
		if fs := strings.Fields(string(b)); len(fs) >= 2 {
			n, _ := strconv.ParseInt(fs[1], 10, 64)
			ns += n
		}
	}
	return time.Duration(ns)
}

// maxRSS is a finished command's peak resident size in KiB.
func maxRSS(cmd *exec.Cmd) int64 {
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}

// cpuMS is a finished command's CPU time in milliseconds.
func cpuMS(cmd *exec.Cmd) float64 {
	return float64((cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Milliseconds())
}

// peakKB is a running process's peak resident size in KiB (VmHWM).
func peakKB(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read the memory of process %d: %v", pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	t.Fatalf("process %d: no VmHWM", pid)
	return 0
}

// bigResults sums each figure over the rounds.
type bigResults struct{ sum map[string]float64 }

func (r *bigResults) add(m map[string]float64) {
	if r.sum == nil {
		r.sum = map[string]float64{}
	}
	for k, v := range m {
		r.sum[k] += v
	}
}

// paneTUI is the real binary in tmux as the pane's own process.
type paneTUI struct {
	*tmuxSession
	pid   int
	start time.Time
	// poll is how long until waits between looks at the screen: each look
	// runs tmux, about 4 ms of CPU, on the cores the process measured
	// needs, so a wait of seconds looks less often than one of
	// milliseconds.
	poll time.Duration
}

func startPaneTUI(t *testing.T, dir, command string) *paneTUI {
	t.Helper()
	start := time.Now()
	tm := newTmux(t, dir, "exec "+command) // exec: the pane's process is skillet itself
	pid, err := strconv.Atoi(tm.run("display-message", "-p", "-t", "t", "#{pane_pid}"))
	if err != nil {
		t.Fatalf("the pane's process: %v", err)
	}
	return &paneTUI{tmuxSession: tm, pid: pid, start: start, poll: 3 * time.Millisecond}
}

// until polls the screen every few milliseconds until cond holds of it and
// returns how long that took from t0, failing after three minutes (an
// older build may take that long).
func (p *paneTUI) until(what string, t0 time.Time, cond func(string) bool) time.Duration {
	p.t.Helper()
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(p.poll) {
		if cond(p.screen()) {
			return time.Since(t0)
		}
	}
	p.t.Fatalf("%s never happened; the screen:\n%s", what, p.screen())
	return 0
}

func filled(scr string) bool {
	return strings.Contains(scr, "load_skill") && strings.Contains(scr, "whole next request")
}

// travel types a /history command and returns how long until the bar says
// which call is viewed, and the CPU the process used meanwhile.
func (p *paneTUI) travel(cmd, bar string) (time.Duration, time.Duration) {
	p.t.Helper()
	p.typeText(cmd)
	c0, t0 := cpuOf(p.t, p.pid), time.Now()
	p.keys("Enter")
	took := p.until(cmd, t0, func(s string) bool { return strings.Contains(s, bar) })
	return took, cpuOf(p.t, p.pid) - c0
}

// measureNewSession is the floors of a new session: its panes filled, and
// time travel's first step after one turn.
func measureNewSession(t *testing.T, bin, home string) map[string]float64 {
	env := strings.Join(procEnv(home), " ")
	dir := filepath.Join(home, "fresh")
	p := startPaneTUI(t, home, fmt.Sprintf("env -i %s %s --offline --session-dir %s", env, bin, dir))
	newMS := p.until("a new session's panes", p.start, filled)
	p.typeText("review account ACC-1 for anomalies")
	p.keys("Enter")
	p.until("the turn's end", time.Now(), func(s string) bool { return strings.Contains(s, "turn 1 ended") })
	(&streamingTUI{tmuxSession: p.tmuxSession, pid: p.pid}).settle()
	travel, _ := p.travel("/history", "viewing call")
	p.run("kill-server")
	ver := exec.Command(bin, "--version")
	ver.Env = procEnv(home)
	if out, err := ver.CombinedOutput(); err != nil {
		t.Fatalf("skillet --version: %v\n%s", err, out)
	}
	t.Logf("new session: panes %v, travel %v; --version %d KiB", newMS.Round(time.Millisecond), travel.Round(time.Millisecond), maxRSS(ver))
	return map[string]float64{"new_ms": float64(newMS.Milliseconds()), "new_travel_ms": float64(travel.Milliseconds()), "version_kb": float64(maxRSS(ver))}
}

// measureResume reopens a copy of the session (a reopened session appends
// to its journal) and steps back to its last and first calls; then it
// quits, which stores the fold of the journal beside it (fold.snapshot),
// and reopens it again from that snapshot.
func measureResume(t *testing.T, bin, home string, b bigSession, round int) map[string]float64 {
	env := strings.Join(procEnv(home), " ")
	dir := filepath.Join(home, fmt.Sprintf("resume-%d", round))
	os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, "s"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(b.journal, filepath.Join(dir, "s", "journal.jsonl")); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	last := fmt.Sprintf("turn %d", b.turns)
	command := fmt.Sprintf("env -i %s %s --offline --session-dir %s --resume %s", env, bin, dir, filepath.Join(dir, "s"))
	p := startPaneTUI(t, home, command)
	took, cpu, waited, peak := p.panesFilled(last)
	lastCall, lastCPU := p.travel("/history", "viewing call")
	p.keys("Escape")
	// apart from what follows, or the terminal reads alt+/
	p.until("the live session", time.Now(), func(s string) bool { return !strings.Contains(s, "viewing call") })
	firstCall, firstCPU := p.travel("/history 1", "viewing call 1 of")
	p.keys("Escape")
	p.until("the live session", time.Now(), func(s string) bool { return !strings.Contains(s, "viewing call") })
	// a clean quit stores the snapshot the next reopening starts from
	q0 := time.Now()
	p.quit()
	quitMS := time.Since(q0)
	snap, err := os.Stat(filepath.Join(dir, "s", "fold.snapshot"))
	if err != nil {
		// a build from before snapshots (SKILLET_BENCH_BIN): the first
		// resume is all there is to measure
		t.Logf("resume: panes %v, CPU %v, waiting for a core %v, peak %d MiB; travel to the last call %v (CPU %v), to the first %v (CPU %v); quit %v, no snapshot stored",
			took.Round(time.Millisecond), cpu, waited.Round(time.Millisecond), peak>>10, lastCall.Round(time.Millisecond), lastCPU, firstCall.Round(time.Millisecond), firstCPU, quitMS.Round(time.Millisecond))
		return map[string]float64{"resume_ms": float64(took.Milliseconds()), "resume_cpu_ms": float64(cpu.Milliseconds()), "resume_wait_ms": float64(waited.Milliseconds()), "resume_kb": float64(peak),
			"travel_last_ms": float64(lastCall.Milliseconds()), "travel_first_ms": float64(firstCall.Milliseconds()),
			"travel_last_cpu_ms": float64(lastCPU.Milliseconds()), "travel_first_cpu_ms": float64(firstCPU.Milliseconds()), "quit_ms": float64(quitMS.Milliseconds())}
	}
	t.Logf("resume without a snapshot: panes %v, CPU %v, waiting for a core %v, peak %d MiB; travel to the last call %v (CPU %v), to the first %v (CPU %v); quit with the snapshot stored %v (%d MiB)",
		took.Round(time.Millisecond), cpu, waited.Round(time.Millisecond), peak>>10, lastCall.Round(time.Millisecond), lastCPU, firstCall.Round(time.Millisecond), firstCPU,
		quitMS.Round(time.Millisecond), snap.Size()>>20)

	p = startPaneTUI(t, home, command)
	sTook, sCPU, sWaited, sPeak := p.panesFilled(last)
	sLast, sLastCPU := p.travel("/history", "viewing call")
	p.keys("Escape")
	p.until("the live session", time.Now(), func(s string) bool { return !strings.Contains(s, "viewing call") })
	// a quit stores a snapshot again only if the reopening added to the
	// journal (a copied session warns that its workspace is gone)
	q0 = time.Now()
	p.quit()
	quitAgain := time.Since(q0)
	stored := "storing none"
	if again, err := os.Stat(filepath.Join(dir, "s", "fold.snapshot")); err == nil && !again.ModTime().Equal(snap.ModTime()) {
		stored = "storing the snapshot again"
	}
	t.Logf("resume from the snapshot: panes %v, CPU %v, waiting for a core %v, peak %d MiB; travel to the last call %v (CPU %v); quit %s %v",
		sTook.Round(time.Millisecond), sCPU, sWaited.Round(time.Millisecond), sPeak>>10, sLast.Round(time.Millisecond), sLastCPU, stored, quitAgain.Round(time.Millisecond))
	return map[string]float64{"resume_ms": float64(took.Milliseconds()), "resume_cpu_ms": float64(cpu.Milliseconds()), "resume_wait_ms": float64(waited.Milliseconds()), "resume_kb": float64(peak),
		"travel_last_ms": float64(lastCall.Milliseconds()), "travel_first_ms": float64(firstCall.Milliseconds()),
		"travel_last_cpu_ms": float64(lastCPU.Milliseconds()), "travel_first_cpu_ms": float64(firstCPU.Milliseconds()),
		"quit_ms": float64(quitMS.Milliseconds()), "snap_kb": float64(snap.Size() >> 10),
		"snap_resume_ms": float64(sTook.Milliseconds()), "snap_resume_cpu_ms": float64(sCPU.Milliseconds()), "snap_resume_wait_ms": float64(sWaited.Milliseconds()),
		"snap_resume_kb": float64(sPeak), "snap_travel_last_ms": float64(sLast.Milliseconds()), "quit_again_ms": float64(quitAgain.Milliseconds())}
}

// panesFilled waits for a reopened session's panes to show the last turn
// and returns how long that took, the CPU and run-queue wait of the
// process by then, and its peak resident size once the screen settles.
func (p *paneTUI) panesFilled(last string) (took, cpu, waited time.Duration, peak int64) {
	p.t.Helper()
	p.poll = 20 * time.Millisecond // seconds to wait: looking every 3 ms took a third of a core
	took = p.until("the reopened session's panes", p.start, func(s string) bool { return strings.Contains(s, last) && filled(s) })
	cpu, waited = cpuOf(p.t, p.pid), runQueueWait(p.pid)
	p.poll = 3 * time.Millisecond
	(&streamingTUI{tmuxSession: p.tmuxSession, pid: p.pid}).settle()
	return took, cpu, waited, peakKB(p.t, p.pid)
}

// quit quits the program as a user does and waits for its process to end.
func (p *paneTUI) quit() {
	p.t.Helper()
	p.keys("C-c")
	p.keys("C-c")
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		// ended, whether or not tmux has reaped it yet (it takes up to a
		// second to, which is not the program's)
		if !procfs.Running(p.pid) {
			// the pane's process was the server's last: it has gone too
			_ = exec.Command("tmux", "-L", p.sock, "kill-server").Run()
			return
		}
	}
	p.t.Fatalf("skillet did not quit; the screen:\n%s", p.screen())
}

// measureReaders runs `skillet why --session` and `skillet show --json`
// over the session.
func measureReaders(t *testing.T, bin, home string, b bigSession) map[string]float64 {
	out := map[string]float64{}
	for name, args := range map[string][]string{
		"why":  {"why", "incident-report", "--session", filepath.Dir(b.journal)},
		"show": {"show", "--json", filepath.Dir(b.journal)},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env, cmd.Stdout = home, procEnv(home), io.Discard
		var errOut strings.Builder
		cmd.Stderr = &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("skillet %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
		}
		out[name+"_kb"], out[name+"_cpu_ms"] = float64(maxRSS(cmd)), cpuMS(cmd)
		t.Logf("%s: peak %d MiB, CPU %.0f ms", name, maxRSS(cmd)>>10, cpuMS(cmd))
	}
	return out
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	// on disk before the clock starts: a reopened session syncs its
	// journal, and a copy's pages still in memory would make that sync
	// write the whole file, which no journal written long ago does
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
