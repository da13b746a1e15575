package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"skillet/harness/eval"
	"skillet/harness/event"
	"skillet/harness/journal"
)

// Configuration names, as skill-creator's viewer groups runs by them.
const (
	WithSkill    = "with_skill"
	WithoutSkill = "without_skill"
	// Baseline is another version of the skill: a folder or a revision.
	Baseline = "baseline"
)

// Suite is one skill's evals to bench.
type Suite struct {
	Skill string
	// Dir is the skill's folder.
	Dir   string
	Evals *Evals
}

// RunSpec is what one run's session is made from.
type RunSpec struct {
	Skill         string
	Eval          Eval
	Configuration string
	// Attempt numbers the run within its eval and configuration (run-N).
	Attempt int
	// Dir is the run's folder: the session goes in Dir/session.
	Dir string
	// Inputs is the folder the run's workspace starts as a copy of: the
	// eval's files.
	Inputs string
}

// SessionID is the id of every run's session, inside its run folder.
const SessionID = "session"

// SessionFunc opens a fresh headless session for a run, handing every
// event to onEvent; the engine's *harness.Session is one (see
// eval.Session).
type SessionFunc func(spec RunSpec, onEvent func(event.Event)) (eval.Session, error)

// Options configure Execute.
type Options struct {
	// Out is the benchmark's folder: Out/SKILL/eval-ID/CONFIG/run-N.
	Out            string
	Suites         []*Suite
	Configurations []string
	// Runs is how many scored runs each eval gets per configuration; an
	// errored run is run again, up to 2 × Runs attempts in all.
	Runs       int
	Workers    int
	NewSession SessionFunc
	Checks     *CheckRunner
	// Grader grades plain-language expectations; nil leaves them
	// ungraded (the demo model cannot grade).
	Grader   *ModelGrader
	Progress func(Progress)
}

// Progress is where a running benchmark stands.
type Progress struct {
	Done, Total, Errors, Tokens int
	Elapsed, ETA                time.Duration
}

// unit is one eval in one configuration.
type unit struct {
	suite  *Suite
	eval   int
	config string
	dir    string
	inputs string
	// runs are its finished attempts; used the attempt numbers taken.
	runs                     []*RunResult
	scored, errored, running int
	used                     map[int]bool
}

func (u *unit) wants(runs int) bool {
	return u.scored+u.running < runs && u.scored+u.errored+u.running < 2*runs
}

// RunDir is a run's folder.
func RunDir(out, skill string, evalID int, config string, attempt int) string {
	return filepath.Join(out, skill, fmt.Sprintf("eval-%d", evalID), config, fmt.Sprintf("run-%d", attempt))
}

// Execute runs every eval's missing runs in every configuration and
// returns all the finished runs, earlier ones (--resume) included. A run
// whose grading.json is in place is kept; unfinished or errored ones are
// run again. It stops early when ctx ends or the endpoint refuses every
// request; what finished is kept.
func Execute(ctx context.Context, opts Options) ([]*RunResult, error) {
	if opts.Runs < 1 || opts.Workers < 1 || opts.NewSession == nil {
		return nil, errors.New("bench: Runs, Workers and NewSession are needed")
	}
	var units []*unit
	for _, s := range opts.Suites {
		for ei, e := range s.Evals.Evals {
			inputs := filepath.Join(opts.Out, s.Skill, fmt.Sprintf("eval-%d", e.ID), "inputs")
			if err := writeInputs(s.Evals, e, inputs); err != nil {
				return nil, err
			}
			if err := writeEvalMetadata(filepath.Join(opts.Out, s.Skill, fmt.Sprintf("eval-%d", e.ID)), e); err != nil {
				return nil, err
			}
			for _, c := range opts.Configurations {
				u := &unit{suite: s, eval: ei, config: c, inputs: inputs, used: map[int]bool{},
					dir: filepath.Join(opts.Out, s.Skill, fmt.Sprintf("eval-%d", e.ID), c)}
				if err := u.resume(); err != nil {
					return nil, err
				}
				units = append(units, u)
			}
		}
	}
	x := &executor{opts: opts, units: units, start: time.Now(), limit: opts.Workers}
	x.cond = sync.NewCond(&x.mu)
	for _, u := range units {
		x.total += opts.Runs
		x.done += len(u.runs)
	}
	x.baseDone = x.done
	var wg sync.WaitGroup
	for range opts.Workers {
		wg.Go(func() { x.work(ctx) })
	}
	wg.Wait()
	var all []*RunResult
	for _, u := range units {
		all = append(all, u.runs...)
	}
	if ctx.Err() != nil {
		return all, fmt.Errorf("interrupted: %w", ctx.Err())
	}
	return all, x.fatal
}

