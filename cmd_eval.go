package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"skillet/harness"
	"skillet/harness/config"
	"skillet/harness/eval"
	"skillet/harness/eval/report"
	"skillet/harness/event"
	"skillet/harness/why"
)

const evalUsage = `usage: skillet eval [flags] [SKILL...] [--queries FILE]
       skillet eval report [--fail-on undetermined] DIR

Measures whether skills trigger. Each run is a fresh session of one user
turn over the whole library; a run triggered skill S when the model itself
called load_skill for S. Queries come from --queries FILE (skill-creator's
[{"query": "...", "should_trigger": true}, ...]) or from each named skill's
evals/triggers.json. Results, every run's session and the reports go in
the eval's folder (--out). "skillet eval report DIR" scores a folder again
from its journals, without calling the model.

Exit status: 0 when no query's verdict is fail or error, 1 when one is, when
more than 20 % of the runs errored or the eval could not finish, 2 on a
usage error.

Flags:
`

// evalFlags are `skillet eval`'s own flags.
type evalFlags struct {
	common
	queries     string
	runs        string
	maxRuns     int
	maxErrors   int
	threshold   float64
	seed        int64
	routingOnly bool
	maxSteps    int
	aa          bool
	workers     int
	budget      int
	out         string
	failOn      string
	// the description optimizer
	optimize     string
	improveModel string
	iterations   int
	write        bool
}

// minAutoRuns is the fewest runs a query gets with --runs auto.
const minAutoRuns = 3

// defaultMaxRuns is --max-runs: the confidence sequence of --runs auto
// decides a query at a rate of 0.9 within 20 runs nine times in ten,
// within 10 only half the time.
const defaultMaxRuns = 20

// errorShare is the share of errored runs over which the exit status is
// 1 even when every query has its runs.
const errorShare = 0.2

func (f *evalFlags) register(fs *flag.FlagSet) {
	// No tape flags: the runs go at once, and one cassette cannot hold
	// them apart.
	f.common.registerLive(fs)
	fs.Lookup("resume").Usage = "continue the eval in `DIR`: its finished runs are kept and skipped"
	fs.Lookup("session-dir").Usage = "ignored by eval: every run's session goes in the eval's folder (--out)"
	fs.StringVar(&f.queries, "queries", "", "query `FILE` (JSON); default each named skill's evals/triggers.json")
	fs.StringVar(&f.runs, "runs", "auto", "runs per query: auto (at least 3, more until the confidence sequence decides the verdict, at most --max-runs) or `N`")
	fs.IntVar(&f.maxRuns, "max-runs", defaultMaxRuns, "most scored runs per query with --runs auto")
	fs.IntVar(&f.maxErrors, "max-errors", 0, "errored runs a query may have, each run again, before it ends in error (default: as many as its runs)")
	fs.Float64Var(&f.threshold, "threshold", eval.Threshold, "trigger `RATE` a should-trigger query must reach and a should-not one stay below (skill-creator's --trigger-threshold)")
	fs.Int64Var(&f.seed, "seed", 1, "`N` seeding the catalogue order of every run")
	fs.BoolVar(&f.routingOnly, "routing-only", false, "offer the tool that loads skills and no other, and stop after the first model call")
	fs.IntVar(&f.maxSteps, "max-steps", 0, "most model calls per run (default the turn's own limits)")
	fs.BoolVar(&f.aa, "aa", false, "run every query in two identical arms, A and B, to show the noise floor")
	fs.IntVar(&f.workers, "workers", 3, "runs at once")
	fs.IntVar(&f.budget, "budget", 0, "stop once the runs used this many `TOKENS` (0: no limit)")
	fs.StringVar(&f.out, "out", "", "the eval's `DIR` (default $XDG_STATE_HOME/skillet/evals/ID)")
	fs.StringVar(&f.failOn, "fail-on", "fail", "verdicts that make the exit status 1: fail, or undetermined (fail and undetermined)")
	fs.StringVar(&f.optimize, "optimize", "", "improve `SKILL`'s description: 60/40 train/validation split from --seed, up to --iterations rewrites, best by validation")
	fs.StringVar(&f.improveModel, "improve-model", "", "model `NAME` that rewrites descriptions (default the configured model)")
	fs.IntVar(&f.iterations, "iterations", eval.MaxIterations, "most rewrites with --optimize (at most 5)")
	fs.BoolVar(&f.write, "write", false, "with --optimize, write the winning description into the skill's SKILL.md")
}

