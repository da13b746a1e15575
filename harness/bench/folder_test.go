package bench_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"skillet/harness/bench"
	"skillet/harness/bench/benchtest"
)

// TestReadFolderScoresAsTheRunsDid: a benchmark's folder read back gives
// the statistics the runs gave — with its checks read from
// eval_metadata.json, an eval of plain expectations and no grader "not
// graded" — after the folder was moved too.
func TestReadFolderScoresAsTheRunsDid(t *testing.T) {
	evals := strings.Replace(scriptedEvals, "\n]}", `,
 {"id": 5, "prompt": "Say hello for eval two, graded by a model", "expectations": ["The answer greets"]}
]}`, 1)
	dir := writeSkill(t, evals)
	a := &agent{third: map[bool]int{}}
	srv := benchtest.New(a.reply)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "b")
	s := suite(t, dir)
	configs := bench.Configurations(bench.WithoutSkill)
	runs, err := bench.Execute(context.Background(), bench.Options{Out: out, Suites: []*bench.Suite{s}, Configurations: configs,
		Runs: 3, Workers: 3, NewSession: sessions(t, dir, srv.URL), Checks: &bench.CheckRunner{}})
	if err != nil {
		t.Fatal(err)
	}
	gradable := func(e bench.Eval) bool { return len(e.Checks) > 0 }
	want := bench.Summarize([]*bench.Suite{s}, configs, runs, gradable)
	m := &bench.Manifest{Skills: []string{skillName}, SkillDirs: map[string]string{skillName: dir}, Baseline: bench.WithoutSkill,
		Runs: 3, Model: "demo", Demo: true}
	must(t, bench.WriteManifest(out, m))
	moved := filepath.Join(filepath.Dir(out), "moved")
	must(t, os.Rename(out, moved))

	f, err := bench.ReadFolder(moved)
	if err != nil {
		t.Fatal(err)
	}
	if f.Missing != 0 || len(f.Runs) != len(runs) {
		t.Fatalf("read %d runs, %d missing; want %d, none", len(f.Runs), f.Missing, len(runs))
	}
	got := f.Report()
	if g, w := jsonOf(t, got.Skills), jsonOf(t, want); g != w {
		t.Errorf("read back:\n%s\nwant:\n%s", g, w)
	}
	if v := got.Skills[0].Evals[3].Verdict; v != bench.VerdictUngraded {
		t.Errorf("eval 5 (no checks, no grader) is %s", v)
	}
	if c := f.Suites[0].Evals.Evals[2].Checks; len(c) != 2 || c[0].Kind != bench.KindJSONPath || c[0].Pointer == nil || *c[0].Pointer != "/verdict/ok" {
		t.Errorf("eval 3's checks read back as %+v", c)
	}
	for _, r := range f.Runs {
		if !strings.HasPrefix(r.Journal, moved) {
			t.Errorf("journal %s is not in the moved folder", r.Journal)
		}
	}

	// a run taken out is missing, and the statistics have one run less
	must(t, os.Remove(filepath.Join(bench.RunDir(moved, skillName, 1, bench.WithSkill, 2), bench.GradingFile)))
	f, err = bench.ReadFolder(moved)
	if err != nil {
		t.Fatal(err)
	}
	if f.Missing != 1 || f.Report().Skills[0].Evals[0].Configs[0].Runs != 2 {
		t.Errorf("missing %d, eval 1 with the skill has %d runs; want 1 and 2", f.Missing, f.Report().Skills[0].Evals[0].Configs[0].Runs)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
