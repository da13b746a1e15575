package report

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"skillet/harness/eval"
)

// scored is a small eval: two skills, one query of each verdict, runs of
// every outcome.
func scored() *eval.Report {
	m := &eval.Manifest{Model: "scripted", Plan: eval.Plan{Runs: 4, Seed: 1, Arms: []string{""}},
		Skills: []eval.SkillInfo{{Name: "alpha", Description: "Rotate logs <and> check disks."}, {Name: "beta", Description: "Summaries."}},
		Queries: []eval.Query{
			{Query: "rotate the logs", ShouldTrigger: true, Skill: "alpha"},
			{Query: "weather <script>alert(1)</script>", ShouldTrigger: false, Skill: "alpha", Type: "negative"},
			{Query: "summarize", ShouldTrigger: true, Skill: "beta"},
		}}
	res := func(outcome string, triggered bool, loaded ...string) eval.Result {
		r := eval.Result{Outcome: outcome, Triggered: triggered, Loaded: append([]string{}, loaded...), Rank: 1, Tokens: 10}
		switch outcome {
		case eval.OutcomeOtherSkill:
			r.Other = loaded[0]
		case eval.OutcomeToolFirst:
			r.FirstTool, r.Followed = "get_logs", triggered
		case eval.OutcomeError:
			r.Error = "HTTP 500: upstream"
		}
		return r
	}
	var runs []eval.Run
	add := func(q int, rs ...eval.Result) {
		for i, r := range rs {
			runs = append(runs, eval.Run{Query: q, N: i + 1, Session: eval.RunID("", q, i+1), Result: r})
		}
	}
	add(0, res(eval.OutcomeTriggered, true, "alpha"), res(eval.OutcomeTriggered, true, "alpha"), res(eval.OutcomeToolFirst, true, "alpha"), res(eval.OutcomeTriggered, true, "alpha"))
	add(1, res(eval.OutcomeAnswered, false), res(eval.OutcomeTriggered, true, "alpha"), res(eval.OutcomeAnswered, false), res(eval.OutcomeError, false))
	add(2, res(eval.OutcomeOtherSkill, false, "alpha"), res(eval.OutcomeAnswered, false), res(eval.OutcomeOtherSkill, false, "alpha"), res(eval.OutcomeAnswered, false))
	return eval.Score(m, runs)
}

func TestJSON_HasSkillCreatorsShape(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAll(dir, scored()); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, JSONFile))
	var got struct {
		SkillName string `json:"skill_name"`
		Results   []struct {
			Query         string  `json:"query"`
			ShouldTrigger bool    `json:"should_trigger"`
			TriggerRate   float64 `json:"trigger_rate"`
			Triggers      int     `json:"triggers"`
			Runs          int     `json:"runs"`
			Pass          bool    `json:"pass"`
		} `json:"results"`
		Summary struct{ Total, Passed, Failed int } `json:"summary"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.SkillName != "alpha,beta" || len(got.Results) != 3 || got.Summary.Total != 3 || got.Summary.Passed != 2 || got.Summary.Failed != 1 {
		t.Fatalf("%+v", got)
	}
	if r := got.Results[1]; r.Runs != 3 || r.Triggers != 1 || !r.Pass {
		t.Errorf("the error run counts: %+v", r)
	}
	x, _ := os.ReadFile(filepath.Join(dir, JUnitFile))
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Suites   []struct {
			Skipped int `xml:"skipped,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(x, &suites); err != nil {
		t.Fatal(err)
	}
	// alpha's first query passes, the second is undetermined (1/3), beta's fails (0/4)
	if suites.Tests != 3 || suites.Failures != 1 || suites.Errors != 0 || len(suites.Suites) != 2 || suites.Suites[0].Skipped != 1 {
		t.Errorf("junit %+v\n%s", suites, x)
	}
}