// runEval is `skillet eval`.
func runEval(args []string, stdout, stderr io.Writer) int {
	stderr = &lockedWriter{w: stderr}
	if len(args) > 0 && args[0] == "report" {
		return runEvalReport(args[1:], stdout, stderr)
	}
	var f evalFlags
	fs := flag.NewFlagSet("skillet eval", flag.ContinueOnError)
	f.register(fs)
	skillArgs, code, done := parseInterleaved(fs, args, evalUsage, stdout, stderr)
	if done {
		return code
	}
	plan, err := f.plan()
	if err == nil {
		err = checkFailOn(f.failOn)
	}
	if err != nil {
		fmt.Fprintln(stderr, "skillet eval:", err)
		return 2
	}
	dir, m, w, err := f.prepare(skillArgs, plan, stderr)
	if err != nil {
		return reportError(stderr, "skillet eval", err)
	}
	defer w.close()
	if f.optimize != "" {
		return f.runOptimize(dir, m, w, stdout, stderr)
	}
	return f.execute(dir, m, w, stdout, stderr)
}

func checkFailOn(v string) error {
	if v != eval.VerdictFail && v != eval.VerdictUndetermined {
		return usageError{fmt.Sprintf("--fail-on %s: want fail or undetermined", v)}
	}
	return nil
}

// plan reads the flags that say how many runs each query gets.
func (f *evalFlags) plan() (eval.Plan, error) {
	p := eval.Plan{MinRuns: minAutoRuns, MaxRuns: f.maxRuns, MaxErrors: f.maxErrors, Seed: f.seed, RoutingOnly: f.routingOnly, MaxSteps: f.maxSteps, Arms: []string{""}}
	if f.threshold != eval.Threshold {
		p.Threshold = f.threshold
	}
	if f.runs != "auto" {
		n, err := strconv.Atoi(f.runs)
		if err != nil || n < 1 {
			return p, usageError{fmt.Sprintf("--runs %s: want auto or a whole number of at least 1", f.runs)}
		}
		p.Runs = n
	}
	switch {
	case f.maxRuns < minAutoRuns:
		return p, usageError{fmt.Sprintf("--max-runs %d: want at least %d", f.maxRuns, minAutoRuns)}
	case f.maxSteps < 0:
		return p, usageError{fmt.Sprintf("--max-steps %d: want 0 (the turn's limits) or more", f.maxSteps)}
	case f.workers < 1:
		return p, usageError{fmt.Sprintf("--workers %d: want at least 1", f.workers)}
	case f.budget < 0:
		return p, usageError{fmt.Sprintf("--budget %d: want 0 (no limit) or more tokens", f.budget)}
	case f.maxErrors < 0:
		return p, usageError{fmt.Sprintf("--max-errors %d: want 0 (as many as the runs) or more", f.maxErrors)}
	case !(f.threshold > 0 && f.threshold < 1):
		return p, usageError{fmt.Sprintf("--threshold %v: want a rate between 0 and 1, such as 0.5", f.threshold)}
	}
	if f.routingOnly && (f.maxSteps == 0 || f.maxSteps > 1) {
		p.MaxSteps = 1
	}
	if f.aa {
		p.Arms = []string{"A", "B"}
	}
	if f.optimize != "" {
		switch {
		case f.aa:
			return p, usageError{"--optimize and --aa: choose one"}
		case f.resume != "":
			return p, usageError{"--optimize cannot be resumed: start it again"}
		case f.iterations < 1 || f.iterations > eval.MaxIterations:
			return p, usageError{fmt.Sprintf("--iterations %d: want 1 to %d", f.iterations, eval.MaxIterations)}
		}
	} else if f.write {
		return p, usageError{"--write only applies to --optimize"}
	}
	return p, nil
}

