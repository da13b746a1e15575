package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"skillet/harness"
	"skillet/harness/bench"
	"skillet/harness/eval"
	"skillet/harness/event"
	"skillet/harness/llm"
	"skillet/harness/sandbox"
	"skillet/skills"
)

const benchUsage = `usage: skillet bench [flags] [SKILL...] [--evals FILE]

Measures whether a skill helps. Each eval of the skill's evals/evals.json
(skill-creator's format: a prompt, input files, expectations, and
Skillet's model-free checks) runs --runs times with the skill and as many
times against a baseline: without the skill (default), another version of
it (--baseline DIR) or the skill as of a git revision (--baseline REV).
Every run is a headless session with the agent tools in a fresh workspace
holding the eval's files. Checks are graded without a model, expectations
by a grader model that sees only the expectation, the answer and the
changed files. Per eval and pooled: the pass rates with Wilson intervals,
the delta with Newcombe's interval and a verdict (helps, hurts or no
evidence). Results go in --out: per skill benchmark.json and per run
grading.json (skill-creator's schemas), junit.xml and report.html.

skillet bench report DIR scores a benchmark's folder again without
running it (skillet bench report -h); a skill named report is benched
with skillet bench -- report.

Exit status: 0 when the benchmark finished, 1 when a --require is not met,
a run could not start or the benchmark was interrupted, 2 on a usage
error.

Flags:
`

// benchFlags are `skillet bench`'s own flags.
type benchFlags struct {
	common
	evals         string
	runs          int
	baseline      string
	workers       int
	out           string
	graderModel   string
	graderBaseURL string
	require       string
}

func (f *benchFlags) register(fs *flag.FlagSet) {
	f.common.registerLive(fs)
	fs.Lookup("resume").Usage = "continue the benchmark in `DIR`: its graded runs are kept, the rest run again"
	fs.Lookup("session-dir").Usage = "ignored by bench: every run's session goes in the benchmark's folder (--out)"
	fs.Lookup("workspace").Usage = "ignored by bench: every run's workspace starts as a copy of its eval's files"
	fs.StringVar(&f.evals, "evals", "", "evals `FILE` (skill-creator's evals.json); default each named skill's evals/evals.json")
	fs.IntVar(&f.runs, "runs", 5, "scored runs per eval and configuration (`N`); an errored run is run again, up to 2×N attempts")
	fs.StringVar(&f.baseline, "baseline", bench.WithoutSkill, "what the skill is compared with: without_skill, a skill `DIR` (another version) or a git revision of the skill's folder")
	fs.IntVar(&f.workers, "workers", 3, "runs at once")
	fs.StringVar(&f.out, "out", "", "the benchmark's `DIR` (default $XDG_STATE_HOME/skillet/benches/ID)")
	fs.StringVar(&f.graderModel, "grader-model", "", "model `NAME` grading expectations (default the runs' model)")
	fs.StringVar(&f.graderBaseURL, "grader-base-url", "", "OpenAI-compatible `URL` of the grader (default the runs' endpoint)")
	fs.StringVar(&f.require, "require", "", "`VERDICT` every skill's pooled verdict must reach, or the exit status is 1: helps")
}

// runBench is `skillet bench`.
func runBench(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "report" {
		return runBenchReport(args[1:], stdout, stderr)
	}
	stderr = &lockedWriter{w: stderr}
	var f benchFlags
	fs := flag.NewFlagSet("skillet bench", flag.ContinueOnError)
	f.register(fs)
	names, code, done := parseInterleaved(fs, args, benchUsage, stdout, stderr)
	if done {
		return code
	}
	if err := f.check(); err != nil {
		fmt.Fprintln(stderr, "skillet bench:", err)
		return 2
	}
	b, err := f.prepare(names, stderr)
	if err != nil {
		return reportError(stderr, "skillet bench", err)
	}
	defer b.close()
	return b.run(stdout, stderr)
}

func (f *benchFlags) check() error {
	switch {
	case f.runs < 1:
		return usageError{fmt.Sprintf("--runs %d: want at least 1", f.runs)}
	case f.workers < 1:
		return usageError{fmt.Sprintf("--workers %d: want at least 1", f.workers)}
	case f.require != "" && f.require != bench.VerdictHelps:
		return usageError{fmt.Sprintf("--require %s: want helps", f.require)}
	case f.inPlace != "":
		return usageError{"--workspace-in-place: every bench run works in a fresh copy of its eval's files"}
	}
	return checkBaseURL(f.graderBaseURL)
}

