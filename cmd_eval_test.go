package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"skillet/harness/event"
	"skillet/harness/journal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"skillet/harness/eval"
	"skillet/harness/eval/evaltest"
	"skillet/harness/eval/report"
)

// evalLibrary writes two skills and returns the skills folder.
func evalLibrary(t *testing.T, tmp string) string {
	t.Helper()
	root := filepath.Join(tmp, "lib")
	for name, desc := range map[string]string{
		"alpha": "Rotate logs and check disks on the alpha cluster.",
		"beta":  "Summarize reports for the beta team.",
	} {
		os.MkdirAll(filepath.Join(root, name), 0o755)
		os.WriteFile(filepath.Join(root, name, "SKILL.md"), []byte(fmt.Sprintf("---\nname: %s\ndescription: %s\n---\nDo %s things.\n", name, desc, name)), 0o644)
	}
	return root
}

func writeQueries(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readResults(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	return m
}

func TestEvalExitStatusFollowsVerdicts(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	srv := evaltest.New(map[string][]evaltest.Decision{
		"rotate the alpha logs": {evaltest.Load("alpha")},
		"beta summary please":   {evaltest.Load("beta")},
		"sometimes alpha":       {evaltest.Load("alpha"), evaltest.Answer()},
	})
	defer srv.Close()
	qs := writeQueries(t, filepath.Join(tmp, "q.json"), `[
	  {"query": "rotate the alpha logs", "should_trigger": true},
	  {"query": "beta summary please", "should_trigger": false}
	]`)
	out := filepath.Join(tmp, "ev1")
	// beta's query is a should-not for alpha that always loads another skill:
	// it passes; alpha's passes too.
	code, stdout, stderr := runCmd(t, "", "eval", "alpha", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--runs", "4", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	res := readResults(t, out)
	if res["skill_name"] != "alpha" || !strings.Contains(res["description"].(string), "Rotate logs") {
		t.Errorf("skill-creator fields: %v %v", res["skill_name"], res["description"])
	}
	sum := res["summary"].(map[string]any)
	if sum["total"].(float64) != 2 || sum["passed"].(float64) != 2 || sum["failed"].(float64) != 0 {
		t.Errorf("summary %v", sum)
	}
	row := res["results"].([]any)[0].(map[string]any)
	for _, k := range []string{"query", "should_trigger", "trigger_rate", "triggers", "runs", "pass", "interval", "verdict", "outcomes", "offered_ranks"} {
		if _, ok := row[k]; !ok {
			t.Errorf("results[0] lacks %q", k)
		}
	}
	if row["runs"].(float64) != 4 || row["triggers"].(float64) != 4 || row["verdict"] != "pass" {
		t.Errorf("row %v", row)
	}

	// an undetermined query: exit 0, and 1 with --fail-on undetermined
	qs2 := writeQueries(t, filepath.Join(tmp, "q2.json"), `[{"query": "sometimes alpha", "should_trigger": true, "skill": "alpha"}]`)
	code, stdout, _ = runCmd(t, "", "eval", "--queries", qs2, "--skills", lib, "--base-url", srv.URL, "--runs", "3", "--out", filepath.Join(tmp, "ev2"))
	if code != 0 || !strings.Contains(stdout, "undetermined") {
		t.Errorf("undetermined: exit %d\n%s", code, stdout)
	}
	code, _, _ = runCmd(t, "", "eval", "report", "--fail-on", "undetermined", filepath.Join(tmp, "ev2"))
	if code != 1 {
		t.Errorf("--fail-on undetermined: exit %d, want 1", code)
	}

	// a failing query: exit 1
	qs3 := writeQueries(t, filepath.Join(tmp, "q3.json"), `[{"query": "rotate the alpha logs", "should_trigger": false, "skill": "alpha"}]`)
	code, stdout, _ = runCmd(t, "", "eval", "--queries", qs3, "--skills", lib, "--base-url", srv.URL, "--out", filepath.Join(tmp, "ev3"))
	if code != 1 || !strings.Contains(stdout, "fail ") {
		t.Errorf("failing query: exit %d\n%s", code, stdout)
	}
	// JUnit: the failed verdict is a failure
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	b, _ := os.ReadFile(filepath.Join(tmp, "ev3", report.JUnitFile))
	if err := xml.Unmarshal(b, &suites); err != nil || suites.Tests != 1 || suites.Failures != 1 {
		t.Errorf("junit: %v %+v\n%s", err, suites, b)
	}
}

// untimed drops the wall times ("seconds") from decoded JSON: they are
// the one part of a report a seed does not fix.
func untimed(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k != "seconds" {
				out[k] = untimed(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = untimed(e)
		}
		return out
	}
	return v
}

func TestEvalBadInputIsAUsageError(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	notJSON := writeQueries(t, filepath.Join(tmp, "bad.json"), "[{\"query\": \"x\",\n \"should_trigger\": tru}]")
	noField := writeQueries(t, filepath.Join(tmp, "nofield.json"), `[{"query": "x"}]`)
	good := writeQueries(t, filepath.Join(tmp, "good.json"), `[{"query": "x", "should_trigger": true}]`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"alpha", "--queries", notJSON}, "not JSON: line 2"},
		{[]string{"alpha", "--queries", noField}, `row 1: no "should_trigger"`},
		{[]string{"alhpa", "--queries", good}, `no skill "alhpa" is enabled; closest: alpha`},
		{[]string{"--queries", good}, "names no skill"},
		{[]string{"alpha"}, "skill alpha has no evals/triggers.json"},
		{[]string{}, "name the SKILL to evaluate"},
		{[]string{"alpha", "--queries", good, "--runs", "0"}, "--runs 0: want auto or a whole number"},
		{[]string{"alpha", "--queries", good, "--fail-on", "maybe"}, "--fail-on maybe"},
		{[]string{"alpha", "--queries", filepath.Join(tmp, "missing.json")}, "no such file"},
		// concurrent runs cannot share one cassette
		{[]string{"alpha", "--queries", good, "--record", filepath.Join(tmp, "ev.jsonl")}, "flag provided but not defined: -record"},
		{[]string{"alpha", "--queries", good, "--replay", filepath.Join(tmp, "ev.jsonl")}, "flag provided but not defined: -replay"},
		{[]string{"alpha", "--queries", good, "--replay-tools"}, "flag provided but not defined: -replay-tools"},
	} {
		args := append([]string{"eval", "--offline", "--skills", lib}, c.args...)
		code, _, stderr := runCmd(t, "", args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "ev.jsonl")); err == nil {
		t.Errorf("a refused --record wrote its cassette")
	}
	// the built-in samples preload house-style
	if code, _, stderr := runCmd(t, "", "eval", "--offline", "house-style", "--queries", good); code != 2 || !strings.Contains(stderr, "skill house-style is preloaded") {
		t.Errorf("a preloaded skill: %d %q", code, stderr)
	}
	if code, _, stderr := runCmd(t, "", "eval", "report", filepath.Join(tmp, "nowhere")); code != 2 || !strings.Contains(stderr, "not an eval folder") {
		t.Errorf("report of a non-eval folder: %d %q", code, stderr)
	}
}

