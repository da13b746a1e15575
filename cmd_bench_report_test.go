package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"skillet/harness/bench"
	"skillet/harness/bench/benchtest"
)

// TestBenchReportRescoresTheFolder: a benchmark's reports are made again
// from its grading.json files alone — the same bytes when nothing changed,
// new statistics when a grade was edited — and --require sets the exit
// status as for bench.
func TestBenchReportRescoresTheFolder(t *testing.T) {
	tmp := isolate(t)
	lib := benchLibrary(t, tmp, "Mark every report with GOOD.")
	srv := benchtest.New(reportAgent)
	defer srv.Close()
	out := filepath.Join(tmp, "b")
	code, stdout, stderr := runCmd(t, "", "bench", "report-style", "--skills", lib, "--base-url", srv.URL, "--runs", "3", "--workers", "3", "--out", out)
	if code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", code, stdout, stderr)
	}
	files := []string{filepath.Join("report-style", bench.BenchmarkFile), bench.JUnitFile, bench.HTMLFile}
	orig := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(out, f))
		must(t, err)
		orig[f] = data
		must(t, os.Remove(filepath.Join(out, f)))
	}
	requests := srv.Requests()

	code, again, stderr := runCmd(t, "", "bench", "report", out, "--require", "helps")
	if code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, again, stderr)
	}
	if srv.Requests() != requests {
		t.Errorf("report asked the model %d times", srv.Requests()-requests)
	}
	if again != stdout {
		t.Errorf("report printed\n%s\nbench printed\n%s", again, stdout)
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(out, f))
		must(t, err)
		if !bytes.Equal(data, orig[f]) {
			t.Errorf("%s differs from the one bench wrote", f)
		}
	}

	// eval 1 with the skill failed every time after all: no evidence
	for n := 1; n <= 3; n++ {
		path := filepath.Join(bench.RunDir(out, "report-style", 1, bench.WithSkill, n), bench.GradingFile)
		data, err := os.ReadFile(path)
		must(t, err)
		data = bytes.Replace(data, []byte(`"passed": true`), []byte(`"passed": false`), -1)
		must(t, os.WriteFile(path, data, 0o644))
	}
	code, rescored, stderr := runCmd(t, "", "bench", "report", "--require", "helps", out)
	if code != 1 || !strings.Contains(stderr, "--require helps: report-style is no evidence") {
		t.Fatalf("report after the edit: exit %d\n%s\n%s", code, rescored, stderr)
	}
	if !strings.Contains(rescored, "no evidence  0/3 [0.00, 0.56] vs 0/3 [0.00, 0.56]") {
		t.Errorf("the edited grades are not scored:\n%s", rescored)
	}
	b := readBenchmark(t, filepath.Join(out, "report-style", bench.BenchmarkFile))
	sk := b["skillet"].(map[string]any)
	if sk["verdict"] != "no evidence" {
		t.Errorf("benchmark.json verdict %v", sk["verdict"])
	}
	runs := b["runs"].([]any)
	if len(runs) != 12 {
		t.Fatalf("%d runs in benchmark.json, want 12", len(runs))
	}
	first := runs[0].(map[string]any)
	if first["configuration"] != bench.WithSkill || first["result"].(map[string]any)["pass_rate"].(float64) != 0 {
		t.Errorf("the first run is %v", first)
	}
	// journals are named relative to the folder, where they are
	for _, j := range sk["journals"].([]any) {
		p := j.(map[string]any)["journal"].(string)
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Errorf("journal %s: %v", p, err)
		}
	}
}

// TestBenchReportRefusesWhatIsNoBenchmark: a folder without a benchmark, a
// file and a missing path are named in the error, with exit status 2; a
// benchmark whose run records are damaged says which file.
func TestBenchReportRefusesWhatIsNoBenchmark(t *testing.T) {
	tmp := isolate(t)
	must(t, os.WriteFile(filepath.Join(tmp, "notes.txt"), []byte("x"), 0o644))
	for _, c := range []struct{ arg, want string }{
		{tmp, "holds no benchmark (no bench.json)"},
		{filepath.Join(tmp, "notes.txt"), "is a file, not a benchmark's folder"},
		{filepath.Join(tmp, "gone"), "no such file or directory"},
	} {
		code, _, stderr := runCmd(t, "", "bench", "report", c.arg)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("report %s: exit %d, %q; want 2 and %q", c.arg, code, stderr, c.want)
		}
	}
	if code, _, stderr := runCmd(t, "", "bench", "report"); code != 2 || !strings.Contains(stderr, "give one DIR") {
		t.Errorf("report without DIR: exit %d, %q", code, stderr)
	}

	dir := filepath.Join(tmp, "b")
	m := &bench.Manifest{Skills: []string{"s"}, Baseline: bench.WithoutSkill, Runs: 1, Model: "m"}
	must(t, bench.WriteManifest(dir, m))
	code, _, stderr := runCmd(t, "", "bench", "report", dir)
	if code != 1 || !strings.Contains(stderr, "the benchmark of s has no folder") {
		t.Errorf("no skill folder: exit %d, %q", code, stderr)
	}
	run := bench.RunDir(dir, "s", 1, bench.WithSkill, 1)
	must(t, os.MkdirAll(run, 0o755))
	meta, _ := json.Marshal(map[string]any{"eval_id": 1, "eval_name": "Eval 1", "prompt": "p", "assertions": []string{"x"}})
	must(t, os.WriteFile(filepath.Join(dir, "s", "eval-1", bench.EvalMetadataFile), meta, 0o644))
	must(t, os.WriteFile(filepath.Join(run, bench.GradingFile), []byte("{not json"), 0o644))
	code, _, stderr = runCmd(t, "", "bench", "report", dir)
	if code != 1 || !strings.Contains(stderr, filepath.Join(run, bench.GradingFile)) {
		t.Errorf("damaged grading.json: exit %d, %q", code, stderr)
	}
}

// TestBenchReportAndViewHelp: both are in the help, with their flags.
func TestBenchReportAndViewHelp(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"bench", "report", "-h"}, []string{"usage: skillet bench report", "  -require VERDICT\n"}},
		{[]string{"-h"}, []string{"skillet bench report [--require helps] DIR", "skillet --view PATH", "  -view ID\n"}},
		{[]string{"bench", "-h"}, []string{"skillet bench report DIR scores"}},
	} {
		code, out, errOut := runBinary(t, c.args...)
		if code != 0 || errOut != "" {
			t.Errorf("%v: exit %d\n%s", c.args, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in:\n%s", c.args, w, out)
			}
		}
	}
}