// benchRun is a prepared benchmark.
type benchRun struct {
	f        *benchFlags
	dir      string
	m        *bench.Manifest
	w        *wiring
	suites   []*bench.Suite
	configs  []string
	catalogs map[string]*skills.Catalog // skill/config → its catalog
	grader   *bench.ModelGrader
	checks   *bench.CheckRunner
}

func (b *benchRun) close() { b.w.close() }

// prepare reads the evals, wires the model and makes the benchmark's
// folder with each configuration's copy of the skill.
func (f *benchFlags) prepare(names []string, stderr io.Writer) (*benchRun, error) {
	resume := f.resume
	f.resume = ""
	var m *bench.Manifest
	if resume != "" {
		var err error
		if m, err = bench.ReadManifest(resume); err != nil {
			return nil, usageError{"--resume: " + err.Error()}
		}
		if len(names) > 0 || f.evals != "" {
			return nil, usageError{"--resume continues the benchmark as it was started: give no SKILL nor --evals"}
		}
		f.fromManifest(m)
		names = m.Skills
		f.out = resume
	}
	w, err := wire(&f.common)
	if err != nil {
		return nil, err
	}
	b := &benchRun{f: f, w: w, catalogs: map[string]*skills.Catalog{}}
	ok := false
	defer func() {
		if !ok {
			w.close()
		}
	}()
	if m != nil && f.graderBaseURL == "" && strings.Contains(m.GraderBaseURL, "REDACTED") {
		return nil, usageError{fmt.Sprintf("--resume: the grader's endpoint %s had credentials in its URL, which are not recorded: give --grader-base-url again", m.GraderBaseURL)}
	}
	if m != nil && (w.demo != m.Demo || w.name != m.Model) {
		return nil, usageError{fmt.Sprintf("--resume: the benchmark ran with model %s, this would use %s; give the same --model and --base-url", m.Model, w.name)}
	}
	if b.suites, err = f.suites(w, names); err != nil {
		return nil, err
	}
	b.dir = f.out
	if b.dir == "" {
		b.dir = freshFolder("benches")
	}
	if m == nil {
		if exists(filepath.Join(b.dir, bench.ManifestFile)) {
			return nil, usageError{fmt.Sprintf("--out %s already holds a benchmark: continue it with --resume %s, or choose another folder", b.dir, b.dir)}
		}
		m = &bench.Manifest{Created: time.Now().UTC(), Evals: absPath(f.evals), Baseline: f.baseline, Runs: f.runs,
			Model: w.name, BaseURL: redactedURL(w.baseURL), Demo: w.demo, Roots: rootDirs(w.catalog), Config: w.cfg.Path,
			Sets: f.sets, Profile: f.profile, GraderModel: f.graderModel, GraderBaseURL: redactedURL(f.graderBaseURL)}
		if w.demo {
			m.BaseURL = ""
		}
		for _, s := range b.suites {
			m.Skills = append(m.Skills, s.Skill)
		}
	}
	m.SkillDirs = map[string]string{}
	for _, s := range b.suites {
		m.SkillDirs[s.Skill] = s.Dir
	}
	b.m = m
	if err := b.makeCatalogs(); err != nil {
		return nil, err
	}
	if err := bench.WriteManifest(b.dir, m); err != nil {
		return nil, err
	}
	if err := b.pickGrader(stderr); err != nil {
		return nil, err
	}
	b.checks = &bench.CheckRunner{Network: w.cfg.Sandbox.Network}
	if w.cfg.Sandbox.Disabled {
		b.checks.Sandbox = sandbox.Unconfined(sandbox.Options{})
	} else if box, err := sandbox.New(sandbox.Options{}); err == nil {
		b.checks.Sandbox = box
	} else if hasCommandChecks(b.suites) {
		fmt.Fprintf(stderr, "skillet bench: warning: command checks will be errors: %v\n", err)
	}
	printNotices(stderr, w)
	ok = true
	return b, nil
}

// fromManifest takes the flags a resumed benchmark was started with,
// unless given again.
func (f *benchFlags) fromManifest(m *bench.Manifest) {
	if len(f.skills) == 0 {
		for _, r := range m.Roots {
			if fi, err := os.Stat(r); err == nil && fi.IsDir() {
				f.skills = append(f.skills, r)
			}
		}
	}
	if f.config == "" && m.Config != "" && exists(m.Config) {
		f.config = m.Config
	}
	if len(f.sets) == 0 {
		f.sets = m.Sets
	}
	if f.profile == "" {
		f.profile = m.Profile
	}
	if f.model == "" && !m.Demo {
		f.model = m.Model
	}
	if f.baseURL == "" && !m.Demo && !strings.Contains(m.BaseURL, "REDACTED") {
		f.baseURL = m.BaseURL
	}
	f.offline = f.offline || (m.Demo && f.baseURL == "")
	f.evals, f.baseline, f.runs = m.Evals, m.Baseline, m.Runs
	if f.graderModel == "" {
		f.graderModel = m.GraderModel
	}
	if f.graderBaseURL == "" && !strings.Contains(m.GraderBaseURL, "REDACTED") {
		f.graderBaseURL = m.GraderBaseURL
	}
}

