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

// BenchmarkTUIResume10k is the whole process reopening a session of
// 10,000 messages in tmux: the time until the screen shows the first
// frame, and until it shows the reopened transcript with every pane
// filled, beside a new session's first frame with every pane filled and
// `skillet run --offline hello` measured in the same run. The ratios are
// to that run. Run it with -benchtime 5x; building the session takes
// about 15 s.
func BenchmarkTUIResume10k(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux is not installed (apt-get install tmux): skipped")
	}
	tmp := b.TempDir()
	bin := filepath.Join(tmp, "skillet")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir, build.Env = repoDir, buildEnv
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build skillet: %v\n%s", err, out)
	}
	const turns = 2145 // 10,012 messages with the demo model
	var msgs strings.Builder
	for i := range turns {
		fmt.Fprintf(&msgs, []string{"review account ACC-%d for anomalies\n", "write an incident report for outage %d\n", "get account activity for ACC-%d\n"}[i%3], i)
	}
	made := filepath.Join(tmp, "made")
	gen := exec.Command(bin, "run", "--offline", "--session-dir", made, "-")
	gen.Dir, gen.Env, gen.Stdin = tmp, procEnv(tmp), strings.NewReader(msgs.String())
	if out, err := gen.CombinedOutput(); err != nil {
		b.Fatalf("skillet run: %v\n%s", err, out)
	}
	ents, err := os.ReadDir(made)
	if err != nil || len(ents) != 1 {
		b.Fatalf("want one session in %s: %v %v", made, ents, err)
	}
	journal, err := os.ReadFile(filepath.Join(made, ents[0].Name(), "journal.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	env := strings.Join(procEnv(tmp), " ")
	last := fmt.Sprintf("turn %d", turns)
	var first, filled, freshFilled, hello time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		run := exec.Command(bin, "run", "--offline", "--session-dir", filepath.Join(tmp, "hello"), "hello")
		run.Dir, run.Env = tmp, procEnv(tmp)
		if out, err := run.CombinedOutput(); err != nil {
			b.Fatalf("skillet run hello: %v\n%s", err, out)
		}
		hello += time.Since(start)

		// a copy each time: a reopened session appends to its journal
		dir := filepath.Join(tmp, fmt.Sprintf("resume-%d", i))
		if err := os.MkdirAll(filepath.Join(dir, "s"), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "s", "journal.jsonl"), journal, 0o600); err != nil {
			b.Fatal(err)
		}
		f, full := screenTimes(b, tmp, fmt.Sprintf("env -i %s %s --offline --session-dir %s --resume %s", env, bin, dir, filepath.Join(dir, "s")),
			func(s string) bool {
				return strings.Contains(s, last) && strings.Contains(s, "load_skill") && strings.Contains(s, "whole next request")
			})
		first += f
		filled += full
		_, full = screenTimes(b, tmp, fmt.Sprintf("env -i %s %s --offline --session-dir %s", env, bin, filepath.Join(tmp, "fresh")),
			func(s string) bool {
				return strings.Contains(s, "load_skill") && strings.Contains(s, "whole next request")
			})
		freshFilled += full
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d.Milliseconds()) / n }
	b.ReportMetric(ms(first), "first-frame-ms")
	b.ReportMetric(ms(filled), "filled-ms")
	b.ReportMetric(ms(freshFilled), "new-session-filled-ms")
	b.ReportMetric(ms(hello), "run-hello-ms")
	b.ReportMetric(float64(first)/float64(hello), "first/run-hello")
	b.ReportMetric(float64(filled)/float64(hello), "filled/run-hello")
	b.ReportMetric(float64(freshFilled)/float64(hello), "new-filled/run-hello")
}

// screenTimes starts command in a tmux of its own and returns when the
// first frame showed and when filled held of the screen.
func screenTimes(b *testing.B, dir, command string, filled func(string) bool) (first, full time.Duration) {
	b.Helper()
	sock := fmt.Sprintf("skillet-bench-%d-%d", os.Getpid(), time.Now().UnixNano())
	tmux := func(args ...string) string {
		out, _ := exec.Command("tmux", append([]string{"-L", sock}, args...)...).Output()
		return string(out)
	}
	defer tmux("kill-server")
	start := time.Now()
	if err := exec.Command("tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "160", "-y", "48", "-c", dir, command+"; sleep 600").Run(); err != nil {
		b.Fatalf("tmux: %v", err)
	}
	for deadline := start.Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		scr := tmux("capture-pane", "-p", "-t", "t")
		if first == 0 && strings.Contains(scr, "╭") {
			first = time.Since(start)
		}
		if first != 0 && filled(scr) {
			return first, time.Since(start)
		}
	}
	b.Fatalf("the screen never filled:\n%s", tmux("capture-pane", "-p", "-t", "t"))
	return 0, 0
}