func TestEvalFailingEndpointStopsWithItsMessageAndKeepsRuns(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	srv := evaltest.New(map[string][]evaltest.Decision{"x": {evaltest.Fail()}})
	defer srv.Close()
	qs := writeQueries(t, filepath.Join(tmp, "q.json"), `[{"query": "x", "should_trigger": true}]`)
	out := filepath.Join(tmp, "ev")
	code, _, stderr := runCmd(t, "", "eval", "alpha", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--runs", "10", "--workers", "1", "--out", out)
	if code != 1 || !strings.Contains(stderr, "the endpoint failed the last") || !strings.Contains(stderr, "scripted failure") || !strings.Contains(stderr, "--resume "+out) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	runs, _ := eval.ReadRuns(out)
	if len(runs) == 0 {
		t.Fatal("the failed runs were not kept")
	}
}

func TestEvalOfflineDemoAndOfflineReport(t *testing.T) {
	isolate(t)
	qs := writeQueries(t, "q.json", `[
	  {"query": "review account ACC-1042 for anomalies", "should_trigger": true, "skill": "account-review"},
	  {"query": "write an incident report for yesterday's outage", "should_trigger": false, "skill": "account-review"},
	  {"query": "write an incident report for yesterday's outage", "should_trigger": true, "skill": "incident-report"}
	]`)
	code, stdout, stderr := runCmd(t, "", "eval", "--offline", "--queries", qs, "--runs", "3", "--seed", "5")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "offline demo model") {
		t.Errorf("the demo model is not named: %q", stderr)
	}
	// the default folder is under the state dir
	dirs, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_STATE_HOME"), "skillet", "evals", "*"))
	if len(dirs) != 1 {
		t.Fatalf("eval folders: %v", dirs)
	}
	first := readResults(t, dirs[0])
	// the demo model is deterministic: the same seed gives the same results
	code, _, _ = runCmd(t, "", "eval", "--offline", "--queries", qs, "--runs", "3", "--seed", "5", "--out", "again")
	if code != 0 {
		t.Fatal("second run failed")
	}
	second := readResults(t, "again")
	// runs are named and ordered from the seed, so the rows are identical
	if fmt.Sprint(untimed(first["results"])) != fmt.Sprint(untimed(second["results"])) {
		t.Errorf("the same seed gave different results:\n%v\n%v", first["results"], second["results"])
	}
	// re-scoring offline gives the same report, with no model
	os.Remove(filepath.Join("again", report.JSONFile))
	code, stdout, stderr = runCmd(t, "", "eval", "report", "again")
	if code != 0 || !strings.Contains(stdout, "account-review") {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if fmt.Sprint(untimed(readResults(t, "again")["results"])) != fmt.Sprint(untimed(second["results"])) {
		t.Error("eval report re-scored differently")
	}
	for _, f := range []string{report.HTMLFile, report.JUnitFile, eval.ManifestFile, eval.RunsFile} {
		if _, err := os.Stat(filepath.Join("again", f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
}

func TestEvalResumeSkipsFinishedRuns(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	srv := evaltest.New(map[string][]evaltest.Decision{"rotate the alpha logs": {evaltest.Load("alpha")}})
	defer srv.Close()
	qs := writeQueries(t, filepath.Join(tmp, "q.json"), `[{"query": "rotate the alpha logs", "should_trigger": true}]`)
	out := filepath.Join(tmp, "ev")
	// a budget of one run's tokens stops it after the first run
	code, _, stderr := runCmd(t, "", "eval", "alpha", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--runs", "5", "--workers", "1", "--budget", "150", "--out", out)
	if code != 1 || !strings.Contains(stderr, "--resume "+out) {
		t.Fatalf("budget stop: exit %d, stderr %q", code, stderr)
	}
	before, done := srv.Requests(), 0
	if runs, _ := eval.ReadRuns(out); len(runs) > 0 {
		done = len(runs)
	} else {
		t.Fatal("the run before the budget stop was not kept")
	}
	code, stdout, stderr := runCmd(t, "", "eval", "--resume", out)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	runs, _ := eval.ReadRuns(out)
	if len(runs) != 5 {
		t.Errorf("%d runs after resume, want 5", len(runs))
	}
	// two calls per run (the load, then the answer); the finished runs were
	// not run again
	if got := srv.Requests() - before; got != 2*(5-done) {
		t.Errorf("resume made %d requests, want %d", got, 2*(5-done))
	}
	if code, _, stderr := runCmd(t, "", "eval", "alpha", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--out", out); code != 2 || !strings.Contains(stderr, "already holds an eval") {
		t.Errorf("reusing --out: %d %q", code, stderr)
	}
}

// buildSkillet builds the real binary, for tests that send it signals.
func buildSkillet(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	wd, _ := os.Getwd()
	bin := filepath.Join(t.TempDir(), "skillet")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = wd
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// stopEval starts an eval of ten slow runs, sends it sig once three have
// finished, and checks that it kept them, wrote its report and said how
// to go on. It returns the eval's folder.
func stopEval(t *testing.T, bin, tmp string, sig os.Signal) string {
	t.Helper()
	lib := evalLibrary(t, tmp)
	srv := evaltest.New(map[string][]evaltest.Decision{"rotate the alpha logs": {evaltest.Load("alpha")}})
	srv.Delay = 50 * time.Millisecond
	t.Cleanup(srv.Close)
	qs := writeQueries(t, filepath.Join(tmp, "q.json"), `[{"query": "rotate the alpha logs", "should_trigger": true}]`)
	out := filepath.Join(tmp, "ev")
	cmd := exec.Command(bin, "eval", "alpha", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--runs", "10", "--workers", "2", "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		runs, _ := eval.ReadRuns(out)
		if len(runs) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no runs finished: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("%v: exit %v, want 1\n%s", sig, err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted by "+signalNames[sig]) || !strings.Contains(stderr.String(), "skillet eval --resume "+out) {
		t.Errorf("%v: stderr %q does not say how to resume", sig, stderr.String())
	}
	kept, _ := eval.ReadRuns(out)
	if len(kept) < 3 || len(kept) >= 10 {
		t.Fatalf("%v: %d runs kept", sig, len(kept))
	}
	if res := readResults(t, out); res["stopped"] != eval.StoppedInterrupted {
		t.Errorf("%v: results.json stopped = %v", sig, res["stopped"])
	}
	return out
}

func TestEvalSIGTERMAndSIGHUPKeepFinishedRunsAndWriteTheReport(t *testing.T) {
	bin := buildSkillet(t)
	for _, sig := range []os.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		stopEval(t, bin, isolate(t), sig)
	}
}

func TestEvalCtrlCKeepsFinishedRunsAndSaysHowToResume(t *testing.T) {
	bin := buildSkillet(t) // before isolate, so the build cache is the usual one
	out := stopEval(t, bin, isolate(t), os.Interrupt)
	code, stdout, errOut := runCmd(t, "", "eval", "--resume", out)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, errOut)
	}
	runs, _ := eval.ReadRuns(out)
	seen := map[int]bool{}
	for _, r := range runs {
		if seen[r.N] {
			t.Errorf("run %d twice", r.N)
		}
		seen[r.N] = true
	}
	if len(runs) != 10 || !strings.Contains(stdout, "10/10") {
		t.Errorf("%d runs after resume\n%s", len(runs), stdout)
	}
}

func TestEvalOptimizeKeepsTheBestByValidationAndWrites(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	srv := evaltest.New(nil)
	defer srv.Close()
	// the model loads alpha for its requests only once the description
	// says "GOOD"; near misses it leaves alone whatever the description
	srv.Decide = func(query, system string) evaltest.Decision {
		if strings.Contains(query, "near miss") || !strings.Contains(system, "GOOD alpha") {
			return evaltest.Answer()
		}
		return evaltest.Load("alpha")
	}
	// the second answer repeats the first: it is not scored again
	answers := []string{"<new_description>Still vague about alpha.</new_description>", "<new_description>Still  vague about alpha.</new_description>", "<new_description>GOOD alpha: rotate logs and check disks.</new_description>"}
	srv.Improve = func(prompt string) string {
		a := answers[0]
		if len(answers) > 1 {
			answers = answers[1:]
		}
		return a
	}
	var rows []string
	for i := range 5 {
		rows = append(rows, fmt.Sprintf(`{"query": "alpha request %d", "should_trigger": true}`, i), fmt.Sprintf(`{"query": "near miss %d", "should_trigger": false}`, i))
	}
	qs := writeQueries(t, filepath.Join(tmp, "q.json"), "["+strings.Join(rows, ",")+"]")
	out := filepath.Join(tmp, "opt")
	// the rows name no skill: --optimize's is theirs
	code, stdout, stderr := runCmd(t, "", "eval", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--runs", "3", "--optimize", "alpha", "--write", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var res eval.Optimization
	b, err := os.ReadFile(filepath.Join(out, "optimize.json"))
	if err != nil || json.Unmarshal(b, &res) != nil {
		t.Fatalf("optimize.json: %v", err)
	}
	if len(res.Train) != 6 || len(res.Validation) != 4 {
		t.Errorf("split %v / %v, want 6 train and 4 validation (60/40 of 5+5)", res.Train, res.Validation)
	}
	if len(res.Iterations) != 4 || !res.Improved || res.BestIter != 3 || !res.Iterations[3].Best {
		t.Fatalf("iterations: %+v", res)
	}
	if it := res.Iterations[2]; !strings.Contains(it.Note, "same description as iteration 1") || it.Train.Runs != 0 {
		t.Errorf("the repeated description: %+v", it)
	}
	if _, err := os.Stat(filepath.Join(out, "iter-2")); err == nil {
		t.Error("the repeated description was scored again")
	}
	// skill-creator's run_loop.py fields, for its generate_report.py
	if res.BestDescription != "GOOD alpha: rotate logs and check disks." || res.OriginalDescription != "Rotate logs and check disks on the alpha cluster." ||
		len(res.History) != 3 || res.History[2].Iteration != 3 || res.TrainSize != 6 || res.TestSize != 4 || res.IterationsRun != 3 {
		t.Errorf("skill-creator fields: best %q, original %q, %d history, sizes %d/%d", res.BestDescription, res.OriginalDescription, len(res.History), res.TrainSize, res.TestSize)
	}
	if h := res.History[0]; h.TrainTotal != 6 || h.TestTotal == nil || *h.TestTotal != 4 || len(h.TrainResults) != 6 || len(h.TestResults) != 4 || h.TrainResults[0].Runs != 3 {
		t.Errorf("history[0]: %+v", h)
	}
	if res.BestScore != "4/4" || res.BestTestScore == nil || *res.BestTestScore != "4/4" {
		t.Errorf("best_score %q", res.BestScore)
	}
	// skill-creator's own report generator reads the file, when its
	// scripts are at hand (SKILL_CREATOR_SCRIPTS=…/skill-creator/scripts)
	if scripts := os.Getenv("SKILL_CREATOR_SCRIPTS"); scripts != "" {
		cmd := exec.Command("python3", filepath.Join(scripts, "generate_report.py"), filepath.Join(out, "optimize.json"), "-o", filepath.Join(out, "sc.html"))
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("generate_report.py: %v\n%s", err, b)
		} else if page, _ := os.ReadFile(filepath.Join(out, "sc.html")); !strings.Contains(string(page), "GOOD alpha") {
			t.Error("generate_report.py's page lacks the best description")
		}
	}
	if v := res.Iterations[0].Validation; v.Correct != 6 || v.Runs != 12 {
		t.Errorf("original validation %d/%d runs, want 6/12 (near misses right, requests wrong)", v.Correct, v.Runs)
	}
	if v := res.Iterations[3].Validation; v.Correct != 12 {
		t.Errorf("best validation %d/%d", v.Correct, v.Runs)
	}
	prompts := srv.Prompts()
	if len(prompts) != 3 {
		t.Fatalf("%d improver prompts", len(prompts))
	}
	if !strings.Contains(prompts[1], "structurally different") || !strings.Contains(prompts[2], "structurally different") {
		t.Error("the prompts after no gain do not ask for a structurally different description")
	}
	for _, p := range prompts {
		for _, vi := range res.Validation {
			if text := res.Iterations[0].Queries[vi].Query; strings.Contains(p, fmt.Sprintf("%q", text)) {
				t.Errorf("a validation query reached the improver: %s", text)
			}
		}
	}
	if !strings.Contains(stdout, "+GOOD alpha: rotate logs and check disks.") || !strings.Contains(stdout, "-Rotate logs and check disks on the alpha cluster.") {
		t.Errorf("no diff in the output:\n%s", stdout)
	}
	skill, _ := os.ReadFile(filepath.Join(lib, "alpha", "SKILL.md"))
	if !strings.Contains(string(skill), "description: 'GOOD alpha: rotate logs and check disks.'") || !strings.Contains(string(skill), "Do alpha things.") {
		t.Errorf("--write: SKILL.md is now\n%s", skill)
	}
	if _, err := os.Stat(filepath.Join(out, "iter-3", report.HTMLFile)); err != nil {
		t.Errorf("iteration 3 has no report: %v", err)
	}
}

func TestEvalOptimizeNeedsBothKinds(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	qs := writeQueries(t, filepath.Join(tmp, "q.json"), `[{"query": "a", "should_trigger": true}, {"query": "b", "should_trigger": true}]`)
	code, _, stderr := runCmd(t, "", "eval", "--offline", "alpha", "--queries", qs, "--skills", lib, "--optimize", "alpha")
	if code != 2 || !strings.Contains(stderr, "--optimize needs queries of both kinds: 2 should trigger, 0 should not") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestEvalKeepsCredentialsOutOfItsFolder(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	srv := evaltest.New(map[string][]evaltest.Decision{"rotate the alpha logs": {evaltest.Load("alpha")}})
	defer srv.Close()
	const key, pass = "sk-eval-secret-0123456789", "url-pass-98765"
	t.Setenv("OPENAI_API_KEY", key)
	withCreds := strings.Replace(srv.URL, "http://", "http://user:"+pass+"@", 1)
	qs := writeQueries(t, filepath.Join(tmp, "q.json"), `[{"query": "rotate the alpha logs", "should_trigger": true}]`)
	out := filepath.Join(tmp, "ev")
	code, stdout, stderr := runCmd(t, "", "eval", "alpha", "--queries", qs, "--skills", lib, "--base-url", withCreds, "--runs", "3", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	files := 0
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		files++
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), key) || strings.Contains(string(b), pass) {
			t.Errorf("a credential reached %s", p)
		}
		return nil
	})
	if files < 6 {
		t.Fatalf("only %d files written", files)
	}
	if strings.Contains(stdout+stderr, pass) || strings.Contains(stdout+stderr, key) {
		t.Error("a credential reached the output")
	}
}

// --routing-only offers load_skill and nothing else: the recorded request
// of every run carries that one tool.
func TestEvalRoutingOnlyOffersTheLoadToolAlone(t *testing.T) {
	isolate(t)
	qs := writeQueries(t, "q.json", `[{"query": "review account ACC-1042 for anomalies", "should_trigger": true, "skill": "account-review"}]`)
	code, stdout, stderr := runCmd(t, "", "eval", "--offline", "--routing-only", "--queries", qs, "--runs", "3", "--out", "ev")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	journals, _ := filepath.Glob(filepath.Join("ev", "sessions", "*", "journal.jsonl"))
	if len(journals) != 3 {
		t.Fatalf("journals: %v", journals)
	}
	for _, j := range journals {
		f, err := os.Open(j)
		if err != nil {
			t.Fatal(err)
		}
		events, _, err := journal.Read(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		for _, e := range events {
			mc, ok := e.(*event.ModelCall)
			if !ok {
				continue
			}
			calls++
			var req struct {
				Tools []struct {
					Function struct{ Name string } `json:"function"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(mc.Request, &req); err != nil {
				t.Fatal(err)
			}
			if len(req.Tools) != 1 || req.Tools[0].Function.Name != "load_skill" {
				t.Fatalf("%s: the request offers %+v", j, req.Tools)
			}
		}
		if calls == 0 {
			t.Fatalf("%s: no model call", j)
		}
	}
}

// An endpoint that dies mid-eval: its errored runs are replaced up to the
// cap, the queries left without runs end in error, the exit status is 1
// with a summary saying so, and eval report agrees.
func TestEvalEndpointDyingMidEvalFailsTheEval(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	srv := evaltest.New(nil)
	defer srv.Close()
	var mu sync.Mutex
	served := 0
	srv.Decide = func(query, system string) evaltest.Decision {
		mu.Lock()
		defer mu.Unlock()
		served++
		if served > 6 {
			return evaltest.FailWith(500, "backend gone")
		}
		return evaltest.Answer()
	}
	var rows []string
	for i := range 4 {
		rows = append(rows, fmt.Sprintf(`{"query": "request %d", "should_trigger": false}`, i))
	}
	qs := writeQueries(t, filepath.Join(tmp, "q.json"), "["+strings.Join(rows, ",")+"]")
	out := filepath.Join(tmp, "ev")
	code, stdout, stderr := runCmd(t, "", "eval", "alpha", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--runs", "4", "--max-errors", "2", "--workers", "1", "--out", out)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "ended in error") || !strings.Contains(stderr, "backend gone") || !strings.Contains(stderr, "runs errored") {
		t.Errorf("stderr does not say what the errors cost:\n%s", stderr)
	}
	if !strings.Contains(stdout, "error        ") || strings.Contains(stdout, "0/0 [0.00, 1.00]") {
		t.Errorf("the summary shows no error verdict, or an empty query as undecided:\n%s", stdout)
	}
	res := readResults(t, out)
	errored := 0
	for _, r := range res["results"].([]any) {
		row := r.(map[string]any)
		if row["verdict"] == "error" {
			errored++
			if row["runs"].(float64) >= 4 || row["errors"].(float64) != 2 {
				t.Errorf("an error row: %v runs, %v errors", row["runs"], row["errors"])
			}
		}
	}
	if errored < 2 {
		t.Errorf("%d queries in error, want the ones the endpoint left without runs", errored)
	}
	if code, _, stderr := runCmd(t, "", "eval", "report", out); code != 1 || !strings.Contains(stderr, "ended in error") {
		t.Errorf("eval report: exit %d, stderr %q", code, stderr)
	}
}

// eval report on a folder whose eval stopped early exits 1 and names the
// queries that lack runs.
func TestEvalReportOfAnIncompleteFolderFails(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	srv := evaltest.New(map[string][]evaltest.Decision{"rotate the alpha logs": {evaltest.Load("alpha")}})
	defer srv.Close()
	qs := writeQueries(t, filepath.Join(tmp, "q.json"), `[{"query": "rotate the alpha logs", "should_trigger": true}]`)
	out := filepath.Join(tmp, "ev")
	if code, _, _ := runCmd(t, "", "eval", "alpha", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--runs", "5", "--workers", "1", "--budget", "150", "--out", out); code != 1 {
		t.Fatalf("budget stop: exit %d", code)
	}
	code, _, stderr := runCmd(t, "", "eval", "report", out)
	if code != 1 || !strings.Contains(stderr, "incomplete") || !strings.Contains(stderr, `"rotate the alpha logs" (1 of 5 scored runs)`) || !strings.Contains(stderr, "--resume "+out) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestEvalSaysWhichIntervalAndWarnsWhenNothingCanFail(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	srv := evaltest.New(map[string][]evaltest.Decision{"rotate the alpha logs": {evaltest.Load("alpha")}})
	defer srv.Close()
	qs := writeQueries(t, filepath.Join(tmp, "q.json"), `[{"query": "rotate the alpha logs", "should_trigger": true}]`)
	code, stdout, stderr := runCmd(t, "", "eval", "alpha", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--out", filepath.Join(tmp, "auto"))
	if code != 0 || !strings.Contains(stdout, "intervals: beta-binomial confidence sequence") || strings.Contains(stderr, "warning") {
		t.Errorf("auto: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if res := readResults(t, filepath.Join(tmp, "auto")); res["interval_method"] != eval.IntervalSequence {
		t.Errorf("results.json interval_method %v", res["interval_method"])
	}
	code, stdout, stderr = runCmd(t, "", "eval", "alpha", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--runs", "3", "--out", filepath.Join(tmp, "three"))
	if code != 0 || !strings.Contains(stderr, "warning: with --runs 3 no query can get the verdict fail") || !strings.Contains(stdout, "intervals: Wilson") {
		t.Errorf("--runs 3: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// skill-creator's --trigger-threshold: 4 of 4 clears 0.5, not 0.9
	code, stdout, _ = runCmd(t, "", "eval", "alpha", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--runs", "4", "--threshold", "0.9", "--out", filepath.Join(tmp, "thr"))
	if code != 0 || !strings.Contains(stdout, "undetermined") || !strings.Contains(stdout, "threshold 0.90") {
		t.Errorf("--threshold 0.9: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := runCmd(t, "", "eval", "alpha", "--queries", qs, "--skills", lib, "--offline", "--threshold", "1.5"); code != 2 || !strings.Contains(stderr, "--threshold 1.5") {
		t.Errorf("--threshold 1.5: exit %d %q", code, stderr)
	}
}

func TestEvalNamesBadRowsAndInvalidSkills(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	os.MkdirAll(filepath.Join(lib, "broken"), 0o755)
	os.WriteFile(filepath.Join(lib, "broken", "SKILL.md"), []byte("---\nname: broken\n---\nno description\n"), 0o644)
	null := writeQueries(t, filepath.Join(tmp, "null.json"), `[{"query": "a", "should_trigger": true}, {"query": "b", "should_trigger": null}]`)
	good := writeQueries(t, filepath.Join(tmp, "good.json"), `[{"query": "a", "should_trigger": true}]`)
	code, _, stderr := runCmd(t, "", "eval", "--offline", "--skills", lib, "alpha", "--queries", null)
	if code != 2 || !strings.Contains(stderr, `row 2: "should_trigger" must be true or false, got null`) {
		t.Errorf("null should_trigger: exit %d %q", code, stderr)
	}
	code, _, stderr = runCmd(t, "", "eval", "--offline", "--skills", lib, "broken", "--queries", good)
	if code != 2 || !strings.Contains(stderr, `skill "broken" is not valid`) || !strings.Contains(stderr, "description") {
		t.Errorf("invalid skill: exit %d %q", code, stderr)
	}
}

// A row's routing check that fails says how in the terminal, not only in
// results.json.
func TestEvalShowsWhyAnExpectFailed(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	srv := evaltest.New(map[string][]evaltest.Decision{"rotate the alpha logs": {evaltest.LoadLoad("alpha", "beta")}})
	defer srv.Close()
	qs := writeQueries(t, filepath.Join(tmp, "q.json"), `[{"query": "rotate the alpha logs", "should_trigger": true, "expect": {"must_not_include": ["beta"]}}]`)
	code, stdout, _ := runCmd(t, "", "eval", "alpha", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--runs", "4", "--out", filepath.Join(tmp, "ev"))
	if code != 1 || !strings.Contains(stdout, "expect met in 0/4 runs; run 1: loaded beta (must_not_include)") {
		t.Errorf("exit %d\n%s", code, stdout)
	}
	row := readResults(t, filepath.Join(tmp, "ev"))["results"].([]any)[0].(map[string]any)
	if row["expect_failure"] != "run 1: loaded beta (must_not_include)" || row["seconds"].(float64) <= 0 {
		t.Errorf("results.json row: expect_failure %v, seconds %v", row["expect_failure"], row["seconds"])
	}
}

// Under a profile the model activates a skill with the agent's own tool
// (Claude Code's Skill, Codex reading SKILL.md through its shell): that
// first call is the trigger, not another tool first.
func TestEvalCountsAProfilesActivationAsTheTrigger(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	skillPath, _ := filepath.Abs(filepath.Join(lib, "alpha", "SKILL.md"))
	for _, c := range []struct {
		profile string
		call    evaltest.Decision
	}{
		{"claude-code", evaltest.Call("Skill", `{"skill": "alpha"}`)},
		{"codex", evaltest.Call("exec_command", fmt.Sprintf(`{"cmd": "cat %s"}`, skillPath))},
	} {
		srv := evaltest.New(map[string][]evaltest.Decision{"rotate the alpha logs": {c.call}, "beta summary please": {evaltest.Call("Skill", `{"skill": "beta"}`)}})
		qs := writeQueries(t, filepath.Join(tmp, c.profile+".json"), `[{"query": "rotate the alpha logs", "should_trigger": true}]`)
		out := filepath.Join(tmp, c.profile)
		code, stdout, stderr := runCmd(t, "", "eval", "alpha", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--profile", c.profile, "--runs", "4", "--out", out)
		srv.Close()
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", c.profile, code, stdout, stderr)
		}
		row := readResults(t, out)["results"].([]any)[0].(map[string]any)
		if row["triggers"].(float64) != 4 || row["outcomes"].(map[string]any)[eval.OutcomeTriggered] != float64(4) {
			t.Errorf("%s: %v triggers, outcomes %v; want 4 triggered", c.profile, row["triggers"], row["outcomes"])
		}
	}
}

// With ten queries of each kind, a tenth of each is held out: scored in
// every iteration, shown to neither the improver nor the selection, and
// reported at the end.
func TestEvalOptimizeKeepsAHeldOutCheck(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	srv := evaltest.New(nil)
	defer srv.Close()
	srv.Decide = func(query, system string) evaltest.Decision {
		if strings.Contains(query, "near miss") || !strings.Contains(system, "GOOD alpha") {
			return evaltest.Answer()
		}
		return evaltest.Load("alpha")
	}
	srv.Improve = func(string) string {
		return "<new_description>GOOD alpha: rotate logs and check disks.</new_description>"
	}
	var rows []string
	for i := range 10 {
		rows = append(rows, fmt.Sprintf(`{"query": "alpha request %d", "should_trigger": true}`, i), fmt.Sprintf(`{"query": "near miss %d", "should_trigger": false}`, i))
	}
	qs := writeQueries(t, filepath.Join(tmp, "q.json"), "["+strings.Join(rows, ",")+"]")
	out := filepath.Join(tmp, "opt")
	code, stdout, stderr := runCmd(t, "", "eval", "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--runs", "3", "--optimize", "alpha", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var res eval.Optimization
	b, _ := os.ReadFile(filepath.Join(out, "optimize.json"))
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.HeldOut) != 2 || len(res.Train)+len(res.Validation) != 18 || !res.Improved || res.HeldOutCheck == nil {
		t.Fatalf("held out %v, %d train, %d validation, improved %v, check %+v", res.HeldOut, len(res.Train), len(res.Validation), res.Improved, res.HeldOutCheck)
	}
	if c := res.HeldOutCheck; c.Original.Passed != 1 || c.Best.Passed != 2 || c.Best.Queries != 2 {
		t.Errorf("held-out check %+v", c)
	}
	held := map[string]bool{}
	for _, q := range res.Iterations[0].Queries {
		if slices.Contains(res.HeldOut, q.Index) {
			held[q.Query] = true
			if q.Split != eval.SplitHeldOut {
				t.Errorf("held-out query %q is in split %s", q.Query, q.Split)
			}
		}
	}
	for _, p := range srv.Prompts() {
		for q := range held {
			if strings.Contains(p, fmt.Sprintf("%q", q)) {
				t.Errorf("a held-out query reached the improver: %s", q)
			}
		}
	}
	for _, h := range res.History {
		if len(h.TrainResults)+len(h.TestResults) != 18 {
			t.Errorf("history %d holds %d+%d rows: held-out queries leaked into skill-creator's splits", h.Iteration, len(h.TrainResults), len(h.TestResults))
		}
	}
	if !strings.Contains(stdout, "held-out check (2 queries neither the improver nor the selection saw): original 0.50 (1/2 queries pass), iteration 1 1.00 (2/2)") {
		t.Errorf("no held-out line:\n%s", stdout)
	}
}

// A Retry-After over the old 30 s cut is honoured up to [model]
// max_retry_wait, which bounds it.
func TestEvalHonoursRetryAfterUpToMaxRetryWait(t *testing.T) {
	tmp := isolate(t)
	lib := evalLibrary(t, tmp)
	srv := evaltest.New(map[string][]evaltest.Decision{"rotate the alpha logs": {evaltest.Load("alpha")}})
	defer srv.Close()
	srv.ThrottleEvery, srv.ThrottleAfter = 1, "120"
	cfg := filepath.Join(tmp, "skillet.toml")
	os.WriteFile(cfg, []byte("[model]\nmax_retry_wait = \"1s\"\n"), 0o644)
	qs := writeQueries(t, filepath.Join(tmp, "q.json"), `[{"query": "rotate the alpha logs", "should_trigger": true}]`)
	out := filepath.Join(tmp, "ev")
	start := time.Now()
	code, stdout, stderr := runCmd(t, "", "eval", "alpha", "--config", cfg, "--queries", qs, "--skills", lib, "--base-url", srv.URL, "--runs", "1", "--out", out)
	if code != 0 || srv.Throttled() == 0 {
		t.Fatalf("exit %d, %d throttled\n%s\n%s", code, srv.Throttled(), stdout, stderr)
	}
	if took := time.Since(start); took < time.Second || took > 20*time.Second {
		t.Errorf("took %v: the 120 s Retry-After was not bounded at 1 s", took)
	}
	f, err := os.Open(eval.JournalPath(out, eval.RunID("", 0, 1)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, _, _ := journal.Read(f)
	waits := 0
	for _, e := range events {
		if r, ok := e.(*event.Retry); ok {
			waits++
			if r.WaitMS != 1000 {
				t.Errorf("retry waited %d ms, want the 1 s cap", r.WaitMS)
			}
		}
	}
	if waits == 0 {
		t.Error("no retry in the journal")
	}
}

// Two evals started within one second get folders of their own.
func TestFreshFolderIsUniqueWithinASecond(t *testing.T) {
	isolate(t)
	first := freshFolder("evals")
	if err := os.MkdirAll(first, 0o700); err != nil {
		t.Fatal(err)
	}
	if second := freshFolder("evals"); second == first {
		t.Fatalf("a second eval would share %s", first)
	}
}
