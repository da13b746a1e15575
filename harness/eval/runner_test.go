package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"skillet/harness"
	"skillet/harness/config"
	"skillet/harness/eval/evaltest"
	"skillet/harness/event"
	"skillet/harness/llm"
	"skillet/skills"
)

// library writes skills alpha, beta, gamma and delta; delta is too long
// for the max_skill_chars the tests set, so its loads are refused.
func library(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	write := func(name, desc, body string) {
		dir := filepath.Join(root, name)
		os.MkdirAll(dir, 0o755)
		text := fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n%s\n", name, desc, body)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("alpha", "Rotate logs and check disks on the alpha cluster.", "Do alpha things.")
	write("beta", "Summarize reports for the beta team.", "Do beta things.")
	write("gamma", "Anything about gamma rays.", "Do gamma things.")
	write("delta", "A very long skill.", strings.Repeat("Long text. ", 400))
	return root
}

// harnessFor opens sessions over the library against the endpoint, as the
// command does: the run's catalogue order as the config's [[skills]].
func harnessFor(t testing.TB, root, url string) (SessionFunc, []string) {
	t.Helper()
	return harnessWith(t, root, url, 2000)
}

// harnessWith is harnessFor with max_skill_chars at maxChars.
func harnessWith(t testing.TB, root, url string, maxChars int) (SessionFunc, []string) {
	t.Helper()
	cat := skills.NewCatalog([]skills.Root{{Dir: root}}, nil)
	if _, err := cat.Refresh(); err != nil {
		t.Fatal(err)
	}
	client, err := llm.New(llm.Config{BaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	base := config.Default()
	base.Session.MaxSkillChars = maxChars
	var names []string
	for _, sk := range cat.All() {
		if sk.Valid() {
			names = append(names, sk.Name)
		}
	}
	return func(spec RunSpec, on func(event.Event)) (Session, error) {
		cfg := *base
		cfg.Skills = make([]config.SkillRef, 0, len(spec.Order))
		for _, n := range spec.Order {
			cfg.Skills = append(cfg.Skills, config.SkillRef{Name: n})
		}
		return harness.New(harness.Options{Config: &cfg, Catalog: cat, Model: client, ModelName: "scripted", Dir: spec.Dir, OnEvent: on, NewID: func() string { return spec.ID }})
	}, names
}

func manifest(names []string, plan Plan, qs ...Query) *Manifest {
	m := &Manifest{Queries: qs, Plan: plan, Catalogue: names, Model: "scripted"}
	for _, q := range qs {
		if !slices.ContainsFunc(m.Skills, func(s SkillInfo) bool { return s.Name == q.Skill }) {
			m.Skills = append(m.Skills, SkillInfo{Name: q.Skill})
		}
	}
	return m
}

func q(skill, text string, should bool) Query {
	return Query{Query: text, ShouldTrigger: should, Skill: skill}
}

func queryScore(t *testing.T, rep *Report, skill, text string) QueryScore {
	t.Helper()
	for _, s := range rep.Arms[0].Skills {
		for _, qs := range s.Queries {
			if s.Name == skill && qs.Query == text {
				return qs
			}
		}
	}
	t.Fatalf("no query %q of %s in the report", text, skill)
	return QueryScore{}
}

func skillScore(t *testing.T, rep *Report, name string) SkillScore {
	t.Helper()
	for _, s := range rep.Arms[0].Skills {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no skill %s in the report", name)
	return SkillScore{}
}

// The scripted answers, four runs each: rates, intervals, outcomes, skill
// metrics and confusion are known in advance.
var script = map[string][]evaltest.Decision{
	"alpha: rotate the logs":    {evaltest.Load("alpha"), evaltest.Load("alpha"), evaltest.Load("alpha"), evaltest.Load("alpha")},
	"alpha: check disk usage":   {evaltest.ToolLoad("bogus_tool", "alpha"), evaltest.Load("beta"), evaltest.Answer(), evaltest.Load("alpha")},
	"alpha: what's the weather": {evaltest.Answer(), evaltest.Answer(), evaltest.Load("alpha"), evaltest.Answer()},
	// the error is replaced by a fifth run, which scores
	"beta: summarize the report":  {evaltest.Load("beta"), evaltest.Fail(), evaltest.Load("gamma"), evaltest.Load("gamma"), evaltest.Load("gamma")},
	"beta: unrelated chatter":     {evaltest.Answer(), evaltest.Answer(), evaltest.Answer(), evaltest.Answer()},
	"delta: needs the long skill": {evaltest.Load("delta"), evaltest.Load("delta"), evaltest.Answer(), evaltest.Load("delta")},
}

var scriptQueries = []Query{
	q("alpha", "alpha: rotate the logs", true),
	q("alpha", "alpha: check disk usage", true),
	q("alpha", "alpha: what's the weather", false),
	q("beta", "beta: summarize the report", true),
	q("beta", "beta: unrelated chatter", false),
	q("delta", "delta: needs the long skill", true),
}

func TestExecute_ScriptedRunsGiveKnownRatesIntervalsAndConfusion(t *testing.T) {
	srv := evaltest.New(script)
	defer srv.Close()
	srv.ThrottleEvery = 7 // 429s with Retry-After-Ms: the client waits and retries
	open, names := harnessFor(t, library(t), srv.URL)
	dir := t.TempDir()
	m := manifest(names, Plan{Runs: 4, MinRuns: 3, MaxRuns: 10, Seed: 7, Arms: []string{""}}, scriptQueries...)
	out, err := Execute(context.Background(), Options{Dir: dir, Manifest: m, Workers: 3, NewSession: open})
	if err != nil {
		t.Fatal(err)
	}
	if out.Stopped != "" || len(out.Runs) != 25 {
		t.Fatalf("stopped %q after %d runs, want 25 runs (24 and one replacing an error)", out.Stopped, len(out.Runs))
	}
	if srv.Throttled() == 0 {
		t.Fatal("the server never answered 429: the test did not exercise retries")
	}
	rep := Score(m, out.Runs)

	type want struct {
		skill, query   string
		runs, triggers int
		lo, hi         float64
		pass           bool
		verdict        string
		errors         int
		outcomes       map[string]int
	}
	for _, w := range []want{
		{"alpha", "alpha: rotate the logs", 4, 4, 0.5101, 1, true, VerdictPass, 0, map[string]int{OutcomeTriggered: 4}},
		{"alpha", "alpha: check disk usage", 4, 2, 0.1500, 0.8500, true, VerdictUndetermined, 0,
			map[string]int{OutcomeToolFirst: 1, OutcomeOtherSkill: 1, OutcomeAnswered: 1, OutcomeTriggered: 1}},
		{"alpha", "alpha: what's the weather", 4, 1, 0.0456, 0.6994, true, VerdictUndetermined, 0, map[string]int{OutcomeAnswered: 3, OutcomeTriggered: 1}},
		{"beta", "beta: summarize the report", 4, 1, 0.0456, 0.6994, false, VerdictUndetermined, 1,
			map[string]int{OutcomeTriggered: 1, OutcomeOtherSkill: 3, OutcomeError: 1}},
		{"beta", "beta: unrelated chatter", 4, 0, 0, 0.4899, true, VerdictPass, 0, map[string]int{OutcomeAnswered: 4}},
		{"delta", "delta: needs the long skill", 4, 0, 0, 0.4899, false, VerdictFail, 0, map[string]int{OutcomeRefused: 3, OutcomeAnswered: 1}},
	} {
		got := queryScore(t, rep, w.skill, w.query)
		if got.Runs != w.runs || got.Triggers != w.triggers || got.Pass != w.pass || got.Verdict != w.verdict || got.Errors != w.errors ||
			!near(got.Low, w.lo) || !near(got.High, w.hi) || fmt.Sprint(got.Outcomes) != fmt.Sprint(w.outcomes) {
			t.Errorf("%s: got runs %d triggers %d [%.4f, %.4f] pass %v %s errors %d %v\nwant runs %d triggers %d [%.4f, %.4f] pass %v %s errors %d %v",
				w.query, got.Runs, got.Triggers, got.Low, got.High, got.Pass, got.Verdict, got.Errors, got.Outcomes,
				w.runs, w.triggers, w.lo, w.hi, w.pass, w.verdict, w.errors, w.outcomes)
		}
	}
	// tool first, then the load: triggered, and the tool is named
	for _, c := range queryScore(t, rep, "alpha", "alpha: check disk usage").Cells {
		if c.Outcome == OutcomeToolFirst && c.Detail != "bogus_tool, then loaded" {
			t.Errorf("tool_first detail %q", c.Detail)
		}
	}
	for _, c := range queryScore(t, rep, "delta", "delta: needs the long skill").Cells {
		if c.Outcome == OutcomeRefused && c.Detail != "max_skill_chars" {
			t.Errorf("refused_load names %q, want max_skill_chars", c.Detail)
		}
	}

	alpha := skillScore(t, rep, "alpha")
	if alpha.TP != 6 || alpha.FN != 2 || alpha.FP != 1 || alpha.TN != 3 || !near(alpha.Precision, 6.0/7) || !near(alpha.Recall, 0.75) ||
		!near(alpha.F1, 0.8) || !near(alpha.Accuracy, 0.75) || alpha.Passed != 3 || !near(alpha.HijackRate, 1.0/8) {
		t.Errorf("alpha: %+v", alpha)
	}
	beta := skillScore(t, rep, "beta")
	if beta.TP != 1 || beta.FN != 3 || beta.TN != 4 || beta.FP != 0 || !near(beta.Recall, 1.0/4) || !near(beta.HijackRate, 3.0/4) || beta.Passed != 1 {
		t.Errorf("beta: %+v", beta)
	}
	c := rep.Arms[0].Confusion
	wantCols := []string{"alpha", "beta", "delta", OtherSkill, NoSkill}
	wantCounts := [][]int{{6, 1, 0, 0, 1}, {0, 1, 0, 3, 0}, {0, 0, 0, 0, 4}}
	if fmt.Sprint(c.Cols) != fmt.Sprint(wantCols) || fmt.Sprint(c.Counts) != fmt.Sprint(wantCounts) {
		t.Errorf("confusion %v %v, want %v %v", c.Cols, c.Counts, wantCols, wantCounts)
	}
	if rep.Errors != 1 || rep.Runs != 25 {
		t.Errorf("totals: %d runs, %d errors", rep.Runs, rep.Errors)
	}

	// Every run is a session journal; re-scoring from the journals alone
	// gives the same report.
	runs, err := ReadRuns(dir)
	if err != nil || len(runs) != 25 {
		t.Fatalf("runs file: %d runs, %v", len(runs), err)
	}
	again, problems := Rescore(dir, m, runs)
	if len(problems) > 0 {
		t.Fatalf("rescoring: %v", problems)
	}
	if a, b := fmt.Sprint(Score(m, again).Arms), fmt.Sprint(rep.Arms); a != b {
		t.Errorf("re-scored report differs:\n%s\n%s", a, b)
	}
}

func TestExecute_OrderIsShuffledPerRunFromTheSeed(t *testing.T) {
	srv := evaltest.New(map[string][]evaltest.Decision{"alpha: x": {evaltest.Load("alpha")}})
	defer srv.Close()
	open, names := harnessFor(t, library(t), srv.URL)
	m := manifest(names, Plan{Runs: 6, Seed: 3, Arms: []string{""}}, q("alpha", "alpha: x", true))
	out, err := Execute(context.Background(), Options{Dir: t.TempDir(), Manifest: m, Workers: 2, NewSession: open})
	if err != nil {
		t.Fatal(err)
	}
	orders := map[string]bool{}
	ranks := map[int]bool{}
	for _, r := range out.Runs {
		orders[strings.Join(r.Order, ",")] = true
		ranks[r.Result.Rank] = true
		if want := Shuffle(names, 3, "", 0, r.N); !slices.Equal(want, r.Order) {
			t.Errorf("run %d order %v, want %v from the seed", r.N, r.Order, want)
		}
		if r.Result.Listed != len(names) {
			t.Errorf("run %d listed %d skills, want %d", r.N, r.Result.Listed, len(names))
		}
	}
	if len(orders) < 3 || len(ranks) < 2 {
		t.Errorf("six runs saw %d orders and %d ranks of alpha: not shuffled", len(orders), len(ranks))
	}
}

func TestExecute_AutoRunsUntilTheIntervalClears(t *testing.T) {
	noisy := []evaltest.Decision{}
	for range 6 {
		noisy = append(noisy, evaltest.Load("alpha"), evaltest.Answer())
	}
	srv := evaltest.New(map[string][]evaltest.Decision{
		"alpha: clear":  {evaltest.Load("alpha")},
		"alpha: noisy":  noisy,
		"alpha: absent": {evaltest.Answer()},
	})
	defer srv.Close()
	open, names := harnessFor(t, library(t), srv.URL)
	m := manifest(names, Plan{MinRuns: 3, MaxRuns: 10, Seed: 1, Arms: []string{""}},
		q("alpha", "alpha: clear", true), q("alpha", "alpha: noisy", true), q("alpha", "alpha: absent", false))
	out, err := Execute(context.Background(), Options{Dir: t.TempDir(), Manifest: m, Workers: 3, NewSession: open})
	if err != nil {
		t.Fatal(err)
	}
	rep := Score(m, out.Runs)
	for _, w := range []struct {
		query   string
		runs    int
		verdict string
	}{
		// the confidence sequence holds 0.5 until 6 of 6
		{"alpha: clear", 6, VerdictPass},
		{"alpha: noisy", 10, VerdictUndetermined},
		{"alpha: absent", 6, VerdictPass},
	} {
		got := queryScore(t, rep, "alpha", w.query)
		if got.Runs != w.runs || got.Verdict != w.verdict || srv.Served(w.query) != w.runs {
			t.Errorf("%s: %d runs (%d served), %s; want %d runs, %s", w.query, got.Runs, srv.Served(w.query), got.Verdict, w.runs, w.verdict)
		}
	}
}

func TestExecute_RoutingOnlyStopsAfterTheFirstModelCall(t *testing.T) {
	srv := evaltest.New(map[string][]evaltest.Decision{
		"alpha: tool then load": {evaltest.ToolLoad("bogus_tool", "alpha")},
		"alpha: load":           {evaltest.Load("alpha")},
	})
	defer srv.Close()
	open, names := harnessFor(t, library(t), srv.URL)
	m := manifest(names, Plan{Runs: 3, Seed: 1, MaxSteps: 1, RoutingOnly: true, Arms: []string{""}},
		q("alpha", "alpha: tool then load", true), q("alpha", "alpha: load", true))
	out, err := Execute(context.Background(), Options{Dir: t.TempDir(), Manifest: m, Workers: 2, NewSession: open})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != 6 {
		t.Errorf("the server got %d requests for 6 runs capped at one call each", srv.Requests())
	}
	for _, r := range out.Runs {
		res := r.Result
		if res.ModelCalls != 1 || res.Error != "" {
			t.Errorf("run %s: %d model calls, error %q", r.Session, res.ModelCalls, res.Error)
		}
		switch m.Queries[r.Query].Query {
		case "alpha: tool then load":
			if res.Outcome != OutcomeToolFirst || res.Triggered || res.FirstTool != "bogus_tool" {
				t.Errorf("capped tool-first run: %+v", res)
			}
		default:
			// the load of the first call ran; the call after it did not
			if res.Outcome != OutcomeTriggered || !res.Triggered {
				t.Errorf("capped load run: %+v", res)
			}
		}
	}
}

func TestExecute_InterruptKeepsFinishedRunsAndResumeCompletes(t *testing.T) {
	srv := evaltest.New(script)
	defer srv.Close()
	open, names := harnessFor(t, library(t), srv.URL)
	dir := t.TempDir()
	m := manifest(names, Plan{Runs: 4, Seed: 7, Arms: []string{""}}, scriptQueries...)
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	out, err := Execute(ctx, Options{Dir: dir, Manifest: m, Workers: 3, NewSession: open, Progress: func(p Progress) {
		if p.Done >= 7 {
			once.Do(cancel)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Stopped != StoppedInterrupted || len(out.Runs) < 7 || len(out.Runs) >= 25 {
		t.Fatalf("stopped %q with %d runs", out.Stopped, len(out.Runs))
	}
	kept, _ := ReadRuns(dir)
	if len(kept) != len(out.Runs) {
		t.Fatalf("%d runs on disk, %d finished", len(kept), len(out.Runs))
	}
	m2, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	out2, err := Execute(context.Background(), Options{Dir: dir, Manifest: m2, Workers: 3, NewSession: open})
	if err != nil {
		t.Fatal(err)
	}
	if len(out2.Runs) != 25 || out2.Stopped != "" {
		t.Fatalf("resumed: %d runs, stopped %q", len(out2.Runs), out2.Stopped)
	}
	seen := map[string]bool{}
	for _, r := range out2.Runs {
		if seen[r.Session] {
			t.Errorf("run %s recorded twice", r.Session)
		}
		seen[r.Session] = true
		if _, err := os.Stat(JournalPath(dir, r.Session)); err != nil {
			t.Errorf("run %s has no journal: %v", r.Session, err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, SessionsDir))
	if len(entries) != 25 {
		t.Errorf("%d session folders, want 25 (no leftovers of interrupted runs)", len(entries))
	}
	// the scripted counts are per query, whatever the interruption: the
	// resumed eval reaches the same answers
	rep := Score(m2, out2.Runs)
	if g := queryScore(t, rep, "alpha", "alpha: rotate the logs"); g.Triggers != 4 {
		t.Errorf("after resume: %d/4 triggers", g.Triggers)
	}
}

func TestExecute_BudgetAndFailingEndpointStopCleanly(t *testing.T) {
	t.Run("budget", func(t *testing.T) {
		srv := evaltest.New(map[string][]evaltest.Decision{"alpha: x": {evaltest.Answer()}})
		defer srv.Close()
		open, names := harnessFor(t, library(t), srv.URL)
		m := manifest(names, Plan{Runs: 10, Arms: []string{""}}, q("alpha", "alpha: x", true))
		out, err := Execute(context.Background(), Options{Dir: t.TempDir(), Manifest: m, Workers: 1, Budget: 350, NewSession: open})
		if err != nil {
			t.Fatal(err)
		}
		if out.Stopped != StoppedBudget || len(out.Runs) != 4 {
			t.Errorf("stopped %q after %d runs of 100 tokens, want budget after 4", out.Stopped, len(out.Runs))
		}
	})
	t.Run("failing endpoint", func(t *testing.T) {
		srv := evaltest.New(map[string][]evaltest.Decision{"alpha: x": {evaltest.Fail()}})
		defer srv.Close()
		open, names := harnessFor(t, library(t), srv.URL)
		m := manifest(names, Plan{Runs: 10, Arms: []string{""}}, q("alpha", "alpha: x", true))
		dir := t.TempDir()
		out, err := Execute(context.Background(), Options{Dir: dir, Manifest: m, Workers: 2, NewSession: open})
		if err != nil {
			t.Fatal(err)
		}
		// a 400 may be the query's own: the eval goes on until the
		// errors span its queries (here the one) twice over
		if out.Stopped != StoppedFailing || !strings.Contains(out.Failure, "scripted failure") || len(out.Runs) < 2*failFast || len(out.Runs) > 2*failFast+1 {
			t.Errorf("stopped %q after %d runs, failure %q", out.Stopped, len(out.Runs), out.Failure)
		}
		if kept, _ := ReadRuns(dir); len(kept) != len(out.Runs) {
			t.Errorf("finished runs lost: %d kept of %d", len(kept), len(out.Runs))
		}
	})
}

func TestExecute_AAArmsRunEveryQueryTwice(t *testing.T) {
	srv := evaltest.New(map[string][]evaltest.Decision{"alpha: x": {evaltest.Load("alpha"), evaltest.Answer()}})
	defer srv.Close()
	open, names := harnessFor(t, library(t), srv.URL)
	m := manifest(names, Plan{Runs: 3, Arms: []string{"A", "B"}}, q("alpha", "alpha: x", true))
	out, err := Execute(context.Background(), Options{Dir: t.TempDir(), Manifest: m, Workers: 2, NewSession: open})
	if err != nil {
		t.Fatal(err)
	}
	rep := Score(m, out.Runs)
	if len(out.Runs) != 6 || len(rep.Arms) != 2 {
		t.Fatalf("%d runs, %d arms", len(out.Runs), len(rep.Arms))
	}
	total := 0
	for _, a := range rep.Arms {
		total += a.Skills[0].Queries[0].Triggers
		if a.Skills[0].Queries[0].Runs != 3 {
			t.Errorf("arm %s: %d runs", a.Name, a.Skills[0].Queries[0].Runs)
		}
	}
	// the first decision loads, the rest answer: one trigger across arms
	if total != 1 {
		t.Errorf("%d triggers across both arms, want 1", total)
	}
}

func TestExecute_OtherSkillFirstThenTheSkillIsToolFirstAndTriggered(t *testing.T) {
	srv := evaltest.New(map[string][]evaltest.Decision{
		"alpha: both": {evaltest.LoadLoad("beta", "alpha")},
		"alpha: tool": {evaltest.Tool("bogus_tool")},
	})
	defer srv.Close()
	open, names := harnessFor(t, library(t), srv.URL)
	m := manifest(names, Plan{Runs: 1, Arms: []string{""}}, q("alpha", "alpha: both", true), q("alpha", "alpha: tool", true))
	out, err := Execute(context.Background(), Options{Dir: t.TempDir(), Manifest: m, Workers: 1, NewSession: open})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Runs {
		res := r.Result
		switch r.Query {
		case 0:
			if !res.Triggered || res.Outcome != OutcomeToolFirst || res.FirstTool != "load_skill(beta)" || !res.Followed || !slices.Equal(res.Loaded, []string{"beta", "alpha"}) {
				t.Errorf("beta then alpha: %+v", res)
			}
		case 1:
			if res.Triggered || res.Outcome != OutcomeToolFirst || res.FirstTool != "bogus_tool" || res.Followed {
				t.Errorf("a tool and no load: %+v", res)
			}
		}
	}
}

func TestExecute_ExpectAndWeightsScoreRouting(t *testing.T) {
	srv := evaltest.New(map[string][]evaltest.Decision{
		"alpha: only alpha": {evaltest.LoadLoad("beta", "alpha")},
		"alpha: plain":      {evaltest.Load("alpha")},
	})
	defer srv.Close()
	open, names := harnessFor(t, library(t), srv.URL)
	strict := q("alpha", "alpha: only alpha", true)
	strict.Expect = &Expect{MustInclude: []string{"alpha"}, MustNotInclude: []string{"beta"}, MaxSkills: 1}
	strict.Weight, strict.Type = 3, TypeExplicit
	m := manifest(names, Plan{Runs: 4, Arms: []string{""}}, strict, q("alpha", "alpha: plain", false))
	out, err := Execute(context.Background(), Options{Dir: t.TempDir(), Manifest: m, Workers: 2, NewSession: open})
	if err != nil {
		t.Fatal(err)
	}
	rep := Score(m, out.Runs)
	g := queryScore(t, rep, "alpha", "alpha: only alpha")
	// it triggers every time (skill-creator's pass), but beta loads too:
	// the routing check fails every run, and so does the verdict
	if !g.Pass || g.Triggers != 4 || g.ExpectMet == nil || *g.ExpectMet != 0 || g.Verdict != VerdictFail {
		t.Errorf("expect: pass %v triggers %d met %v verdict %s", g.Pass, g.Triggers, g.ExpectMet, g.Verdict)
	}
	// the strict row (weight 3) passes skill-creator's rule, the should-not
	// row (weight 1) fails it
	if s := skillScore(t, rep, "alpha"); s.Passed != 1 || !near(s.WeightedPass, 0.75) || s.VerdictFail != 2 {
		t.Errorf("skill: %+v", s)
	} else if s.ByType[TypeExplicit] != (TypeCount{Passed: 1, Total: 1}) || len(s.ByType) != 1 {
		t.Errorf("by type: %v", s.ByType)
	}
}

// Progress keeps each query's score between runs; after the last run it
// says what scoring every run afresh says.
func TestExecute_ProgressAgreesWithTheScore(t *testing.T) {
	srv := evaltest.New(script)
	defer srv.Close()
	open, names := harnessFor(t, library(t), srv.URL)
	m := manifest(names, Plan{Runs: 3, Seed: 3, Arms: []string{""}}, scriptQueries...)
	var mu sync.Mutex
	var last Progress
	calls := 0
	out, err := Execute(context.Background(), Options{Dir: t.TempDir(), Manifest: m, Workers: 2, NewSession: open, Progress: func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Done > last.Done || calls == 0 {
			last = p
		}
		calls++
	}})
	if err != nil {
		t.Fatal(err)
	}
	rep := Score(m, out.Runs)
	passing := 0
	for _, sk := range rep.Arms[0].Skills {
		passing += sk.Passed
	}
	if calls != len(out.Runs) || last.Done != len(out.Runs) || last.Passing != passing || last.Errors != rep.Errors || last.Decided != len(m.Queries) {
		t.Errorf("%d progress calls, last %+v; want %d runs, %d passing, %d errors, %d decided",
			calls, last, len(out.Runs), passing, rep.Errors, len(m.Queries))
	}
}

// An errored run is replaced and never counted; a query whose runs keep
// failing ends in error once it reaches the cap, while the others go on.
func TestExecute_ErroredRunsAreReplacedUpToTheCap(t *testing.T) {
	srv := evaltest.New(map[string][]evaltest.Decision{
		"alpha: flaky":  {evaltest.Fail(), evaltest.Load("alpha"), evaltest.Fail(), evaltest.Load("alpha")},
		"alpha: broken": {evaltest.FailWith(500, "upstream overloaded")},
		"alpha: fine":   {evaltest.Answer()},
	})
	defer srv.Close()
	open, names := harnessFor(t, library(t), srv.URL)
	m := manifest(names, Plan{Runs: 4, MaxErrors: 3, Arms: []string{""}},
		q("alpha", "alpha: flaky", true), q("alpha", "alpha: broken", true), q("alpha", "alpha: fine", false))
	out, err := Execute(context.Background(), Options{Dir: t.TempDir(), Manifest: m, Workers: 2, NewSession: open})
	if err != nil {
		t.Fatal(err)
	}
	if out.Stopped != "" {
		t.Fatalf("stopped %q: one broken query must not stop the eval", out.Stopped)
	}
	rep := Score(m, out.Runs)
	flaky := queryScore(t, rep, "alpha", "alpha: flaky")
	if flaky.Runs != 4 || flaky.Errors != 2 || flaky.Triggers != 4 || flaky.Verdict != VerdictPass {
		t.Errorf("flaky: %d scored runs, %d errors, %d triggers, %s; want 4, 2, 4, pass", flaky.Runs, flaky.Errors, flaky.Triggers, flaky.Verdict)
	}
	broken := queryScore(t, rep, "alpha", "alpha: broken")
	if broken.Runs != 0 || broken.Errors != 3 || broken.Verdict != VerdictError || srv.Served("alpha: broken") != 3 {
		t.Errorf("broken: %d runs, %d errors, %s, %d served; want 0, 3 (the cap), error", broken.Runs, broken.Errors, broken.Verdict, srv.Served("alpha: broken"))
	}
	if s := skillScore(t, rep, "alpha"); s.VerdictError != 1 || s.VerdictPass != 2 {
		t.Errorf("alpha: %d error, %d pass verdicts", s.VerdictError, s.VerdictPass)
	}
}

// An endpoint that refuses every request (401) stops the eval at its
// first run, with the error.
func TestExecute_AnUnauthorizedEndpointStopsAtOnce(t *testing.T) {
	srv := evaltest.New(map[string][]evaltest.Decision{"alpha: x": {evaltest.FailWith(401, "invalid api key")}, "alpha: y": {evaltest.FailWith(401, "invalid api key")}})
	defer srv.Close()
	open, names := harnessFor(t, library(t), srv.URL)
	m := manifest(names, Plan{Runs: 5, Arms: []string{""}}, q("alpha", "alpha: x", true), q("alpha", "alpha: y", true))
	out, err := Execute(context.Background(), Options{Dir: t.TempDir(), Manifest: m, Workers: 1, NewSession: open})
	if err != nil {
		t.Fatal(err)
	}
	if out.Stopped != StoppedFailing || len(out.Runs) != 1 || !strings.Contains(out.Failure, "401") {
		t.Errorf("stopped %q after %d runs, failure %q; want failing endpoint after 1", out.Stopped, len(out.Runs), out.Failure)
	}
}

// A provider answering three requests at once and 429 beyond: eight
// workers come down, every query gets its runs, and the workers come back
// with successes.
func TestExecute_RateLimitsLowerTheWorkers(t *testing.T) {
	srv := evaltest.New(map[string][]evaltest.Decision{"alpha: a": {evaltest.Answer()}, "alpha: b": {evaltest.Answer()}, "alpha: c": {evaltest.Answer()}})
	defer srv.Close()
	srv.Concurrency, srv.Delay = 3, 10*time.Millisecond
	open, names := harnessFor(t, library(t), srv.URL)
	m := manifest(names, Plan{Runs: 20, Arms: []string{""}}, q("alpha", "alpha: a", true), q("alpha", "alpha: b", true), q("alpha", "alpha: c", true))
	var mu sync.Mutex
	least, rose := 8, false
	out, err := Execute(context.Background(), Options{Dir: t.TempDir(), Manifest: m, Workers: 8, NewSession: open, Progress: func(p Progress) {
		mu.Lock()
		if p.Workers > least {
			rose = true
		}
		least = min(least, p.Workers)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	rep := Score(m, out.Runs)
	for _, qs := range skillScore(t, rep, "alpha").Queries {
		if qs.Runs != 20 {
			t.Errorf("%s: %d scored runs (%d errors), want 20", qs.Query, qs.Runs, qs.Errors)
		}
	}
	if srv.OverLimit() == 0 {
		t.Fatal("the server never refused a request: the test did not exercise the limit")
	}
	if least > 4 {
		t.Errorf("the workers never came down from 8 on 429s: least %d", least)
	}
	if !rose {
		t.Errorf("the workers never came back after successes: least %d", least)
	}
}

// An endpoint that worked and then refuses every request stops the eval
// after a few of its failures, not after every query's error cap.
func TestExecute_AnEndpointGoneMidEvalStops(t *testing.T) {
	srv := evaltest.New(nil)
	defer srv.Close()
	var mu sync.Mutex
	served := 0
	srv.Decide = func(query, system string) evaltest.Decision {
		mu.Lock()
		defer mu.Unlock()
		if served++; served > 5 {
			return evaltest.FailWith(401, "key revoked")
		}
		return evaltest.Answer()
	}
	open, names := harnessFor(t, library(t), srv.URL)
	var qs []Query
	for i := range 6 {
		qs = append(qs, q("alpha", fmt.Sprintf("alpha: q%d", i), false))
	}
	m := manifest(names, Plan{Runs: 5, Arms: []string{""}}, qs...)
	out, err := Execute(context.Background(), Options{Dir: t.TempDir(), Manifest: m, Workers: 1, NewSession: open})
	if err != nil {
		t.Fatal(err)
	}
	if out.Stopped != StoppedFailing || out.Failing != failFast || len(out.Runs) != 5+failFast || !strings.Contains(out.Failure, "key revoked") {
		t.Errorf("stopped %q after %d runs, failing %d, failure %q; want failing endpoint after %d", out.Stopped, len(out.Runs), out.Failing, out.Failure, 5+failFast)
	}
}