// prepare wires skills and model, reads the queries and makes the eval's
// folder and manifest; with --resume it reads them back instead.
func (f *evalFlags) prepare(args []string, plan eval.Plan, stderr io.Writer) (dir string, m *eval.Manifest, w *wiring, err error) {
	resume := f.resume
	f.resume = "" // --resume names an eval folder here, not a session
	if resume != "" {
		return f.prepareResume(resume, args, stderr)
	}
	if f.optimize != "" && len(args) == 0 && f.queries == "" {
		args = []string{f.optimize}
	}
	if f.optimize != "" && len(args) > 0 && !slices.Contains(args, f.optimize) {
		return "", nil, nil, usageError{fmt.Sprintf("--optimize %s: not among the skills evaluated (%s)", f.optimize, strings.Join(args, ", "))}
	}
	wired, err := wire(&f.common)
	if err != nil {
		return "", nil, nil, err
	}
	defer func() {
		if err != nil {
			wired.close() // a failed prepare returns no wiring to close
		}
	}()
	w = wired
	cat := catalogue(w)
	var queries []eval.Query
	switch {
	case f.queries != "":
		def := ""
		switch {
		case len(args) == 1:
			def = args[0]
		case len(args) == 0:
			def = f.optimize // rows that name no skill are about the one optimized
		}
		if queries, err = eval.ReadQueries(f.queries, def); err != nil {
			return "", nil, nil, usageError{err.Error()}
		}
	case len(args) == 0:
		return "", nil, nil, usageError{"name the SKILL to evaluate, or give --queries FILE"}
	default:
		for _, name := range args {
			sk := w.catalog.Get(name)
			if sk == nil {
				continue // CheckSkills names it with the closest ones
			}
			qs, err := eval.SkillQueries(sk.Dir, name)
			if err != nil {
				return "", nil, nil, usageError{err.Error()}
			}
			queries = append(queries, qs...)
		}
	}
	evaluated := args
	if len(evaluated) == 0 {
		evaluated = eval.Skills(queries)
	}
	for _, r := range w.cfg.Skills {
		if r.Preload && (slices.Contains(evaluated, r.Name) || slices.Contains(eval.Skills(queries), r.Name)) {
			return "", nil, nil, usageError{fmt.Sprintf("skill %s is preloaded by %s: it is in every request and cannot trigger; evaluate it without preload = true", r.Name, w.cfg.Path)}
		}
	}
	closest := func(n string, names []string) []string { return harness.Closest(n, names, 3) }
	invalid := func(n string) string {
		if sk := w.catalog.Get(n); sk != nil && !sk.Valid() && len(sk.Problems) > 0 {
			return sk.Problems[0].String()
		}
		return ""
	}
	if err := eval.CheckSkills(queries, args, cat, closest, invalid); err != nil {
		return "", nil, nil, usageError{err.Error()}
	}
	m = &eval.Manifest{Created: time.Now().UTC(), Queries: queries, Plan: plan, Catalogue: cat,
		Model: w.name, BaseURL: redactedURL(w.baseURL), Demo: w.demo, Roots: rootDirs(w.catalog), Config: w.cfg.Path, Sets: f.sets}
	if w.demo {
		m.BaseURL = ""
	}
	for _, name := range evaluated {
		m.Skills = append(m.Skills, eval.SkillInfo{Name: name, Description: w.catalog.Get(name).Description})
	}
	dir = f.out
	if dir == "" {
		dir = freshFolder("evals")
	}
	if _, err := os.Stat(filepath.Join(dir, eval.ManifestFile)); err == nil || exists(filepath.Join(dir, optimizeJSON)) {
		return "", nil, nil, usageError{fmt.Sprintf("--out %s already holds an eval: continue it with --resume %s, or choose another folder", dir, dir)}
	}
	printNotices(stderr, w)
	return dir, m, w, nil
}

// redactedURL drops what a base URL may carry of credentials (user info,
// query values) before it is written into the eval's folder.
func redactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if u.User == nil && u.RawQuery == "" {
		return raw
	}
	u.User = nil
	q := u.Query()
	for k := range q {
		q.Set(k, "REDACTED")
	}
	u.RawQuery = q.Encode()
	return u.String() + "#REDACTED"
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// prepareResume reads an eval folder back; the skills, config and model
// are the ones it recorded unless flags say otherwise.
func (f *evalFlags) prepareResume(dir string, args []string, stderr io.Writer) (string, *eval.Manifest, *wiring, error) {
	m, err := eval.ReadManifest(dir)
	if err != nil {
		return "", nil, nil, usageError{"--resume: " + err.Error()}
	}
	if len(args) > 0 || f.queries != "" {
		return "", nil, nil, usageError{"--resume continues the eval as it was started: give no SKILL nor --queries"}
	}
	w, err := f.wireFor(m)
	if err != nil {
		return "", nil, nil, err
	}
	printNotices(stderr, w)
	return dir, m, w, nil
}

