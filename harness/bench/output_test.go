package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"skillet/harness/bench"
	"skillet/harness/bench/benchtest"
)

// scoredBench runs the scripted benchmark and writes its reports.
func scoredBench(t *testing.T) (string, *bench.Report) {
	t.Helper()
	dir := writeSkill(t, scriptedEvals)
	a := &agent{third: map[bool]int{}}
	srv := benchtest.New(a.reply)
	t.Cleanup(srv.Close)
	out := t.TempDir()
	s := suite(t, dir)
	configs := []string{bench.WithSkill, bench.WithoutSkill}
	runs, err := bench.Execute(context.Background(), bench.Options{Out: out, Suites: []*bench.Suite{s}, Configurations: configs,
		Runs: 5, Workers: 3, NewSession: sessions(t, dir, srv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	rep := &bench.Report{Created: time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC), Model: "scripted", Runs: 5, Configurations: configs,
		Baseline: bench.WithoutSkill, Interval: bench.IntervalName, Skills: bench.Summarize([]*bench.Suite{s}, configs, runs, nil)}
	if err := bench.WriteAll(out, rep); err != nil {
		t.Fatal(err)
	}
	return out, rep
}

// paths lists a JSON document's field paths ("runs[].result.pass_rate").
func paths(v any, prefix string, into map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			into[p] = true
			paths(e, p, into)
		}
	case []any:
		for _, e := range x {
			paths(e, prefix+"[]", into)
		}
	}
}

func pathsOf(t *testing.T, file string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	m := map[string]bool{}
	paths(v, "", m)
	return m
}

