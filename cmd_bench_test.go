package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"skillet/harness/bench"
	"skillet/harness/bench/benchtest"
	"skillet/harness/rulebook"
)

const benchSkillMD = "---\nname: report-style\ndescription: Write reports in the house style.\n---\n\n%s\n"

// benchLibrary writes the skill report-style with its evals: eval 1 goes
// right only with the skill's instruction, eval 2 the same either way.
func benchLibrary(t *testing.T, tmp, body string) string {
	t.Helper()
	lib := filepath.Join(tmp, "lib")
	dir := filepath.Join(lib, "report-style")
	must(t, os.MkdirAll(filepath.Join(dir, "evals", "files"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(fmt.Sprintf(benchSkillMD, body)), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "evals", "files", "data.csv"), []byte("a,b\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "evals", "evals.json"), []byte(`{"skill_name": "report-style", "evals": [
	 {"id": 1, "prompt": "Write the report for eval one", "files": ["evals/files/data.csv"],
	  "checks": [{"kind": "file_contains", "path": "report.md", "text": "GOOD"}, {"kind": "file_exists", "path": "data.csv"}]},
	 {"id": 2, "prompt": "Say hello for eval two", "expectations": ["The answer greets the user"],
	  "checks": [{"kind": "answer_contains", "text": "hello"}]}]}`), 0o644))
	return lib
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// reportAgent loads report-style when it is offered and writes GOOD when
// the loaded text says so; the grader's requests (no tools) quote the
// answer.
func reportAgent(in benchtest.Request) benchtest.Reply {
	if len(in.Tools) == 0 {
		return benchtest.Reply{Text: `{"passed": true, "evidence": "hello there"}`}
	}
	offered := strings.Contains(in.Body, "report-style")
	loaded := strings.Contains(in.Body, "Mark every report with GOOD") || strings.Contains(in.Body, "Write plainly")
	if strings.Contains(in.User, "eval one") {
		switch {
		case offered && !loaded:
			return benchtest.Reply{Calls: []benchtest.Call{{Name: rulebook.ToolLoadSkill, Args: `{"name":"report-style"}`}}}
		case !strings.Contains(in.Body, `report.md`):
			content := "plain report"
			if strings.Contains(in.Body, "Mark every report with GOOD") {
				content = "GOOD report"
			}
			return benchtest.Reply{Calls: []benchtest.Call{{Name: "write", Args: fmt.Sprintf(`{"path":"report.md","content":%q}`, content)}}}
		}
		return benchtest.Reply{Text: "Wrote report.md."}
	}
	return benchtest.Reply{Text: "hello there"}
}

func readBenchmark(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	must(t, json.Unmarshal(data, &m))
	return m
}

func TestBenchVerdictsAndRequire(t *testing.T) {
	tmp := isolate(t)
	lib := benchLibrary(t, tmp, "Mark every report with GOOD.")
	srv := benchtest.New(reportAgent)
	defer srv.Close()
	out := filepath.Join(tmp, "b1")
	code, stdout, stderr := runCmd(t, "", "bench", "report-style", "--skills", lib, "--base-url", srv.URL, "--runs", "5", "--workers", "4", "--out", out, "--require", "helps")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"report-style: helps · pooled delta +0.50",
		"helps        5/5 [0.57, 1.00] vs 0/5 [0.00, 0.43] · delta +1.00",
		"no evidence  5/5 [0.57, 1.00] vs 5/5 [0.57, 1.00] · delta +0.00",
		"with_skill     10 runs (0 errors)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	b := readBenchmark(t, filepath.Join(out, "report-style", bench.BenchmarkFile))
	meta := b["metadata"].(map[string]any)
	if meta["skill_name"] != "report-style" || meta["runs_per_configuration"].(float64) != 5 || meta["analyzer_model"] != "gpt-4o-mini" {
		t.Errorf("metadata %v", meta)
	}
	// the grader graded eval 2's expectation with a quote from the answer
	g := readBenchmark(t, filepath.Join(bench.RunDir(out, "report-style", 2, bench.WithoutSkill, 1), bench.GradingFile))
	exps := g["expectations"].([]any)
	if len(exps) != 2 || exps[1].(map[string]any)["text"] != "The answer greets the user" || exps[1].(map[string]any)["passed"] != true {
		t.Errorf("grading %v", exps)
	}
	for _, f := range []string{bench.JUnitFile, bench.HTMLFile, bench.ManifestFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// the runs never saw the evals: the skill's copy has no evals folder
	if _, err := os.Stat(filepath.Join(out, "report-style", "skills", bench.WithSkill, "report-style", "evals")); err == nil {
		t.Error("the runs' copy of the skill holds its evals")
	}

	// resumed with nothing left, no model call is made
	before := srv.Requests()
	code, stdout, stderr = runCmd(t, "", "bench", "--resume", out, "--base-url", srv.URL)
	if code != 0 || srv.Requests() != before || !strings.Contains(stdout, "report-style: helps") {
		t.Errorf("resume: exit %d, %d requests\n%s\n%s", code, srv.Requests()-before, stdout, stderr)
	}

	// a skill that changes nothing: --require helps fails
	lib2 := benchLibrary(t, filepath.Join(tmp, "two"), "Write plainly.")
	code, stdout, stderr = runCmd(t, "", "bench", "report-style", "--skills", lib2, "--base-url", srv.URL, "--runs", "3", "--out", filepath.Join(tmp, "b2"), "--require", "helps")
	if code != 1 || !strings.Contains(stderr, "--require helps: report-style is no evidence") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestBenchBaselineRevision(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	tmp := isolate(t)
	lib := benchLibrary(t, tmp, "Write plainly.")
	gitDo := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-C", lib, "-c", "user.name=t", "-c", "user.email=t@e", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitDo("init", "-q")
	gitDo("add", ".")
	gitDo("commit", "-qm", "plain")
	must(t, os.WriteFile(filepath.Join(lib, "report-style", "SKILL.md"), []byte(fmt.Sprintf(benchSkillMD, "Mark every report with GOOD.")), 0o644))
	gitDo("commit", "-qam", "good")
	srv := benchtest.New(reportAgent)
	defer srv.Close()
	out := filepath.Join(tmp, "b")
	code, stdout, stderr := runCmd(t, "", "bench", "report-style", "--skills", lib, "--base-url", srv.URL, "--runs", "4", "--baseline", "HEAD~1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "helps        4/4 [0.51, 1.00] vs 0/4") || !strings.Contains(stdout, "(with_skill − baseline)") {
		t.Errorf("stdout:\n%s", stdout)
	}
	old, err := os.ReadFile(filepath.Join(out, "report-style", "skills", bench.Baseline, "report-style", "SKILL.md"))
	if err != nil || !strings.Contains(string(old), "Write plainly.") {
		t.Errorf("the baseline copy: %q %v", old, err)
	}
	b := readBenchmark(t, filepath.Join(out, "report-style", bench.BenchmarkFile))
	rs := b["run_summary"].(map[string]any)
	if _, ok := rs["baseline"]; !ok || len(rs) != 3 {
		t.Errorf("run_summary keys %v", rs)
	}

	code, _, stderr = runCmd(t, "", "bench", "report-style", "--skills", lib, "--base-url", srv.URL, "--baseline", "no-such-rev", "--out", filepath.Join(tmp, "c"))
	if code != 2 || !strings.Contains(stderr, "--baseline no-such-rev: no such revision") {
		t.Errorf("a missing revision: exit %d\n%s", code, stderr)
	}
}

func TestBenchDemoModelGradesChecksOnly(t *testing.T) {
	tmp := isolate(t)
	lib := benchLibrary(t, tmp, "Mark every report with GOOD.")
	dir := filepath.Join(lib, "report-style", "evals")
	must(t, os.WriteFile(filepath.Join(dir, "evals.json"), []byte(`{"skill_name":"report-style","evals":[
	 {"id":1,"prompt":"load report-style","expectations":["The report is good"],"checks":[{"kind":"skill_loaded","skill":"report-style"}]},
	 {"id":2,"prompt":"hello","expectations":["The answer is kind"]}]}`), 0o644))
	out := filepath.Join(tmp, "b")
	code, stdout, stderr := runCmd(t, "", "bench", "report-style", "--skills", lib, "--offline", "--runs", "3", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "model grading needs a real model") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "helps        3/3") || !strings.Contains(stdout, "not graded   0/3") {
		t.Errorf("stdout:\n%s", stdout)
	}
	b := readBenchmark(t, filepath.Join(out, "report-style", bench.BenchmarkFile))
	if u := b["skillet"].(map[string]any)["ungraded"].([]any); len(u) != 2 {
		t.Errorf("ungraded %v", u)
	}
}

func TestBenchBadInput(t *testing.T) {
	tmp := isolate(t)
	lib := benchLibrary(t, tmp, "Mark every report with GOOD.")
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		must(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"nosuch"}, `skill "nosuch" not found`},
		{[]string{"report-styel"}, "did you mean report-style"},
		{[]string{}, "name the SKILL to bench"},
		{[]string{"report-style", "--runs", "0"}, "--runs 0: want at least 1"},
		{[]string{"report-style", "--require", "always"}, "--require always: want helps"},
		{[]string{"report-style", "--evals", write("t.json", `[{"query":"x","should_trigger":true}]`)}, "looks like trigger queries"},
		{[]string{"report-style", "--evals", write("k.json", `{"evals":[{"id":1,"prompt":"p","checks":[{"kind":"pdf_pages"}]}]}`)}, `kind "pdf_pages" is unknown`},
		{[]string{"report-style", "--evals", write("f.json", `{"evals":[{"id":1,"prompt":"p","files":["gone.txt"],"expectations":["e"]}]}`)}, "files[0]: gone.txt is missing"},
		{[]string{"report-style", "--evals", filepath.Join(tmp, "absent.json")}, "does not exist"},
		{[]string{"report-style", "--baseline", filepath.Join(tmp)}, "no SKILL.md there"},
		{[]string{"--resume", filepath.Join(tmp, "nothing")}, "holds no benchmark"},
	} {
		args := append([]string{"bench", "--skills", lib, "--offline", "--out", filepath.Join(tmp, "o", fmt.Sprint(len(c.want)))}, c.args...)
		code, _, stderr := runCmd(t, "", args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	// an output folder that holds a benchmark is not overwritten
	out := filepath.Join(tmp, "used")
	if code, _, stderr := runCmd(t, "", "bench", "report-style", "--skills", lib, "--offline", "--runs", "1", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	code, _, stderr := runCmd(t, "", "bench", "report-style", "--skills", lib, "--offline", "--runs", "1", "--out", out)
	if code != 2 || !strings.Contains(stderr, "already holds a benchmark: continue it with --resume") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestBenchProgressLine(t *testing.T) {
	line := progressText(bench.Progress{Done: 12, Total: 40, Errors: 1, Tokens: 5000, Elapsed: 30e9, ETA: 70e9})
	if line != "run 12/40 · 1 errors · 5000 tokens · 30s elapsed · ETA 1m10s" {
		t.Errorf("%q", line)
	}
}

func TestBenchKeepsCredentialsOutOfItsFolder(t *testing.T) {
	tmp := isolate(t)
	lib := benchLibrary(t, tmp, "Mark every report with GOOD.")
	srv := benchtest.New(reportAgent)
	defer srv.Close()
	const key, pass, gpass = "sk-bench-secret-0123456789", "url-pass-98765", "grader-pass-4321"
	t.Setenv("OPENAI_API_KEY", key)
	withCreds := strings.Replace(srv.URL, "http://", "http://user:"+pass+"@", 1)
	graderCreds := strings.Replace(srv.URL, "http://", "http://g:"+gpass+"@", 1)
	out := filepath.Join(tmp, "b")
	code, stdout, stderr := runCmd(t, "", "bench", "report-style", "--skills", lib, "--base-url", withCreds, "--grader-base-url", graderCreds, "--runs", "2", "--out", out)
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
		for _, s := range []string{key, pass, gpass} {
			if strings.Contains(string(b), s) {
				t.Errorf("a credential reached %s", p)
			}
		}
		return nil
	})
	if files < 20 {
		t.Fatalf("only %d files written", files)
	}
	if strings.Contains(stdout+stderr, pass) || strings.Contains(stdout+stderr, key) || strings.Contains(stdout+stderr, gpass) {
		t.Error("a credential reached the output")
	}
	// resumed without the grader's URL, it is asked for again, not dropped
	code, _, stderr = runCmd(t, "", "bench", "--resume", out, "--base-url", withCreds)
	if code != 2 || !strings.Contains(stderr, "give --grader-base-url again") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

func TestBenchEvalsFileFilesAreRelativeToTheSkill(t *testing.T) {
	tmp := isolate(t)
	lib := benchLibrary(t, tmp, "Mark every report with GOOD.")
	evals := filepath.Join(tmp, "elsewhere.json")
	must(t, os.WriteFile(evals, []byte(`{"skill_name":"report-style","evals":[{"id":4,"prompt":"hello","files":["evals/files/data.csv"],
	  "checks":[{"kind":"file_contains","path":"data.csv","text":"a,b"}]}]}`), 0o644))
	code, stdout, stderr := runCmd(t, "", "bench", "--evals", evals, "--skills", lib, "--offline", "--runs", "2", "--out", filepath.Join(tmp, "b"))
	if code != 0 || !strings.Contains(stdout, "2/2 [0.34, 1.00] vs 2/2") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// gradings counts the graded runs in a benchmark's folder.
func gradings(out string) int {
	n := 0
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == bench.GradingFile {
			n++
		}
		return nil
	})
	return n
}

func TestBenchCtrlCKeepsGradedRunsAndResumeFinishes(t *testing.T) {
	bin := buildSkillet(t) // before isolate, so the build cache is the usual one
	tmp := isolate(t)
	lib := benchLibrary(t, tmp, "Mark every report with GOOD.")
	srv := benchtest.New(reportAgent)
	srv.Delay = 60 * time.Millisecond
	defer srv.Close()
	out := filepath.Join(tmp, "b")
	cmd := exec.Command(bin, "bench", "report-style", "--skills", lib, "--base-url", srv.URL, "--runs", "5", "--workers", "2", "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	deadline := time.Now().Add(60 * time.Second)
	for gradings(out) < 3 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no runs finished: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted by ") || !strings.Contains(stderr.String(), "skillet bench --resume "+out) {
		t.Errorf("stderr %q does not say how to resume", stderr.String())
	}
	kept := gradings(out)
	if kept < 3 || kept >= 20 {
		t.Fatalf("%d graded runs kept", kept)
	}
	if _, err := os.Stat(filepath.Join(out, "report-style", bench.BenchmarkFile)); err != nil {
		t.Errorf("no partial benchmark.json: %v", err)
	}
	code, stdout, errOut := runCmd(t, "", "bench", "--resume", out, "--base-url", srv.URL)
	if code != 0 || gradings(out) != 20 || !strings.Contains(stdout, "5/5 [0.57, 1.00] vs 0/5") {
		t.Fatalf("resume: exit %d, %d graded\n%s\n%s", code, gradings(out), stdout, errOut)
	}
}

func TestBenchBaselineFolder(t *testing.T) {
	tmp := isolate(t)
	lib := benchLibrary(t, tmp, "Mark every report with GOOD.")
	old := filepath.Join(benchLibrary(t, filepath.Join(tmp, "old"), "Write plainly."), "report-style")
	srv := benchtest.New(reportAgent)
	defer srv.Close()
	out := filepath.Join(tmp, "b")
	code, stdout, stderr := runCmd(t, "", "bench", "report-style", "--skills", lib, "--base-url", srv.URL, "--runs", "3", "--baseline", old, "--out", out)
	if code != 0 || !strings.Contains(stdout, "helps        3/3 [0.44, 1.00] vs 0/3") || !strings.Contains(stdout, "(with_skill − baseline)") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	// another skill is no baseline
	other := filepath.Join(tmp, "other")
	must(t, os.MkdirAll(other, 0o755))
	must(t, os.WriteFile(filepath.Join(other, "SKILL.md"), []byte("---\nname: other-skill\ndescription: Something else.\n---\n\nBody.\n"), 0o644))
	code, _, stderr = runCmd(t, "", "bench", "report-style", "--skills", lib, "--base-url", srv.URL, "--baseline", other, "--out", filepath.Join(tmp, "c"))
	if code != 2 || !strings.Contains(stderr, "its SKILL.md names other-skill, not report-style: a baseline must be a version of the same skill") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