// wireFor wires skills and model for a manifest: its own folders, config,
// settings and model, unless the flags name others.
func (f *evalFlags) wireFor(m *eval.Manifest) (*wiring, error) {
	c := f.common
	if len(c.skills) == 0 {
		for _, r := range m.Roots {
			if fi, err := os.Stat(r); err == nil && fi.IsDir() {
				c.skills = append(c.skills, r)
			}
		}
	}
	if c.config == "" && m.Config != "" {
		if _, err := os.Stat(m.Config); err == nil {
			c.config = m.Config
		}
	}
	if len(c.sets) == 0 {
		c.sets = m.Sets
	}
	if c.model == "" && !m.Demo {
		c.model = m.Model
	}
	if c.baseURL == "" && !m.Demo && !strings.Contains(m.BaseURL, "REDACTED") {
		c.baseURL = m.BaseURL
	}
	if c.baseURL == "" && strings.Contains(m.BaseURL, "REDACTED") {
		return nil, usageError{fmt.Sprintf("--resume: the eval's endpoint %s had credentials in its URL, which are not recorded: give --base-url again", m.BaseURL)}
	}
	c.offline = c.offline || (m.Demo && c.baseURL == "")
	w, err := wire(&c)
	if err != nil {
		return nil, err
	}
	// one eval, one model: resumed runs must not mix in another
	if w.demo != m.Demo || w.name != m.Model {
		w.close()
		return nil, usageError{fmt.Sprintf("--resume: the eval ran with model %s, this would use %s; give the same --model and --base-url", m.Model, w.name)}
	}
	return w, nil
}

// catalogue are the skills every run lists: the enabled, not preloaded
// ones, in the config's order.
func catalogue(w *wiring) []string {
	sel, _ := w.catalog.Select(w.cfg.Refs())
	if sel == nil {
		return nil
	}
	var out []string
	for _, sk := range sel.Enabled {
		if !slices.Contains(sel.Preload, sk) {
			out = append(out, sk.Name)
		}
	}
	return out
}

// execute runs the eval's missing runs and writes its reports.
func (f *evalFlags) execute(dir string, m *eval.Manifest, w *wiring, stdout, stderr io.Writer) int {
	if w.demo {
		fmt.Fprintln(stderr, "skillet: using the offline demo model (rule-based, not an LLM)")
	}
	warnPlan(stderr, m.Plan)
	ctx, sigs := catchStops(context.Background())
	defer sigs.stop()
	rep, out, err := f.runScored(ctx, dir, m, w, stderr)
	if out == nil {
		fmt.Fprintln(stderr, "skillet eval:", err)
		return 1
	}
	printSummary(stdout, rep, dir)
	status := exitStatus(rep, f.failOn)
	for _, p := range errorProblems(rep) {
		fmt.Fprintln(stderr, "skillet eval:", p)
	}
	switch out.Stopped {
	case eval.StoppedInterrupted:
		fmt.Fprintf(stderr, "skillet eval: interrupted%s: %d finished runs are kept in %s; continue with: skillet eval --resume %s\n", signalBy(sigs), len(out.Runs), dir, dir)
		status = max(status, 1)
	case eval.StoppedBudget:
		fmt.Fprintf(stderr, "skillet eval: stopped at the --budget of %d tokens (%d used); continue with: skillet eval --resume %s --budget N\n", f.budget, rep.Tokens, dir)
		status = max(status, 1)
	case eval.StoppedFailing:
		fmt.Fprintf(stderr, "skillet eval: stopped: the endpoint failed the last %d runs: %s; once it works, continue with: skillet eval --resume %s\n", out.Failing, out.Failure, dir)
		status = max(status, 1)
	}
	if err != nil {
		fmt.Fprintln(stderr, "skillet eval:", err)
		status = max(status, 1)
	}
	return status
}