// JUnit XML is valid against the common junit-10.xsd, checked by
// xmllint (Debian's libxml2-utils), with an errored query as <error> and
// times on every case and suite.
func TestJUnit_ValidAgainstJUnit10XSD(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("no xmllint on PATH: install Debian's libxml2-utils to validate the JUnit XML")
	}
	rep := scored()
	// a query whose every run errored: the error verdict
	m := &eval.Manifest{Plan: eval.Plan{Runs: 2, MaxErrors: 2, Arms: []string{""}}, Skills: []eval.SkillInfo{{Name: "gamma"}},
		Queries: []eval.Query{{Query: "broken & <odd>", ShouldTrigger: true, Skill: "gamma"}}}
	failed := eval.Result{Outcome: eval.OutcomeError, Error: "model API said 500: down", Loaded: []string{}, Seconds: 1.25}
	errRep := eval.Score(m, []eval.Run{{Query: 0, N: 1, Result: failed}, {Query: 0, N: 2, Result: failed}})
	rep.Arms[0].Skills = append(rep.Arms[0].Skills, errRep.Arms[0].Skills...)
	x, err := JUnit(rep)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), JUnitFile)
	os.WriteFile(path, x, 0o644)
	out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit-10.xsd"), path).CombinedOutput()
	if err != nil {
		t.Fatalf("xmllint: %v\n%s\n%s", err, out, x)
	}
	var suites struct {
		Time   string `xml:"time,attr"`
		Errors int    `xml:"errors,attr"`
		Suites []struct {
			Time  string `xml:"time,attr"`
			Cases []struct {
				Time  string `xml:"time,attr"`
				Error *struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(x, &suites); err != nil {
		t.Fatal(err)
	}
	last := suites.Suites[len(suites.Suites)-1]
	if suites.Errors != 1 || last.Cases[0].Error == nil || !strings.Contains(last.Cases[0].Error.Message, "2 runs errored, 0 scored: model API said 500") {
		t.Errorf("the errored query is not an <error>:\n%s", x)
	}
	if last.Time != "2.500" || last.Cases[0].Time != "2.500" || suites.Time == "" {
		t.Errorf("times: suites %q, suite %q, case %q", suites.Time, last.Time, last.Cases[0].Time)
	}
	// the old shape fails the schema: the check can fail
	bad := strings.Replace(string(x), `<testsuites name="skillet eval"`, `<testsuites skipped="1" name="skillet eval"`, 1)
	os.WriteFile(path, []byte(bad), 0o644)
	if out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit-10.xsd"), path).CombinedOutput(); err == nil {
		t.Errorf("xmllint accepted skipped on testsuites:\n%s", out)
	}
}

// chromium finds the browser, or skips.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH: install Debian's chromium package to run the HTML report test (.ci/run does)")
	return ""
}

func browse(t *testing.T, bin, page string, extra ...string) []byte {
	t.Helper()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	args = append(append(args, extra...), "file://"+page)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v", extra, err)
	}
	return out
}

func TestHTML_RendersInHeadlessChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	if err := WriteAll(dir, scored()); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, HTMLFile)
	dom := string(browse(t, bin, page, "--dump-dom"))
	for _, want := range []string{
		`<h2 id="skill-alpha">alpha</h2>`,
		`<span class="badge pass">pass</span>`,
		`<span class="badge undetermined">undetermined</span>`,
		`<span class="badge fail">fail</span>`,
		"Rotate logs &lt;and&gt; check disks.",
		"weather &lt;script&gt;alert(1)&lt;/script&gt;",
		"get_logs, then loaded",
		"HTTP 500: upstream",
		`<table class="confusion">`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if strings.Contains(dom, "<script>") {
		t.Error("a query's text reached the page as markup")
	}
	// one cell per run: 12 runs, 11 with ✓ or ✗ and one error
	if n := strings.Count(dom, "<b>✓</b>") + strings.Count(dom, "<b>✗</b>"); n != 11 {
		t.Errorf("%d ✓/✗ cells, want 11", n)
	}
	if n := strings.Count(dom, `class="cell err"`); n != 1 {
		t.Errorf("%d error cells, want 1", n)
	}

	shot := filepath.Join(t.TempDir(), "shot.png")
	browse(t, bin, page, "--window-size=1280,1000", "--screenshot="+shot)
	if os.Getenv("SKILLET_KEEP_SHOT") != "" {
		b, _ := os.ReadFile(shot)
		os.WriteFile(os.Getenv("SKILLET_KEEP_SHOT"), b, 0o644)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// On screen: the grid's green and red cells and the badges are painted.
	green, red, ink := count(img)
	if green < 2000 || red < 1000 || ink < 5000 {
		t.Errorf("the screenshot shows %d green, %d red, %d dark pixels: the grid did not render", green, red, ink)
	}
}

// count tallies pixels of the pass-cell green (#dcfce7), the fail-cell
// red (#fee2e2) and dark text.
func count(img image.Image) (green, red, ink int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			switch {
			case near(r, 0xdc) && near(g, 0xfc) && near(bl, 0xe7):
				green++
			case near(r, 0xfe) && near(g, 0xe2) && near(bl, 0xe2):
				red++
			case r < 80 && g < 80 && bl < 80:
				ink++
			}
		}
	}
	return
}