func absPath(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// suites finds each skill and reads its evals.
func (f *benchFlags) suites(w *wiring, names []string) ([]*bench.Suite, error) {
	var fromFile *bench.Evals
	if f.evals != "" {
		data, err := os.ReadFile(f.evals)
		if errors.Is(err, os.ErrNotExist) {
			return nil, usageError{fmt.Sprintf("--evals %s does not exist", f.evals)}
		}
		if err != nil {
			return nil, usageError{fmt.Sprintf("--evals %s: %v", f.evals, err)}
		}
		ev, err := bench.ParseEvals(data, f.evals)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		fromFile = ev
		switch {
		case len(names) == 0 && ev.SkillName == "":
			return nil, usageError{fmt.Sprintf("%s names no skill_name: name the SKILL to bench", f.evals)}
		case len(names) == 0:
			names = []string{ev.SkillName}
		case len(names) > 1:
			return nil, usageError{"--evals FILE holds one skill's evals: name one SKILL"}
		}
	}
	if len(names) == 0 {
		return nil, usageError{"name the SKILL to bench, or give --evals FILE"}
	}
	var all []string
	for _, s := range w.catalog.All() {
		all = append(all, s.Name)
	}
	var out []*bench.Suite
	for _, name := range names {
		sk := w.catalog.Get(name)
		if sk == nil {
			msg := fmt.Sprintf("skill %q not found", name)
			if c := harness.Closest(name, all, 3); len(c) > 0 {
				msg += "; did you mean " + strings.Join(c, ", ") + "?"
			}
			return nil, usageError{msg}
		}
		if !sk.Valid() && len(sk.Problems) > 0 {
			return nil, usageError{fmt.Sprintf("skill %s is not valid: %s", name, sk.Problems[0])}
		}
		var ev *bench.Evals
		var err error
		if fromFile != nil {
			// its files are relative to the skill's folder, as skill-creator's are
			ev, err = bench.ReadEvals(f.evals, sk.Dir)
		} else {
			ev, err = bench.SkillEvals(sk.Dir, name)
		}
		if err != nil {
			return nil, usageError{err.Error()}
		}
		out = append(out, &bench.Suite{Skill: name, Dir: sk.Dir, Evals: ev})
	}
	return out, nil
}

// makeCatalogs gives each configuration of each skill a catalog of its
// own: the skill alone (with_skill), no skill (without_skill) or the
// baseline version alone. Each is a copy in the benchmark's folder, so a
// resumed benchmark runs the skill it started with.
func (b *benchRun) makeCatalogs() error {
	kind := bench.BaselineKind(b.m.Baseline)
	b.configs = bench.Configurations(b.m.Baseline)
	for _, s := range b.suites {
		root := filepath.Join(b.dir, s.Skill, "skills")
		for _, c := range b.configs {
			dir := filepath.Join(root, c)
			if !exists(dir) {
				if err := b.copyFor(s, c, kind, dir); err != nil {
					_ = os.RemoveAll(dir)
					return err
				}
			}
			cat := skills.NewCatalog([]skills.Root{{Dir: dir, Label: "bench " + c}}, b.w.cfg.ToolsDirs)
			if _, err := cat.Refresh(); err != nil {
				return fmt.Errorf("read the %s copy of %s: %w", c, s.Skill, err)
			}
			if c != bench.WithoutSkill {
				sk := cat.Get(s.Skill)
				if sk == nil {
					return usageError{fmt.Sprintf("the %s version of %s (in %s) has no skill named %s: a baseline must be the same skill", c, s.Skill, dir, s.Skill)}
				}
				if !sk.Valid() && len(sk.Problems) > 0 {
					return usageError{fmt.Sprintf("the %s version of %s is not valid: %s", c, s.Skill, sk.Problems[0])}
				}
			}
			b.catalogs[s.Skill+"/"+c] = cat
		}
	}
	return nil
}

// copyFor writes one configuration's skills root.
func (b *benchRun) copyFor(s *bench.Suite, c, kind, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	switch {
	case c == bench.WithSkill:
		_, err := bench.CopySkill(s.Dir, dir, s.Skill)
		return err
	case c == bench.WithoutSkill:
		return nil
	case kind == "dir":
		if _, err := os.Stat(filepath.Join(b.m.Baseline, "SKILL.md")); err != nil {
			return usageError{fmt.Sprintf("--baseline %s: no SKILL.md there; give the folder of the skill's other version", b.m.Baseline)}
		}
		if sk := skills.LoadSkillFile(filepath.Join(b.m.Baseline, "SKILL.md")); sk != nil && sk.Name != "" && sk.Name != s.Skill {
			return usageError{fmt.Sprintf("--baseline %s: its SKILL.md names %s, not %s: a baseline must be a version of the same skill", b.m.Baseline, sk.Name, s.Skill)}
		}
		_, err := bench.CopySkill(b.m.Baseline, dir, s.Skill)
		return err
	default:
		_, err := bench.SkillAtRevision(s.Dir, b.m.Baseline, dir, s.Skill)
		if err != nil {
			return usageError{err.Error()}
		}
		return nil
	}
}

// pickGrader chooses the model grading expectations: the grader endpoint
// or the runs' own; with the demo model none.
func (b *benchRun) pickGrader(stderr io.Writer) error {
	f, w := b.f, b.w
	name := firstOf(f.graderModel, w.name)
	switch {
	case f.graderBaseURL != "":
		cfg := llm.ConfigFromEnv()
		cfg.BaseURL = f.graderBaseURL
		client, err := llm.New(cfg)
		if err != nil {
			return usageError{"--grader-base-url: " + err.Error()}
		}
		if f.graderModel == "" && w.demo {
			return usageError{"--grader-base-url: give --grader-model too: the runs use the demo model"}
		}
		b.grader = &bench.ModelGrader{Model: client, Name: name}
	case w.demo:
		n := 0
		for _, s := range b.suites {
			for _, e := range s.Evals.Evals {
				n += len(e.Expectations)
			}
		}
		if n > 0 {
			fmt.Fprintf(stderr, "skillet bench: model grading needs a real model: the demo model grades nothing, so only the checks are graded (%d plain-language expectations left ungraded; give --grader-base-url and --grader-model to grade them)\n", n)
		}
	default:
		b.grader = &bench.ModelGrader{Model: w.model, Name: name}
	}
	return nil
}

func hasCommandChecks(suites []*bench.Suite) bool {
	for _, s := range suites {
		for _, e := range s.Evals.Evals {
			for _, c := range e.Checks {
				if c.Kind == bench.KindCommand {
					return true
				}
			}
		}
	}
	return false
}

// newSession opens a run's session as `skillet run` opens one, over the
// configuration's catalog, in a workspace copied from the eval's files,
// approving every tool (nobody is there to ask).
func (b *benchRun) newSession(spec bench.RunSpec, onEvent func(event.Event)) (eval.Session, error) {
	cfg := *b.w.cfg
	cfg.Workspace, cfg.WorkspaceInPlace = spec.Inputs, ""
	rw := *b.w
	rw.cfg = &cfg
	rw.catalog = b.catalogs[spec.Skill+"/"+spec.Configuration]
	rw.journal = ""
	rc := b.f.common
	rc.sessionDir, rc.resume = spec.Dir, ""
	return runSession(openSession(&rc, &rw, harness.Options{OnEvent: onEvent, NewID: func() string { return bench.SessionID }, ApproveAll: true,
		CatalogOnly: true})) // the configuration's catalog holds exactly its skills
}

func (b *benchRun) gradable(e bench.Eval) bool { return len(e.Checks) > 0 || b.grader != nil }

// run executes the missing runs, writes the reports and prints the verdicts.
func (b *benchRun) run(stdout, stderr io.Writer) int {
	if b.w.demo {
		fmt.Fprintln(stderr, "skillet: using the offline demo model (rule-based, not an LLM)")
	}
	ctx, sigs := catchStops(context.Background())
	defer sigs.stop()
	prog := newBenchProgress(stderr)
	runs, err := bench.Execute(ctx, bench.Options{Out: b.dir, Suites: b.suites, Configurations: b.configs, Runs: b.m.Runs,
		Workers: b.f.workers, NewSession: b.newSession, Checks: b.checks, Grader: b.grader, Progress: prog.show})
	prog.done()
	if runs == nil && err != nil {
		fmt.Fprintln(stderr, "skillet bench:", err)
		return 1
	}
	rep := &bench.Report{Created: b.m.Created, Model: b.m.Model, Runs: b.m.Runs, Configurations: b.configs,
		Baseline: b.m.Baseline, Interval: bench.IntervalName,
		Skills: bench.Summarize(b.suites, b.configs, runs, b.gradable)}
	if b.grader != nil {
		rep.GraderModel = b.grader.Name
	}
	if werr := bench.WriteAll(b.dir, rep); werr != nil {
		err = errors.Join(err, werr)
	}
	printBench(stdout, rep, b.dir)
	status := 0
	if err != nil {
		status = 1
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "skillet bench: interrupted%s: the graded runs are kept in %s; continue with: skillet bench --resume %s\n", signalBy(sigs), b.dir, b.dir)
		} else {
			fmt.Fprintf(stderr, "skillet bench: %v; the graded runs are kept: continue with: skillet bench --resume %s\n", err, b.dir)
		}
	}
	if requireVerdict(stderr, "skillet bench", b.f.require, rep) != 0 {
		status = 1
	}
	return status
}