// runScored runs the manifest's queries in dir under a progress line on
// stderr, scores the runs that finished and writes the report files. out
// is nil when nothing ran; err joins what stopped the runs and what kept
// the report from being written.
func (f *evalFlags) runScored(ctx context.Context, dir string, m *eval.Manifest, w *wiring, stderr io.Writer) (*eval.Report, *eval.Outcome, error) {
	prog := newProgressLine(stderr, f.workers)
	out, err := eval.Execute(ctx, eval.Options{Dir: dir, Manifest: m, Workers: f.workers, Budget: f.budget,
		NewSession: sessionFunc(&f.common, w), Progress: prog.show})
	prog.done()
	if out == nil {
		return nil, nil, err
	}
	rep := eval.Score(m, out.Runs)
	rep.Stopped = out.Stopped
	if werr := report.WriteAll(dir, rep); werr != nil {
		err = errors.Join(err, werr)
	}
	return rep, out, err
}

// sessionFunc opens each run's session as `skillet run` opens one, with
// the run's catalogue order and, for --routing-only, the load tool alone.
func sessionFunc(c *common, w *wiring) eval.SessionFunc {
	return func(spec eval.RunSpec, onEvent func(event.Event)) (eval.Session, error) {
		cfg := *w.cfg
		cfg.Skills = orderedRefs(w.cfg.Skills, spec.Order)
		if spec.RoutingOnly {
			cfg.Agent.Tools = nil
		}
		rw := *w
		rw.cfg = &cfg
		rc := *c
		rc.sessionDir, rc.resume = spec.Dir, ""
		return runSession(openSession(&rc, &rw, harness.Options{OnEvent: onEvent, NewID: func() string { return spec.ID }, RoutingOnly: spec.RoutingOnly}))
	}
}

// runSession hands an opened session to eval or bench, which know it by
// what a run needs of it; nil when it did not open, so that a failed open
// is never a session.
func runSession(s *harness.Session, err error) (eval.Session, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

// orderedRefs names the skills in order; refs the config already has
// keep their pin and preload, and preloads stay.
func orderedRefs(refs []config.SkillRef, order []string) []config.SkillRef {
	byName := make(map[string]config.SkillRef, len(refs))
	var out []config.SkillRef
	if len(order) > 0 { // a library's worth each run: grown once
		out = make([]config.SkillRef, 0, len(order)+len(refs))
	}
	for _, r := range refs {
		byName[r.Name] = r
		if r.Preload {
			out = append(out, r)
		}
	}
	for _, name := range order {
		r, ok := byName[name]
		if !ok {
			r = config.SkillRef{Name: name}
		}
		if !r.Preload {
			out = append(out, r)
		}
	}
	return out
}

// runEvalReport is `skillet eval report DIR`.
func runEvalReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("skillet eval report", flag.ContinueOnError)
	failOn := fs.String("fail-on", "fail", "verdicts that make the exit status 1: fail, or undetermined")
	if code, done := parseFlags(fs, args, evalUsage, stdout, stderr); done {
		return code
	}
	if err := checkFailOn(*failOn); err != nil {
		fmt.Fprintln(stderr, "skillet eval report:", err)
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "skillet eval report: give the eval's folder: skillet eval report DIR")
		return 2
	}
	dir := fs.Arg(0)
	rep, problems, err := Rescore(dir)
	if err != nil {
		fmt.Fprintln(stderr, "skillet eval report:", err)
		return 2
	}
	for _, p := range problems {
		fmt.Fprintln(stderr, "skillet eval report: warning:", p)
	}
	if err := report.WriteAll(dir, rep); err != nil {
		fmt.Fprintln(stderr, "skillet eval report:", err)
		return 1
	}
	printSummary(stdout, rep, dir)
	status := exitStatus(rep, *failOn)
	for _, p := range errorProblems(rep) {
		fmt.Fprintln(stderr, "skillet eval report:", p)
	}
	if missing := incomplete(rep.Plan, rep); len(missing) > 0 {
		fmt.Fprintf(stderr, "skillet eval report: the eval is incomplete: %d queries lack their runs: %s; continue with: skillet eval --resume %s\n",
			len(missing), listSome(missing, "; "), dir)
		status = max(status, 1)
	}
	return status
}