type executor struct {
	opts  Options
	units []*unit
	start time.Time

	mu                                    sync.Mutex
	cond                                  *sync.Cond
	running                               int
	done, baseDone, total, errors, tokens int
	fatal                                 error
	// next is where the search for work starts, so the configurations of
	// an eval take turns.
	next int
	// limit is how many runs may go at once: Workers, fewer while the
	// endpoint rate-limits; epoch counts its cuts.
	limit, epoch, successes int
}

func (x *executor) work(ctx context.Context) {
	for {
		u, attempt, ok := x.take(ctx)
		if !ok {
			return
		}
		r := x.runOne(ctx, u, attempt)
		x.finish(u, attempt, r)
	}
}

// take reserves the next attempt; false when nothing is left to run.
func (x *executor) take(ctx context.Context) (*unit, int, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for {
		if ctx.Err() != nil || x.fatal != nil {
			return nil, 0, false
		}
		for i := range x.units {
			if x.running >= x.limit {
				break
			}
			u := x.units[(x.next+i)%len(x.units)]
			if !u.wants(x.opts.Runs) {
				continue
			}
			x.next = (x.next + i + 1) % len(x.units)
			n := 1
			for u.used[n] {
				n++
			}
			u.used[n] = true
			u.running++
			x.running++
			return u, n, true
		}
		if x.running == 0 {
			return nil, 0, false
		}
		x.cond.Wait()
	}
}

func (x *executor) finish(u *unit, attempt int, r *RunResult) {
	x.mu.Lock()
	defer x.mu.Unlock()
	defer x.cond.Broadcast()
	u.running--
	x.running--
	if r == nil { // interrupted: not kept
		delete(u.used, attempt)
		return
	}
	u.runs = append(u.runs, r)
	x.tokens += r.Outcome.Tokens
	if r.Scored() {
		u.scored++
		x.done++
	} else {
		u.errored++
		x.errors++
		if eval.EndpointFailure(r.Error) && x.fatal == nil {
			x.fatal = fmt.Errorf("the endpoint refused: %s", r.Error)
		}
		if !u.wants(x.opts.Runs) && u.scored < x.opts.Runs {
			// its attempts ran out: the rest of its runs will not come
			x.total -= x.opts.Runs - u.scored
		}
	}
	if x.opts.Progress != nil {
		p := Progress{Done: x.done, Total: x.total, Errors: x.errors, Tokens: x.tokens, Elapsed: time.Since(x.start)}
		if fresh := x.done - x.baseDone; fresh > 0 {
			p.ETA = time.Duration(float64(p.Elapsed) / float64(fresh) * float64(x.total-x.done))
		}
		x.opts.Progress(p)
	}
}