// printBench writes a line per skill, configuration and eval.
func printBench(w io.Writer, rep *bench.Report, dir string) {
	for _, s := range rep.Skills {
		fmt.Fprintf(w, "%s: %s · pooled delta %+.2f [%+.2f, %+.2f] (%s − %s)\n", s.Skill, s.Verdict, s.Pooled.Delta, s.Pooled.Low, s.Pooled.High, rep.Configurations[0], rep.Configurations[1])
		for _, c := range s.Configs {
			fmt.Fprintf(w, "  %-14s %d runs (%d errors) · pass rate %.2f±%.2f · tokens %.0f±%.0f · model calls %.1f±%.1f · tool calls %.1f±%.1f · %.1f±%.1f s\n",
				c.Configuration, c.Runs, c.Errors, c.PassRate.Mean, c.PassRate.Stddev, c.Tokens.Mean, c.Tokens.Stddev,
				c.ModelCalls.Mean, c.ModelCalls.Stddev, c.ToolCalls.Mean, c.ToolCalls.Stddev, c.TimeSeconds.Mean, c.TimeSeconds.Stddev)
		}
		for _, e := range s.Evals {
			parts := []string{}
			for _, c := range e.Configs {
				p := fmt.Sprintf("%d/%d [%.2f, %.2f]", c.Passed, c.Runs, c.Low, c.High)
				if c.Errors > 0 {
					p += fmt.Sprintf(" (%d errors)", c.Errors)
				}
				parts = append(parts, p)
			}
			line := fmt.Sprintf("  %-12s %s", e.Verdict, strings.Join(parts, " vs "))
			if e.Verdict != bench.VerdictError && e.Verdict != bench.VerdictUngraded {
				line += fmt.Sprintf(" · delta %+.2f [%+.2f, %+.2f]", e.Delta.Delta, e.Delta.Low, e.Delta.High)
			}
			if e.Flaky {
				line += " · flaky"
			}
			fmt.Fprintf(w, "%s · %s\n", line, e.Name)
		}
	}
	fmt.Fprintf(w, "intervals: %s\n", rep.Interval)
	names := []string{bench.JUnitFile, bench.HTMLFile}
	for _, s := range rep.Skills {
		names = append(names, filepath.Join(s.Skill, bench.BenchmarkFile))
	}
	fmt.Fprintf(w, "results in %s: %s\n", dir, strings.Join(names, ", "))
}

// benchProgress is the progress line: runs done, errors, tokens and ETA,
// on a terminal only.
type benchProgress struct {
	w     io.Writer
	on    bool
	shown bool
}

func newBenchProgress(w io.Writer) *benchProgress {
	on := false
	if lw, ok := w.(*lockedWriter); ok {
		if f, ok := lw.w.(*os.File); ok {
			on = term.IsTerminal(f.Fd())
		}
	}
	return &benchProgress{w: w, on: on}
}

func (p *benchProgress) show(pr bench.Progress) {
	if !p.on {
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", progressText(pr))
	p.shown = true
}

// progressText is the progress line's text.
func progressText(pr bench.Progress) string {
	eta := "…"
	if pr.ETA > 0 {
		eta = pr.ETA.Round(time.Second).String()
	}
	return fmt.Sprintf("run %d/%d · %d errors · %d tokens · %s elapsed · ETA %s", pr.Done, pr.Total, pr.Errors, pr.Tokens, pr.Elapsed.Round(time.Second), eta)
}

func (p *benchProgress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