// warnPlan says when the plan can never give fail: every query would be
// pass or undetermined whatever the model does.
func warnPlan(w io.Writer, p eval.Plan) {
	if p.CanFail() {
		return
	}
	n, what := p.Runs, fmt.Sprintf("--runs %d", p.Runs)
	if p.Sequential() {
		n, what = p.MaxRuns, fmt.Sprintf("--max-runs %d", p.MaxRuns)
	}
	lo, hi := p.Interval(0, n)
	fmt.Fprintf(w, "skillet eval: warning: with %s no query can get the verdict fail: even 0 of %d leaves the interval [%.2f, %.2f] across the threshold; allow more runs for verdicts that can fail\n",
		what, n, lo, hi)
}

// Rescore scores an eval folder again from its runs' journals.
func Rescore(dir string) (*eval.Report, []string, error) {
	m, err := eval.ReadManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	runs, err := eval.ReadRuns(dir)
	if err != nil {
		return nil, nil, err
	}
	runs, problems := eval.Rescore(dir, m, runs)
	rep := eval.Score(m, runs)
	if planned(m, rep) {
		rep.Stopped = ""
	} else {
		rep.Stopped = "incomplete"
	}
	return rep, problems, nil
}

// planned reports whether every query has the runs its plan asks for, a
// verdict (auto), or its errors up to the cap.
func planned(m *eval.Manifest, rep *eval.Report) bool {
	return len(incomplete(m.Plan, rep)) == 0
}

// incomplete names the queries that still need runs: neither done by
// their plan nor ended in error.
func incomplete(p eval.Plan, rep *eval.Report) []string {
	var out []string
	for _, a := range rep.Arms {
		for _, s := range a.Skills {
			for _, q := range s.Queries {
				if q.Verdict != eval.VerdictError && p.Needs(q.Runs, q.Verdict) {
					out = append(out, fmt.Sprintf("%q (%d of %s scored runs)", why.Clip(q.Query, 40), q.Runs, wanted(p)))
				}
			}
		}
	}
	return out
}

func wanted(p eval.Plan) string {
	if p.Runs > 0 {
		return strconv.Itoa(p.Runs)
	}
	return fmt.Sprintf("%d to %d", p.MinRuns, p.MaxRuns)
}

// exitStatus is 1 when a verdict is fail or error (or undetermined, with
// --fail-on undetermined), or too many runs errored.
func exitStatus(rep *eval.Report, failOn string) int {
	for _, v := range rep.Verdicts() {
		if v == eval.VerdictFail || v == eval.VerdictError || (failOn == eval.VerdictUndetermined && v == eval.VerdictUndetermined) {
			return 1
		}
	}
	if tooManyErrors(rep) {
		return 1
	}
	return 0
}

func tooManyErrors(rep *eval.Report) bool {
	return rep.Runs > 0 && float64(rep.Errors) > errorShare*float64(rep.Runs)
}

// errorProblems says what the errored runs cost: the queries left in
// error, and the share of errored runs when it is over errorShare.
func errorProblems(rep *eval.Report) []string {
	var out, names []string
	first := ""
	for _, a := range rep.Arms {
		for _, s := range a.Skills {
			for _, q := range s.Queries {
				if q.Verdict == eval.VerdictError {
					names = append(names, fmt.Sprintf("%q", why.Clip(q.Query, 40)))
				}
				for _, c := range q.Cells {
					if first == "" && c.Outcome == eval.OutcomeError {
						first = c.Detail
					}
				}
			}
		}
	}
	if len(names) > 0 {
		out = append(out, fmt.Sprintf("%d queries ended in error, their runs failing before the model decided: %s", len(names), listSome(names, ", ")))
	}
	if tooManyErrors(rep) {
		out = append(out, fmt.Sprintf("%d of %d runs errored (%.0f%%, over %.0f%%): the rates rest on fewer runs than asked", rep.Errors, rep.Runs, 100*float64(rep.Errors)/float64(rep.Runs), 100*errorShare))
	}
	if len(out) > 0 && first != "" {
		out = append(out, "first error: "+why.Clip(first, 200))
	}
	return out
}

