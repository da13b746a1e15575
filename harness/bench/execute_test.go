package bench_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"skillet/harness"
	"skillet/harness/bench"
	"skillet/harness/bench/benchtest"
	"skillet/harness/config"
	"skillet/harness/eval"
	"skillet/harness/event"
	"skillet/harness/llm"
	"skillet/harness/rulebook"
	"skillet/skills"
)

const skillName = "report-style"

// writeSkill writes the skill under test, with its evals.
func writeSkill(t testing.TB, evals string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lib", skillName)
	if err := os.MkdirAll(filepath.Join(dir, "evals", "files"), 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: " + skillName + "\ndescription: Write reports in the house style.\n---\n\nMark every report with GOOD.\n"
	must(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "evals", "files", "data.csv"), []byte("a,b\n1,2\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "evals", "evals.json"), []byte(evals), 0o644))
	return dir
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// sessions opens runs as the command does: each configuration over a
// catalog of its own (the skill alone, or nothing), the workspace a copy
// of the eval's inputs, every tool approved.
func sessions(t testing.TB, skillDir, url string) bench.SessionFunc {
	t.Helper()
	roots := t.TempDir()
	cats := map[string]*skills.Catalog{}
	for _, c := range []string{bench.WithSkill, bench.WithoutSkill} {
		root := filepath.Join(roots, c)
		must(t, os.MkdirAll(root, 0o755))
		if c == bench.WithSkill {
			if _, err := bench.CopySkill(skillDir, root, skillName); err != nil {
				t.Fatal(err)
			}
		}
		cat := skills.NewCatalog([]skills.Root{{Dir: root}}, nil)
		if _, err := cat.Refresh(); err != nil {
			t.Fatal(err)
		}
		cats[c] = cat
	}
	client, err := llm.New(llm.Config{BaseURL: url, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return func(spec bench.RunSpec, on func(event.Event)) (eval.Session, error) {
		cfg := config.Default()
		cfg.Workspace = spec.Inputs
		return harness.New(harness.Options{Config: cfg, Catalog: cats[spec.Configuration], Model: client, ModelName: "scripted",
			Dir: spec.Dir, OnEvent: on, NewID: func() string { return bench.SessionID }, ApproveAll: true})
	}
}

func suite(t testing.TB, dir string) *bench.Suite {
	t.Helper()
	ev, err := bench.SkillEvals(dir, skillName)
	if err != nil {
		t.Fatal(err)
	}
	return &bench.Suite{Skill: skillName, Dir: dir, Evals: ev}
}

const scriptedEvals = `{"skill_name": "report-style", "evals": [
 {"id": 1, "prompt": "Write the report for eval one", "files": ["evals/files/data.csv"],
  "expectations": [],
  "checks": [{"kind": "file_contains", "path": "report.md", "text": "GOOD"}, {"kind": "file_exists", "path": "data.csv"}]},
 {"id": 2, "prompt": "Say hello for eval two", "checks": [{"kind": "answer_contains", "text": "hello"}]},
 {"id": 3, "prompt": "Write the summary for eval three",
  "checks": [{"kind": "json_path", "path": "out/summary.json", "pointer": "/verdict/ok", "equals": true},
             {"kind": "tool_called", "name": "write", "arguments": {"path": "out/summary.json"}}]}
]}`

// agent is the scripted model: with the skill it does eval one right
// always, eval three right in 3 of 5 runs; without it eval one never and
// eval three in 1 of 5; eval two the same either way.
type agent struct {
	mu    sync.Mutex
	third map[bool]int
}

func (a *agent) reply(in benchtest.Request) benchtest.Reply {
	withSkill := strings.Contains(in.Body, skillName)
	loaded := strings.Contains(in.Body, "Mark every report with GOOD")
	switch {
	case strings.Contains(in.User, "eval one"):
		if withSkill && !loaded {
			return benchtest.Reply{Calls: []benchtest.Call{{Name: rulebook.ToolLoadSkill, Args: fmt.Sprintf(`{"name":%q}`, skillName)}}}
		}
		if !strings.Contains(in.Body, `report.md`) {
			content := "plain report"
			if loaded {
				content = "GOOD report"
			}
			return benchtest.Reply{Calls: []benchtest.Call{{Name: "write", Args: fmt.Sprintf(`{"path":"report.md","content":%q}`, content)}}}
		}
		return benchtest.Reply{Text: "Wrote report.md."}
	case strings.Contains(in.User, "eval four"):
		if withSkill {
			return benchtest.Reply{Text: "Greetings."}
		}
		return benchtest.Reply{Text: "hello"}
	case strings.Contains(in.User, "eval two"):
		return benchtest.Reply{Text: "hello there"}
	case strings.Contains(in.User, "eval three"):
		if in.Step == 0 {
			a.mu.Lock()
			n := a.third[withSkill]
			a.third[withSkill]++
			a.mu.Unlock()
			ok := (withSkill && n%5 < 3) || (!withSkill && n%5 < 1)
			return benchtest.Reply{Calls: []benchtest.Call{{Name: "write", Args: fmt.Sprintf(`{"path":"out/summary.json","content":"{\"verdict\":{\"ok\":%v}}"}`, ok)}}}
		}
		return benchtest.Reply{Text: "Wrote the summary."}
	}
	return benchtest.Reply{Text: "no script"}
}

// hurtsEval is one the skill makes worse.
const hurtsEval = `{"id": 4, "prompt": "Greet for eval four", "checks": [{"kind": "answer_contains", "text": "hello"}]}`

func TestExecute_VerdictsComeOutAsScripted(t *testing.T) {
	dir := writeSkill(t, strings.Replace(scriptedEvals, "\n]}", ",\n"+hurtsEval+"\n]}", 1))
	a := &agent{third: map[bool]int{}}
	srv := benchtest.New(a.reply)
	defer srv.Close()
	out := t.TempDir()
	s := suite(t, dir)
	configs := []string{bench.WithSkill, bench.WithoutSkill}
	var progress []bench.Progress
	var pmu sync.Mutex
	runs, err := bench.Execute(context.Background(), bench.Options{Out: out, Suites: []*bench.Suite{s}, Configurations: configs,
		Runs: 5, Workers: 4, NewSession: sessions(t, dir, srv.URL), Checks: &bench.CheckRunner{},
		Progress: func(p bench.Progress) { pmu.Lock(); progress = append(progress, p); pmu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 40 {
		for _, r := range runs {
			if !r.Scored() {
				t.Log(r.Error)
			}
		}
		t.Fatalf("%d runs, want 4 evals × 2 configurations × 5", len(runs))
	}
	for _, r := range runs {
		if !r.Scored() {
			t.Fatalf("run %s/%d/%d errored: %s", r.Configuration, r.EvalID, r.Attempt, r.Error)
		}
	}
	reps := bench.Summarize([]*bench.Suite{s}, configs, runs, nil)
	sr := reps[0]
	want := []struct {
		verdict    string
		with, base int
	}{{bench.VerdictHelps, 5, 0}, {bench.VerdictNoEvidence, 5, 5}, {bench.VerdictNoEvidence, 3, 1}, {bench.VerdictHurts, 0, 5}}
	for i, w := range want {
		e := sr.Evals[i]
		if e.Verdict != w.verdict || e.Configs[0].Passed != w.with || e.Configs[1].Passed != w.base {
			t.Errorf("eval %d: %s %d/%d vs %d/%d, want %s %d vs %d", e.ID, e.Verdict, e.Configs[0].Passed, e.Configs[0].Runs,
				e.Configs[1].Passed, e.Configs[1].Runs, w.verdict, w.with, w.base)
		}
		if (e.Verdict == bench.VerdictHelps) != (e.Delta.Low > 0) || (e.Verdict == bench.VerdictHurts) != (e.Delta.High < 0) {
			t.Errorf("eval %d: verdict %s with interval [%.2f, %.2f]", e.ID, e.Verdict, e.Delta.Low, e.Delta.High)
		}
	}
	if e := sr.Evals[2]; !(e.Delta.Delta > 0 && e.Delta.Low < 0) || !e.Flaky {
		t.Errorf("eval 3: delta %.2f [%.2f, %.2f] flaky %v: want a positive delta whose interval holds 0, flaky", e.Delta.Delta, e.Delta.Low, e.Delta.High, e.Flaky)
	}
	// pooled 13/20 against 11/20: a skill that helps on one eval and hurts
	// on another shows no evidence overall
	if sr.Verdict != bench.VerdictNoEvidence || sr.Pooled.Low >= 0 || sr.Pooled.High <= 0 {
		t.Errorf("pooled %s [%.2f, %.2f], want no evidence (13/20 vs 11/20)", sr.Verdict, sr.Pooled.Low, sr.Pooled.High)
	}
	if len(sr.Flaky) != 1 || sr.Flaky[0] != "Eval 3" {
		t.Errorf("flaky %v, want [Eval 3]", sr.Flaky)
	}
	with := sr.Configs[0]
	if with.ModelCalls.Mean <= sr.Configs[1].ModelCalls.Mean || with.Tokens.Mean <= 0 || with.ToolCalls.Mean <= 0 {
		t.Errorf("with_skill costs %+v against %+v: the skill's load is one more call", with, sr.Configs[1])
	}
	last := progress[len(progress)-1]
	if last.Done != 40 || last.Total != 40 || len(progress) != 40 {
		t.Errorf("last progress %+v after %d reports", last, len(progress))
	}
	// the run's own files are in its workspace, and its journal is kept
	r := runs[0]
	if _, err := os.Stat(r.Journal); err != nil {
		t.Errorf("journal: %v", err)
	}
	if r.Outcome.Workspace == "" || !strings.HasPrefix(r.Outcome.Workspace, out) {
		t.Errorf("workspace %q not in the benchmark's folder", r.Outcome.Workspace)
	}
	// the skill's evals never reach the runs
	if strings.Contains(readAll(t, r.Journal), "file_contains") {
		t.Error("a run's journal holds the eval's checks")
	}
}

func readAll(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestExecute_ErroredRunsAreRunAgainAndResumeKeepsGradedOnes(t *testing.T) {
	dir := writeSkill(t, `{"skill_name":"report-style","evals":[{"id":7,"prompt":"Say hello for eval two","checks":[{"kind":"answer_contains","text":"hello"}]}]}`)
	var mu sync.Mutex
	calls := 0
	srv := benchtest.New(func(in benchtest.Request) benchtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls%3 == 0 {
			return benchtest.Reply{Status: 500}
		}
		return benchtest.Reply{Text: "hello"}
	})
	defer srv.Close()
	out := t.TempDir()
	s := suite(t, dir)
	opts := bench.Options{Out: out, Suites: []*bench.Suite{s}, Configurations: []string{bench.WithSkill, bench.WithoutSkill},
		Runs: 4, Workers: 1, NewSession: sessions(t, dir, srv.URL)}
	runs, err := bench.Execute(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	scored, errored := 0, 0
	for _, r := range runs {
		if r.Scored() {
			scored++
		} else {
			errored++
		}
	}
	if scored != 8 || errored == 0 {
		t.Fatalf("%d scored, %d errored: want 8 scored and the errors re-run", scored, errored)
	}
	rep := bench.Summarize([]*bench.Suite{s}, opts.Configurations, runs, nil)[0]
	e := rep.Evals[0]
	if e.Configs[0].Passed != 4 || e.Configs[1].Passed != 4 || e.Configs[0].Errors+e.Configs[1].Errors != errored {
		t.Errorf("errored runs counted as failures: %+v", e.Configs)
	}
	// resumed, nothing is left to run: the graded runs are read back
	before := srv.Requests()
	again, err := bench.Execute(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != before {
		t.Errorf("resume sent %d requests; everything was graded", srv.Requests()-before)
	}
	n := 0
	for _, r := range again {
		if r.Scored() {
			n++
		}
	}
	if n != 8 {
		t.Errorf("resume read back %d graded runs, want 8", n)
	}
}

func TestExecute_AnEvalThatAlwaysErrorsStopsAtTwiceItsRuns(t *testing.T) {
	dir := writeSkill(t, `{"skill_name":"report-style","evals":[{"id":1,"prompt":"anything","checks":[{"kind":"answer_contains","text":"x"}]}]}`)
	srv := benchtest.New(func(benchtest.Request) benchtest.Reply { return benchtest.Reply{Status: 500} })
	defer srv.Close()
	s := suite(t, dir)
	runs, err := bench.Execute(context.Background(), bench.Options{Out: t.TempDir(), Suites: []*bench.Suite{s},
		Configurations: []string{bench.WithSkill, bench.WithoutSkill}, Runs: 3, Workers: 2, NewSession: sessions(t, dir, srv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 12 {
		t.Errorf("%d attempts, want 2 × 3 per configuration", len(runs))
	}
	rep := bench.Summarize([]*bench.Suite{s}, []string{bench.WithSkill, bench.WithoutSkill}, runs, nil)[0]
	if rep.Evals[0].Verdict != bench.VerdictError || rep.Verdict != bench.VerdictError {
		t.Errorf("verdicts %s / %s, want error", rep.Evals[0].Verdict, rep.Verdict)
	}
}

func TestExecute_InterruptKeepsFinishedRuns(t *testing.T) {
	dir := writeSkill(t, scriptedEvals)
	a := &agent{third: map[bool]int{}}
	srv := benchtest.New(a.reply)
	srv.Delay = 20 * time.Millisecond
	defer srv.Close()
	out := t.TempDir()
	s := suite(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	done := 0
	opts := bench.Options{Out: out, Suites: []*bench.Suite{s}, Configurations: []string{bench.WithSkill, bench.WithoutSkill},
		Runs: 3, Workers: 2, NewSession: sessions(t, dir, srv.URL),
		Progress: func(p bench.Progress) {
			if done = p.Done; done >= 4 {
				cancel()
			}
		}}
	runs, err := bench.Execute(ctx, opts)
	if err == nil {
		t.Fatal("an interrupted benchmark reported no error")
	}
	if len(runs) < 4 || len(runs) >= 18 {
		t.Fatalf("%d runs kept after the interrupt", len(runs))
	}
	runs, err = bench.Execute(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 18 {
		t.Errorf("resumed to %d runs, want 18", len(runs))
	}
	for _, r := range runs {
		data, err := os.ReadFile(filepath.Join(bench.RunDir(out, r.Skill, r.EvalID, r.Configuration, r.Attempt), bench.GradingFile))
		if err != nil {
			t.Fatal(err)
		}
		var g map[string]json.RawMessage
		must(t, json.Unmarshal(data, &g))
		for _, k := range []string{"expectations", "summary", "execution_metrics", "timing", "skillet"} {
			if _, ok := g[k]; !ok {
				t.Errorf("grading.json lacks %s", k)
			}
		}
	}
}

func TestExecute_GraderFabricatingEvidenceFailsAndNonsenseIsAnError(t *testing.T) {
	dir := writeSkill(t, `{"skill_name":"report-style","evals":[
	 {"id":1,"prompt":"Say hello for eval two","expectations":["The answer greets the user"]},
	 {"id":2,"prompt":"Say hello again for eval two","expectations":["The answer is polite"]}]}`)
	srv := benchtest.New(func(in benchtest.Request) benchtest.Reply {
		if len(in.Tools) == 0 { // the grader
			if strings.Contains(in.User, "greets") {
				return benchtest.Reply{Text: `{"passed": true, "evidence": "Good morning, dear user"}`}
			}
			return benchtest.Reply{Text: "I think so."}
		}
		return benchtest.Reply{Text: "hello there"}
	})
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	s := suite(t, dir)
	configs := []string{bench.WithSkill, bench.WithoutSkill}
	runs, err := bench.Execute(context.Background(), bench.Options{Out: t.TempDir(), Suites: []*bench.Suite{s}, Configurations: configs,
		Runs: 2, Workers: 2, NewSession: sessions(t, dir, srv.URL), Grader: &bench.ModelGrader{Model: client, Name: "g"}})
	if err != nil {
		t.Fatal(err)
	}
	rep := bench.Summarize([]*bench.Suite{s}, configs, runs, nil)[0]
	first, second := rep.Evals[0], rep.Evals[1]
	if first.Configs[0].Runs != 2 || first.Configs[0].Passed != 0 || first.Verdict != bench.VerdictNoEvidence {
		t.Errorf("fabricated evidence: %+v %s", first.Configs, first.Verdict)
	}
	for _, r := range runs {
		if r.EvalID == 1 && (len(r.Grades) != 1 || !strings.Contains(r.Grades[0].Evidence, "not in the output")) {
			t.Errorf("grade %+v", r.Grades)
		}
	}
	if second.Configs[0].Runs != 0 || second.Configs[0].Errors != 4 || second.Verdict != bench.VerdictError {
		t.Errorf("nonsense grades: %+v %s; want errors (4 attempts each), never fails", second.Configs, second.Verdict)
	}
}

func TestExecute_RateLimitsLowerTheWorkersAndEveryRunScores(t *testing.T) {
	dir := writeSkill(t, `{"skill_name":"report-style","evals":[{"id":1,"prompt":"Say hello for eval two","checks":[{"kind":"answer_contains","text":"hello"}]}]}`)
	srv := benchtest.New(func(benchtest.Request) benchtest.Reply { return benchtest.Reply{Text: "hello"} })
	srv.Concurrency = 2
	srv.Delay = 30 * time.Millisecond
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL}) // retries 429s, as every session's client
	if err != nil {
		t.Fatal(err)
	}
	open := func(spec bench.RunSpec, on func(event.Event)) (eval.Session, error) {
		cat := skills.NewCatalog(nil, nil)
		return harness.New(harness.Options{Config: config.Default(), Catalog: cat, Model: client, ModelName: "scripted",
			Dir: spec.Dir, OnEvent: on, NewID: func() string { return bench.SessionID }, ApproveAll: true})
	}
	s := suite(t, dir)
	runs, err := bench.Execute(context.Background(), bench.Options{Out: t.TempDir(), Suites: []*bench.Suite{s},
		Configurations: []string{bench.WithSkill, bench.WithoutSkill}, Runs: 8, Workers: 8, NewSession: open})
	if err != nil {
		t.Fatal(err)
	}
	scored := 0
	for _, r := range runs {
		if r.Scored() {
			scored++
		} else if !strings.Contains(r.Error, "429") {
			t.Errorf("run errored: %s", r.Error)
		}
	}
	// a burst of 8 against a limit of 2 may run some out of retries; those
	// are run again, fewer at once
	if scored != 16 || srv.Throttled() == 0 || len(runs) > 24 {
		t.Errorf("%d scored of %d attempts, %d throttled requests: want 16 through a limit that refused some", scored, len(runs), srv.Throttled())
	}
}