func TestWriteBenchmark_HasEveryFieldOfSkillCreatorsExample(t *testing.T) {
	out, _ := scoredBench(t)
	ours := pathsOf(t, filepath.Join(out, skillName, bench.BenchmarkFile))
	var missing []string
	for p := range pathsOf(t, filepath.Join("testdata", "skill-creator", "benchmark.json")) {
		if !ours[p] {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("benchmark.json lacks skill-creator's fields: %s", strings.Join(missing, ", "))
	}
	// grading.json: the fields the viewer and aggregate_benchmark read
	grading := pathsOf(t, filepath.Join(bench.RunDir(out, skillName, 1, bench.WithSkill, 1), bench.GradingFile))
	for p := range pathsOf(t, filepath.Join("testdata", "skill-creator", "grading.json")) {
		top := strings.TrimSuffix(strings.SplitN(p, ".", 2)[0], "[]")
		if top == "claims" || top == "user_notes_summary" || top == "eval_feedback" || strings.HasPrefix(p, "execution_metrics.tool_calls.") {
			continue // the grader agent's own notes; per-tool counts are the run's own tools
		}
		if !grading[p] {
			t.Errorf("grading.json lacks %s", p)
		}
	}
}

func TestWriteBenchmark_RunSummaryHoldsOnlyTheConfigurationsAndDelta(t *testing.T) {
	out, rep := scoredBench(t)
	data, err := os.ReadFile(filepath.Join(out, skillName, bench.BenchmarkFile))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		RunSummary json.RawMessage `json:"run_summary"`
		Runs       []struct {
			Configuration string `json:"configuration"`
			RunNumber     int    `json:"run_number"`
			Result        struct {
				PassRate float64 `json:"pass_rate"`
				Total    int     `json:"total"`
			} `json:"result"`
		} `json:"runs"`
		Skillet struct {
			Verdict string `json:"verdict"`
			Evals   []struct {
				Verdict string `json:"verdict"`
				Delta   struct{ Low, High float64 }
			} `json:"evals"`
			Journals []struct{ Journal string } `json:"journals"`
		} `json:"skillet"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw.RunSummary))
	var keys []string
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	if strings.Join(keys, ",") != "with_skill,without_skill,delta" {
		t.Errorf("run_summary keys %v: the viewer reads each but delta as a configuration, the first as the skill's", keys)
	}
	if len(raw.Runs) != 30 {
		t.Errorf("%d runs", len(raw.Runs))
	}
	for _, r := range raw.Runs {
		if r.Configuration != bench.WithSkill && r.Configuration != bench.WithoutSkill || r.RunNumber < 1 || r.Result.Total < 1 || r.Result.PassRate < 0 || r.Result.PassRate > 1 {
			t.Errorf("run %+v", r)
		}
	}
	if raw.Skillet.Verdict != rep.Skills[0].Verdict || len(raw.Skillet.Evals) != 3 || raw.Skillet.Evals[0].Verdict != bench.VerdictHelps {
		t.Errorf("skillet: %+v", raw.Skillet)
	}
	if len(raw.Skillet.Journals) != 30 {
		t.Errorf("%d journals", len(raw.Skillet.Journals))
	}
	for _, j := range raw.Skillet.Journals {
		if _, err := os.Stat(filepath.Join(out, j.Journal)); err != nil {
			t.Errorf("journal %s: %v", j.Journal, err)
		}
	}
	// the review viewer's layout: outputs/ and eval_metadata.json per run
	run := bench.RunDir(out, skillName, 1, bench.WithSkill, 1)
	if b, err := os.ReadFile(filepath.Join(run, "outputs", "report.md")); err != nil || string(b) != "GOOD report" {
		t.Errorf("outputs/report.md: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(run, "eval_metadata.json")); err != nil {
		t.Error(err)
	}
}

func TestJUnit_ValidatesAgainstTheSchema(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("no xmllint on PATH: install Debian's libxml2-utils to validate the JUnit XML")
	}
	out, _ := scoredBench(t)
	path := filepath.Join(out, bench.JUnitFile)
	x, _ := os.ReadFile(path)
	res, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("..", "eval", "report", "testdata", "junit-10.xsd"), path).CombinedOutput()
	if err != nil {
		t.Fatalf("xmllint: %v\n%s\n%s", err, res, x)
	}
	s := string(x)
	if strings.Count(s, "<testcase ") != 3 || strings.Count(s, "<skipped ") != 2 || strings.Contains(s, "<failure") {
		t.Errorf("want three tests, two skipped (no evidence), none failed:\n%s", s)
	}
}

func TestHTML_RendersInHeadlessChromium(t *testing.T) {
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("no chromium on PATH: install Debian's chromium package to run the HTML report test")
	}
	out, _ := scoredBench(t)
	page := filepath.Join(out, bench.HTMLFile)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+page)
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	d := string(dom)
	for _, want := range []string{
		`<h2 id="skill-report-style">report-style</h2>`,
		`<span class="badge helps">helps</span>`,
		`<span class="badge none">no evidence</span>`,
		`file_contains report.md "GOOD"`,
		"GOOD report", "plain report",
		"report.md (12 bytes) does not hold",
		`<b>with_skill</b>: 5/5 runs pass`,
		`<b>without_skill</b>: 0/5 runs pass`,
		`<b>flaky</b>`,
	} {
		if !strings.Contains(d, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if n := strings.Count(d, `class="col"`); n != 6 {
		t.Errorf("%d configuration columns, want 2 per eval", n)
	}
	if strings.Contains(string(must2(os.ReadFile(page))), "http") && strings.Contains(string(must2(os.ReadFile(page))), "<link") {
		t.Error("the page loads outside resources")
	}
}

func must2(b []byte, _ error) []byte { return b }

func TestHTML_EscapesWhatTheRunsWrote(t *testing.T) {
	run := &bench.RunResult{Skill: "s", EvalID: 1, Configuration: bench.WithSkill, Attempt: 1,
		Outcome: bench.Outcome{Answer: "done <script>alert(1)</script>", Changed: []bench.Changed{{Path: "x.html", Op: "create", Content: "<img src=x onerror=alert(2)>"}}},
		Grades:  []bench.Grade{{Text: "answer_contains \"<b>\"", Passed: false, Evidence: "<i>no</i>", By: "check"}}}
	sr := &bench.SkillReport{Skill: "s", Evals: []*bench.EvalReport{{ID: 1, Name: "Eval 1", Prompt: "<p>",
		Configs: []bench.EvalConfig{{Configuration: bench.WithSkill, Runs: 1}}, Verdict: bench.VerdictError}}, Runs: []*bench.RunResult{run}}
	page, err := bench.HTML(&bench.Report{Model: "m", Runs: 1, Configurations: []string{bench.WithSkill, bench.WithoutSkill}, Skills: []*bench.SkillReport{sr}})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script>alert", "<img src=x", "<i>no</i>", `answer_contains "<b>"`} {
		if strings.Contains(string(page), bad) {
			t.Errorf("the page holds %q as markup", bad)
		}
	}
	if !strings.Contains(string(page), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the answer is not shown escaped")
	}
}