// printSummary writes one line per query and per skill.
func printSummary(w io.Writer, rep *eval.Report, dir string) {
	for _, a := range rep.Arms {
		for _, s := range a.Skills {
			name := s.Name
			if a.Name != "" {
				name += " [arm " + a.Name + "]"
			}
			verdicts := fmt.Sprintf("%d pass, %d fail, %d undetermined", s.VerdictPass, s.VerdictFail, s.Undetermined)
			if s.VerdictError > 0 {
				verdicts += fmt.Sprintf(", %d error", s.VerdictError)
			}
			fmt.Fprintf(w, "%s: %d/%d queries pass · verdicts %s · precision %.2f recall %.2f F1 %.2f accuracy %.2f · hijack %.0f%%\n",
				name, s.Passed, len(s.Queries), verdicts, s.Precision, s.Recall, s.F1, s.Accuracy, 100*s.HijackRate)
			for _, q := range s.Queries {
				want := "should"
				if !q.ShouldTrigger {
					want = "should not"
				}
				counts := fmt.Sprintf("%d/%d [%.2f, %.2f]", q.Triggers, q.Runs, q.Low, q.High)
				if q.Verdict == eval.VerdictError {
					counts = fmt.Sprintf("%d scored", q.Runs)
				}
				if q.Errors > 0 {
					counts += fmt.Sprintf(" (%d errors)", q.Errors)
				}
				fmt.Fprintf(w, "  %-12s %s %-10s %s\n", q.Verdict, counts, want, why.Clip(q.Query, 70))
				if q.ExpectMet != nil && *q.ExpectMet < q.Runs {
					fmt.Fprintf(w, "  %-12s expect met in %d/%d runs; %s\n", "", *q.ExpectMet, q.Runs, why.Clip(q.ExpectFailure, 120))
				}
			}
		}
	}
	fmt.Fprintf(w, "intervals: %s, 95 %%; threshold %.2f\n", intervalName(rep.Plan), rep.Plan.TriggerThreshold())
	if len(rep.Arms) == 2 {
		fmt.Fprintf(w, "A/A: %d queries differ between two identical arms\n", rep.Flips)
	}
	fmt.Fprintf(w, "%d runs (%d errors, %d tokens) in %s: %s, %s, %s\n", rep.Runs, rep.Errors, rep.Tokens, dir, report.JSONFile, report.JUnitFile, report.HTMLFile)
}

// progressLine shows runs done, passing queries and the ETA on one line of
// a terminal; elsewhere it stays silent.
type progressLine struct {
	w       io.Writer
	on      bool
	shown   bool
	workers int
	// quietUntil holds off the next wait notice off a terminal.
	quietUntil time.Time
}

func newProgressLine(w io.Writer, workers int) *progressLine {
	on := false
	if lw, ok := w.(*lockedWriter); ok {
		if f, ok := lw.w.(*os.File); ok {
			on = term.IsTerminal(f.Fd())
		}
	}
	return &progressLine{w: w, on: on, workers: workers}
}

func (p *progressLine) show(pr eval.Progress) {
	if !p.on {
		// off a terminal only a long wait is told, once per wait
		if pr.Waiting > 0 && time.Now().After(p.quietUntil) {
			fmt.Fprintf(p.w, "skillet eval: rate-limited: the endpoint asked to wait %s before a retry\n", pr.Waiting.Round(time.Second))
			p.quietUntil = time.Now().Add(pr.Waiting)
		}
		return
	}
	eta := "…"
	if pr.ETA > 0 {
		eta = pr.ETA.Round(time.Second).String()
	}
	extra := ""
	if pr.Workers > 0 && pr.Workers < p.workers {
		extra += fmt.Sprintf(" · rate-limited: %d at once", pr.Workers)
	}
	if pr.Waiting > 0 {
		extra += fmt.Sprintf(" · waiting %s as the endpoint asked", pr.Waiting.Round(time.Second))
	}
	fmt.Fprintf(p.w, "\r\x1b[Krun %d/%d · %d/%d queries passing · %d decided · %d errors · %d tokens · ETA %s%s",
		pr.Done, pr.Total, pr.Passing, pr.Queries, pr.Decided, pr.Errors, pr.Tokens, eta, extra)
	p.shown = true
}

func (p *progressLine) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// listSome joins the first ten items and says how many more there are.
func listSome(items []string, sep string) string {
	const most = 10
	if len(items) <= most {
		return strings.Join(items, sep)
	}
	return strings.Join(items[:most], sep) + fmt.Sprintf("%sand %d more", sep, len(items)-most)
}

// intervalName says which interval the plan's verdicts rest on.
func intervalName(p eval.Plan) string {
	if p.Sequential() {
		return eval.IntervalSequence + " (valid wherever --runs auto stops)"
	}
	return "Wilson score"
}
