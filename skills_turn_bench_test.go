//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// writeSkills makes n valid skills in dir, each a folder with a SKILL.md
// of a name, a description and a short body.
func writeSkills(tb testing.TB, dir string, n int) {
	tb.Helper()
	for i := range n {
		name := fmt.Sprintf("skill-%05d", i)
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: Reviews ledger batch %d for duplicate postings and reports the accounts involved.\n---\n\n# Batch %d\n\nRead the batch, list the duplicates, say which accounts they touch.\n", name, i, i)
		if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte(md), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// runCPU runs `skillet run` over the skills in dir with turns messages
// against srv and returns the CPU (user and system) the process used.
func runCPU(tb testing.TB, bin, dir, srvURL string, turns int) time.Duration {
	tb.Helper()
	tmp := tb.TempDir()
	args := []string{"run", "--skills", dir, "--base-url", srvURL + "/v1", "--session-dir", filepath.Join(tmp, "sessions")}
	for i := range turns {
		args = append(args, fmt.Sprintf("check ledger batch %d for duplicates", i))
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = tmp, procEnv(tmp, "OPENAI_API_KEY="+testAPIKey)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("skillet run over %s: %v\n%s", dir, err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// TestRunTurnCPUSkills measures the CPU one turn costs the whole process
// at 7, 1,000 and 10,000 skills: `skillet run` with 43 messages against
// one with 3, against a loopback endpoint, the difference over 40 turns
// (start-up, the catalog's first reads and the setting up of its watch
// on the third cancel out). Runs alternate
// across sizes so load on the machine falls on all. It runs only with
// SKILLET_BENCH_SKILLS=1 (about a minute):
//
//	SKILLET_BENCH_SKILLS=1 SKILLET_BENCH_ROUNDS=3 go test -run TestRunTurnCPUSkills -v .
func TestRunTurnCPUSkills(t *testing.T) {
	if os.Getenv("SKILLET_BENCH_SKILLS") == "" {
		t.Skip("set SKILLET_BENCH_SKILLS=1 to measure CPU per turn at 10,000 skills (about a minute)")
	}
	bin := skilletBinary(t)
	srv := streamingModel(func() streamPlan { return streamPlan{reply: "No duplicates in that batch.", chunks: 1} })
	defer srv.Close()
	sizes := []int{7, 1000, 10000}
	dirs := map[int]string{}
	for _, n := range sizes {
		dirs[n] = filepath.Join(t.TempDir(), strconv.Itoa(n))
		writeSkills(t, dirs[n], n)
	}
	rounds := 3
	if n, err := strconv.Atoi(os.Getenv("SKILLET_BENCH_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	const turns = 40
	per := map[int]time.Duration{}
	for range rounds {
		for _, n := range sizes {
			few := runCPU(t, bin, dirs[n], srv.URL, 3)
			many := runCPU(t, bin, dirs[n], srv.URL, 3+turns)
			d := (many - few) / turns
			per[n] += d
			t.Logf("%6d skills: 3 turns %v, %d turns %v: %v a turn", n, few, 3+turns, many, d)
		}
	}
	r := time.Duration(rounds)
	t.Logf("CPU per turn (mean of %d): 7 skills %v, 1,000 %v, 10,000 %v", rounds, per[7]/r, per[1000]/r, per[10000]/r)
	t.Logf("10,000/1,000 %.1f× (linear: 10×), 10,000/7 %.1f×", float64(per[10000])/float64(per[1000]), float64(per[10000])/float64(per[7]))
}