func near(a uint32, b uint32) bool { return a+3 >= b && a <= b+3 }

func TestOptimizeHTML_RendersTheIterationGridInChromium(t *testing.T) {
	bin := chromium(t)
	qs := []eval.IterQuery{
		{Index: 0, Query: "rotate logs", Should: true, Split: eval.SplitTrain},
		{Index: 1, Query: "weather", Should: false, Split: eval.SplitTrain, Pass: true},
		{Index: 2, Query: "check disks", Should: true, Split: eval.SplitValidation},
	}
	better := []eval.IterQuery{qs[1], qs[0], qs[2]}
	better[1].Pass, better[1].Rate = true, 1
	better[2].Pass, better[2].Rate = true, 1
	o := &eval.Optimization{Skill: "alpha", Original: "old", Best: "GOOD new one", BestIter: 1, Improved: true, Train: []int{0, 1}, Validation: []int{2},
		Iterations: []eval.Iteration{
			{N: 0, Description: "old", Queries: qs, Train: eval.SplitScore{Correct: 3, Runs: 6, Accuracy: 0.5, Passed: 1, Queries: 2}, Validation: eval.SplitScore{Runs: 3, Queries: 1}},
			{N: 1, Description: "GOOD new one", Queries: better, Best: true, Train: eval.SplitScore{Correct: 6, Runs: 6, Accuracy: 1, Passed: 2, Queries: 2}, Validation: eval.SplitScore{Correct: 3, Runs: 3, Accuracy: 1, Passed: 1, Queries: 1}},
			{N: 2, Description: "way too long", Note: "the description is 2000 characters, over 1024"},
		}}
	page, err := OptimizeHTML(o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "optimize.html")
	os.WriteFile(path, page, 0o644)
	dom := string(browse(t, bin, path, "--dump-dom"))
	for _, want := range []string{`<tr class="best">`, "1 ★", "GOOD new one", "over 1024", "Iteration 1 beat the original"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(dom, "✓") + strings.Count(dom, "✗"); n != 6 {
		t.Errorf("%d grid cells, want 6 (two scored iterations × three queries)", n)
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	browse(t, bin, path, "--window-size=1100,600", "--screenshot="+shot)
	if k := os.Getenv("SKILLET_KEEP_SHOT"); k != "" {
		b, _ := os.ReadFile(shot)
		os.WriteFile(k+".optimize.png", b, 0o644)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	green, red, _ := count(img)
	if green < 500 || red < 200 {
		t.Errorf("the screenshot shows %d green and %d red pixels: the grid did not render", green, red)
	}
}

// A query left in error reads as such on the page, never as an undecided
// 0/0.
func TestHTML_ShowsErrorVerdicts(t *testing.T) {
	m := &eval.Manifest{Plan: eval.Plan{Runs: 2, MaxErrors: 2, Arms: []string{""}}, Skills: []eval.SkillInfo{{Name: "gamma"}},
		Queries: []eval.Query{{Query: "broken", ShouldTrigger: true, Skill: "gamma"}}}
	failed := eval.Result{Outcome: eval.OutcomeError, Error: "model API said 500: down", Loaded: []string{}}
	page, err := HTML(eval.Score(m, []eval.Run{{Query: 0, N: 1, Result: failed}, {Query: 0, N: 2, Result: failed}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<span class="badge error">error</span>`, "2 runs errored, 0 scored", `<span class="badge error">1 error</span>`, "Wilson intervals"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(string(page), "0/0 = 0.00") {
		t.Error("the errored query reads as 0/0 = 0.00")
	}
}