// runOne runs and grades one attempt; nil when ctx ended during it.
func (x *executor) runOne(ctx context.Context, u *unit, attempt int) *RunResult {
	e := u.suite.Evals.Evals[u.eval]
	spec := RunSpec{Skill: u.suite.Skill, Eval: e, Configuration: u.config, Attempt: attempt,
		Dir: filepath.Join(u.dir, fmt.Sprintf("run-%d", attempt)), Inputs: u.inputs}
	_ = os.RemoveAll(spec.Dir)
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return x.failed(spec, fmt.Errorf("make the run's folder: %w", err))
	}
	var mu sync.Mutex
	var events []event.Event
	epoch := x.currentEpoch()
	onEvent := func(ev event.Event) {
		if !event.Journaled(ev) {
			return
		}
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
		switch e := ev.(type) {
		case *event.Retry:
			if eval.RateLimited(e.Message) {
				x.throttled(epoch)
			}
		case *event.Assistant:
			x.succeeded()
		}
	}
	start := time.Now()
	s, err := x.opts.NewSession(spec, onEvent)
	if err != nil {
		return x.failed(spec, fmt.Errorf("open the session: %w", err))
	}
	_, terr := s.Turn(ctx, e.Prompt)
	cerr := s.Close()
	if ctx.Err() != nil {
		_ = os.RemoveAll(spec.Dir)
		return nil
	}
	mu.Lock()
	o := Read(events)
	mu.Unlock()
	if terr != nil && o.Error == "" {
		o.Error = terr.Error()
	}
	if o.Error != "" && eval.RateLimited(o.Error) {
		x.throttled(epoch) // its retries ran out: fewer at once
	}
	if cerr != nil && o.Error == "" {
		o.Error = "close the session: " + cerr.Error()
	}
	r := &RunResult{Skill: spec.Skill, EvalID: e.ID, EvalName: e.Title(), Configuration: u.config, Attempt: attempt,
		Outcome: o, Seconds: time.Since(start).Seconds(), Error: o.Error,
		Journal: filepath.Join(spec.Dir, SessionID, journal.FileName)}
	if r.Error == "" {
		x.grade(ctx, e, r)
		if ctx.Err() != nil {
			_ = os.RemoveAll(spec.Dir)
			return nil
		}
	}
	if err := writeOutputs(spec.Dir, e, o); err != nil && r.Error == "" {
		r.Error = err.Error()
	}
	r.Outcome = o.trimmed()
	if err := writeGrading(spec.Dir, r); err != nil && r.Error == "" {
		r.Error = err.Error()
	}
	return r
}

// failed is an attempt that could not start.
func (x *executor) failed(spec RunSpec, err error) *RunResult {
	r := &RunResult{Skill: spec.Skill, EvalID: spec.Eval.ID, EvalName: spec.Eval.Title(), Configuration: spec.Configuration,
		Attempt: spec.Attempt, Error: err.Error()}
	_ = writeGrading(spec.Dir, r)
	return r
}

// grade grades a finished run: checks first, then the expectations.
func (x *executor) grade(ctx context.Context, e Eval, r *RunResult) {
	checks := x.opts.Checks
	if checks == nil {
		checks = &CheckRunner{}
	}
	for _, c := range e.Checks {
		r.Grades = append(r.Grades, checks.Grade(ctx, c, r.Outcome))
	}
	start := time.Now()
	for _, text := range e.Expectations {
		if x.opts.Grader == nil {
			r.Ungraded = append(r.Ungraded, text)
			continue
		}
		r.Grades = append(r.Grades, x.opts.Grader.Grade(ctx, text, r.Outcome))
	}
	r.GraderSeconds = time.Since(start).Seconds()
	for _, g := range r.Grades {
		if g.Error != "" {
			r.Error = fmt.Sprintf("grade %q: %s", clip(g.Text, 60), g.Error)
			break
		}
	}
}

// resume reads the unit's finished runs back: scored ones are kept, the
// rest removed to run again.
func (u *unit) resume() error {
	entries, err := os.ReadDir(u.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", u.dir, err)
	}
	for _, en := range entries {
		var n int
		if _, err := fmt.Sscanf(en.Name(), "run-%d", &n); err != nil || !en.IsDir() {
			continue
		}
		dir := filepath.Join(u.dir, en.Name())
		r, err := readGrading(dir)
		if err != nil || !r.Scored() {
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("clear the unfinished run %s: %w", dir, err)
			}
			continue
		}
		u.runs = append(u.runs, r)
		u.used[n] = true
		u.scored++
	}
	return nil
}
