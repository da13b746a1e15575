package eval

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"skillet/harness/event"
)

// RunSpec is what one run's session is made from.
type RunSpec struct {
	// ID is the session's id, and Dir the folder its session goes in.
	ID  string
	Dir string
	Arm string
	// Query is the one user turn of the run.
	Query Query
	// Order is the catalogue order of the run: the enabled skills,
	// shuffled from the eval's seed.
	Order []string
	// RoutingOnly asks for a session offering load_skill alone.
	RoutingOnly bool
}

// Session is what a run needs of an open session: one turn, then closed.
// The engine's *harness.Session is one; the caller wires it in, so that
// this package knows events, not the engine.
type Session interface {
	Turn(ctx context.Context, text string) (*event.TurnEnd, error)
	Close() error
}

// SessionFunc opens a fresh session for a run, wired as `skillet run`
// wires one, handing every event to onEvent.
type SessionFunc func(spec RunSpec, onEvent func(event.Event)) (Session, error)

// Options configure Execute.
type Options struct {
	// Dir is the eval's folder; its manifest is written before any run.
	Dir      string
	Manifest *Manifest
	// Workers is how many runs go at once.
	Workers int
	// Budget stops the eval once its runs used this many tokens; 0 for no
	// limit.
	Budget     int
	NewSession SessionFunc
	// Progress is told after every finished run.
	Progress func(Progress)
}

// Progress is where a running eval stands.
type Progress struct {
	Done    int
	Total   int
	Errors  int
	Tokens  int
	Passing int
	Decided int
	Queries int
	Elapsed time.Duration
	ETA     time.Duration
	// Workers is how many runs may go at once now: fewer than asked
	// while the endpoint rate-limits.
	Workers int
	// Waiting is how long a rate-limited request waits before its retry,
	// when that is over 10 s; zero otherwise.
	Waiting time.Duration
}

// Stop reasons of an eval that ended before its plan.
const (
	StoppedInterrupted = "interrupted"
	StoppedBudget      = "budget"
	StoppedFailing     = "failing endpoint"
)

// failFast sets when failing runs stop the eval: errors naming the
// endpoint (refused, unknown, unauthorized) at the first run, or after
// failFast in a row once it had worked; other errors after 2·failFast
// in a row spread over failFast queries (or all of them).
const failFast = 4

// regainAfter is how many successful model calls give back one worker
// taken away by a rate limit.
const regainAfter = 20

// longWait is the retry wait the progress line tells of.
const longWait = 10 * time.Second

// Outcome is what Execute leaves: every finished run (earlier ones too,
// when resumed) and why it stopped early, if it did.
type Outcome struct {
	Runs    []Run
	Stopped string
	// Failure is the error of the failing streak that stopped the eval,
	// and Failing how many runs in a row failed.
	Failure string
	Failing int
}

// key identifies a query within an arm.
type key struct {
	arm   int
	query int
}

type qstate struct {
	// issued counts the runs finished or running; used are their numbers.
	issued, inflight int
	used             map[int]bool
	runs             []Run
	// scoredN and errN count the finished runs that scored and errored.
	scoredN, errN int
	done          bool
	// score is the query's score over its first scored runs, kept
	// because progress reads every query's after each finished run.
	score  QueryScore
	scored int
}

// take reserves the smallest free run number.
func (st *qstate) take() int {
	n := 1
	for st.used[n] {
		n++
	}
	st.used[n] = true
	st.issued++
	st.inflight++
	return n
}

type executor struct {
	opts  Options
	m     *Manifest
	log   *runLog
	start time.Time

	mu      sync.Mutex
	cond    *sync.Cond
	states  map[key]*qstate
	order   []key
	all     []Run
	tokens  int
	fresh   int // runs finished by this execution
	failed  int // of those, failed before deciding
	stopped string
	failure string
	fatal   error
	// streak counts the errored runs since the last scored one (of them,
	// streakEndpoint those naming the endpoint), failedQueries their
	// queries; failing is the streak that stopped the eval.
	streak, streakEndpoint, failing int
	failedQueries                   map[key]bool

	// limit is how many runs may go at once, active how many do; epoch
	// counts the times a rate limit lowered limit, so a run started
	// before the last cut does not cut again for the same burst.
	limit, active, epoch int
	successes            int
	// waitUntil is when the longest retry wait under way ends.
	waitUntil time.Time
}

// Execute runs the eval in opts.Dir: the runs RunsFile does not hold yet,
// in parallel, until every query has its runs or its verdict (auto), the
// budget is spent, or ctx is cancelled. Finished runs are appended to
// RunsFile as they end, so nothing finished is lost.
func Execute(ctx context.Context, opts Options) (*Outcome, error) {
	m := opts.Manifest
	if len(m.Plan.Arms) == 0 {
		m.Plan.Arms = []string{""}
	}
	if err := WriteManifest(opts.Dir, m); err != nil {
		return nil, err
	}
	prev, err := ReadRuns(opts.Dir)
	if err != nil {
		return nil, err
	}
	if err := removeUnfinished(opts.Dir, prev); err != nil {
		return nil, err
	}
	log, err := openRunLog(opts.Dir)
	if err != nil {
		return nil, err
	}
	e := &executor{opts: opts, m: m, log: log, start: time.Now(), states: map[key]*qstate{}, limit: max(1, opts.Workers), failedQueries: map[key]bool{}}
	e.cond = sync.NewCond(&e.mu)
	for ai := range m.Plan.Arms {
		for qi := range m.Queries {
			k := key{ai, qi}
			e.states[k] = &qstate{used: map[int]bool{}}
			e.order = append(e.order, k)
		}
	}
	armIdx := map[string]int{}
	for i, a := range m.Plan.Arms {
		armIdx[a] = i
	}
	for _, r := range prev {
		ai, ok := armIdx[r.Arm]
		if !ok || r.Query < 0 || r.Query >= len(m.Queries) {
			continue
		}
		st := e.states[key{ai, r.Query}]
		st.runs = append(st.runs, r)
		if st.used[r.N] {
			continue // written twice: keep the first
		}
		st.used[r.N] = true
		st.issued++
		st.count(r)
		e.all = append(e.all, r)
		e.tokens += r.Result.Tokens
	}
	for _, k := range e.order {
		e.settle(k)
	}

	var wg sync.WaitGroup
	for range max(1, opts.Workers) {
		wg.Go(func() {
			for {
				k, n, epoch, ok := e.next(ctx)
				if !ok {
					return
				}
				e.finish(ctx, k, n, e.runOne(ctx, k, n, epoch))
			}
		})
	}
	// a cancelled ctx must wake workers waiting for a job
	stopWake := context.AfterFunc(ctx, func() {
		e.mu.Lock()
		e.cond.Broadcast()
		e.mu.Unlock()
	})
	wg.Wait()
	stopWake()
	lerr := log.close()

	out := &Outcome{Runs: e.all, Stopped: e.stopped, Failure: e.failure, Failing: e.failing}
	if ctx.Err() != nil && out.Stopped == "" {
		out.Stopped = StoppedInterrupted
	}
	return out, errors.Join(e.fatal, lerr)
}

// removeUnfinished deletes the session folders of runs that started and
// did not finish (an interrupted eval): they run again under the same id.
func removeUnfinished(dir string, done []Run) error {
	keep := map[string]bool{}
	for _, r := range done {
		keep[r.Session] = true
	}
	entries, err := os.ReadDir(filepath.Join(dir, SessionsDir))
	if err != nil {
		return nil
	}
	for _, en := range entries {
		if en.IsDir() && !keep[en.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, SessionsDir, en.Name())); err != nil {
				return fmt.Errorf("remove an unfinished run: %w", err)
			}
		}
	}
	return nil
}

// count adds a finished run to the query's tallies.
func (st *qstate) count(r Run) {
	if r.Result.Scored() {
		st.scoredN++
	} else {
		st.errN++
	}
}

// want reports whether a query needs one more run now: errored runs do
// not count towards its runs, and are replaced until the plan's error cap.
// A run in flight may still fail, so it counts against the cap until it
// ends: workers running side by side never take a query past it.
// Called with e.mu held.
func (e *executor) want(k key, st *qstate) bool {
	p := e.m.Plan
	if st.done || st.errN+st.inflight >= p.ErrorCap() {
		return false
	}
	if p.Runs > 0 {
		return st.scoredN+st.inflight < p.Runs
	}
	if st.scoredN+st.inflight >= p.MaxRuns {
		return false
	}
	if st.scoredN+st.inflight < p.MinRuns {
		return true
	}
	// past the minimum, one run at a time: the verdict may settle
	return st.inflight == 0 && p.Needs(st.scoredN, e.score(k).Verdict)
}

// settle marks a query done when it has what its plan asks, or errored
// as often as the plan allows. Called with e.mu held (or before the
// workers start).
func (e *executor) settle(k key) {
	st := e.states[k]
	p := e.m.Plan
	if st.inflight > 0 {
		return
	}
	st.done = st.errN >= p.ErrorCap() || !p.Needs(st.scoredN, e.score(k).Verdict)
}

// score is the query's score over its runs, computed again only when a
// run has been added since. Called with e.mu held (or before the workers
// start).
func (e *executor) score(k key) QueryScore {
	st := e.states[k]
	if st.scored != len(st.runs) || len(st.runs) == 0 {
		st.score, st.scored = scoreQuery(e.m.Plan, k.query, e.m.Queries[k.query], st.runs), len(st.runs)
	}
	return st.score
}

// next hands out the next run: the query with the fewest runs first, so
// that every query progresses together, once fewer runs go than the
// current limit. ok is false when there is none.
func (e *executor) next(ctx context.Context) (key, int, int, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for {
		if ctx.Err() != nil || e.stopped != "" || e.fatal != nil {
			return key{}, 0, 0, false
		}
		var best *qstate
		var bk key
		busy := false
		for _, k := range e.order {
			st := e.states[k]
			if st.inflight > 0 || !st.done {
				busy = true
			}
			if e.want(k, st) && (best == nil || st.issued < best.issued) {
				best, bk = st, k
			}
		}
		if best != nil && e.active < e.limit {
			e.active++
			return bk, best.take(), e.epoch, true
		}
		if !busy {
			return key{}, 0, 0, false
		}
		e.cond.Wait()
	}
}

// throttled lowers the limit on runs at once after a rate limit: halved,
// once per burst (runs started before the last cut do not cut again).
func (e *executor) throttled(epoch int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if epoch != e.epoch || e.limit == 1 {
		return
	}
	e.limit = max(1, e.limit/2)
	e.epoch++
	e.successes = 0
}

// succeeded counts a model call that was answered, and gives one worker
// back per regainAfter of them.
func (e *executor) succeeded() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.limit >= max(1, e.opts.Workers) {
		return
	}
	e.successes++
	if e.successes >= regainAfter {
		e.successes = 0
		e.limit++
		e.cond.Broadcast()
	}
}

// waiting notes a retry's wait; a long one is told on the progress line
// at once.
func (e *executor) waiting(d time.Duration) {
	if d <= longWait {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if until := time.Now().Add(d); until.After(e.waitUntil) {
		e.waitUntil = until
	}
	if e.opts.Progress != nil {
		e.opts.Progress(e.progress())
	}
}

// finish records a run (nil when it was interrupted) and decides what
// comes next.
func (e *executor) finish(ctx context.Context, k key, n int, r *Run) {
	e.mu.Lock()
	defer e.mu.Unlock()
	defer e.cond.Broadcast()
	st := e.states[k]
	st.inflight--
	e.active--
	if r == nil {
		// never ran to its end: its number is free again
		delete(st.used, n)
		st.issued--
		return
	}
	if err := e.log.add(*r); err != nil && e.fatal == nil {
		e.fatal = err
		return
	}
	st.runs = append(st.runs, *r)
	st.count(*r)
	e.all = append(e.all, *r)
	e.tokens += r.Result.Tokens
	e.fresh++
	if r.Result.Scored() {
		// the streak of failures is broken: the endpoint works
		e.streak, e.streakEndpoint = 0, 0
		clear(e.failedQueries)
	} else {
		e.failed++
		e.streak++
		if EndpointFailure(r.Result.Error) {
			e.streakEndpoint++
		}
		if e.streak == 1 || EndpointFailure(r.Result.Error) {
			e.failure = r.Result.Error
		}
		e.failedQueries[k] = true
	}
	e.settle(k)
	if e.stopped == "" && e.streak > 0 {
		// An endpoint that refuses every request (401, refused) stops the
		// eval at its first run, or after a few once it had worked; other
		// errors may be one query's own, and stop it only once a streak of
		// them spans the queries.
		spread := len(e.failedQueries) >= min(failFast, len(e.order))
		refused := e.streakEndpoint > 0 && (e.failed == e.fresh || e.streakEndpoint >= failFast)
		if refused || (e.streak >= 2*failFast && spread) {
			e.stopped = StoppedFailing
			e.failing = e.streak
		}
	}
	if e.opts.Budget > 0 && e.tokens >= e.opts.Budget && e.stopped == "" {
		e.stopped = StoppedBudget
	}
	if e.opts.Progress != nil {
		e.opts.Progress(e.progress())
	}
}

// progress is where the eval stands. Called with e.mu held.
func (e *executor) progress() Progress {
	p := Progress{Done: len(e.all), Tokens: e.tokens, Queries: len(e.order), Elapsed: time.Since(e.start), Workers: e.limit}
	if left := time.Until(e.waitUntil); left > 0 {
		p.Waiting = left
	}
	for _, k := range e.order {
		st := e.states[k]
		sc := e.score(k)
		p.Errors += sc.Errors
		if sc.Pass {
			p.Passing++
		}
		if st.done {
			p.Decided++
		}
		p.Total += e.expected(k)
	}
	if e.fresh > 0 && p.Total > p.Done {
		// wall time per finished run already reflects the workers
		per := p.Elapsed / time.Duration(e.fresh)
		p.ETA = per * time.Duration(p.Total-p.Done)
	}
	return p
}

// expected is how many runs a query will have: what it has once done,
// else what its plan asks so far, with its errored runs. Called with e.mu
// held.
func (e *executor) expected(k key) int {
	st, p := e.states[k], e.m.Plan
	switch {
	case st.done:
		return len(st.runs)
	case p.Runs > 0:
		return p.Runs + st.errN
	}
	return min(p.MaxRuns, max(p.MinRuns, st.scoredN+st.inflight+1)) + st.errN
}

// runOne runs one session of one turn; nil when ctx was cancelled before
// the run ended (an interrupted run is not kept).
func (e *executor) runOne(ctx context.Context, k key, n, epoch int) *Run {
	q := e.m.Queries[k.query]
	arm := e.m.Plan.Arms[k.arm]
	spec := RunSpec{ID: RunID(arm, k.query, n), Dir: filepath.Join(e.opts.Dir, SessionsDir), Arm: arm, Query: q,
		Order: Shuffle(e.m.Catalogue, e.m.Plan.Seed, arm, k.query, n), RoutingOnly: e.m.Plan.RoutingOnly}
	run := &Run{Arm: arm, Query: k.query, N: n, Session: spec.ID, Order: spec.Order}
	_ = os.RemoveAll(filepath.Join(spec.Dir, spec.ID))

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	maxSteps := e.m.Plan.MaxSteps
	var mu sync.Mutex
	var events []event.Event
	onEvent := func(ev event.Event) {
		if !event.Journaled(ev) {
			return
		}
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
		switch x := ev.(type) {
		case *event.Retry:
			if RateLimited(x.Message) {
				e.throttled(epoch)
			}
			e.waiting(time.Duration(x.WaitMS) * time.Millisecond)
		case *event.Assistant:
			e.succeeded()
		}
		// The step cap: the call past it is cancelled before it is sent.
		if mc, ok := ev.(*event.ModelCall); ok && maxSteps > 0 && mc.Call > maxSteps {
			cancel()
		}
	}
	s, err := e.opts.NewSession(spec, onEvent)
	if err != nil {
		e.mu.Lock()
		if e.fatal == nil {
			e.fatal = fmt.Errorf("open the session of run %s: %w", spec.ID, err)
		}
		e.mu.Unlock()
		return nil
	}
	_, terr := s.Turn(runCtx, q.Query)
	cerr := s.Close()
	if ctx.Err() != nil {
		_ = os.RemoveAll(filepath.Join(spec.Dir, spec.ID))
		return nil
	}
	mu.Lock()
	run.Result = Classify(events, q.Skill, maxSteps)
	mu.Unlock()
	if terr != nil && run.Result.Error == "" && !errors.Is(terr, context.Canceled) {
		run.Result.Error = terr.Error()
	}
	if cerr != nil && run.Result.Error == "" {
		run.Result.Error = "close session: " + cerr.Error()
	}
	if !run.Result.Scored() && RateLimited(run.Result.Error) {
		// its retries ran out: the endpoint wants fewer at once
		e.throttled(epoch)
	}
	return run
}

// apiStatusRE reads the HTTP status of a model API error message.
var apiStatusRE = regexp.MustCompile(`model API said (\d{3})`)

// RateLimited reports whether an error message is a rate or concurrency
// limit: an HTTP 429 or 503, or a provider's words for too many at once.
func RateLimited(msg string) bool {
	if m := apiStatusRE.FindStringSubmatch(msg); m != nil && (m[1] == "429" || m[1] == "503") {
		return true
	}
	l := strings.ToLower(msg)
	return strings.Contains(l, "concurrency limit") || strings.Contains(l, "too many concurrent")
}

// EndpointFailure reports whether an error message says the endpoint
// itself will fail every request: unauthorized, forbidden, not found,
// refused or unknown host. Other errors may belong to one query.
func EndpointFailure(msg string) bool {
	if m := apiStatusRE.FindStringSubmatch(msg); m != nil {
		return m[1] == "401" || m[1] == "403" || m[1] == "404"
	}
	l := strings.ToLower(msg)
	return strings.Contains(l, "connection refused") || strings.Contains(l, "no such host") || strings.Contains(l, "model base url")
}

// RunID is a run's session id: arm, query and run number.
func RunID(arm string, query, n int) string {
	if arm == "" {
		arm = "run"
	}
	return fmt.Sprintf("%s-q%03d-r%02d", arm, query+1, n)
}

// Shuffle is the catalogue order of one run: names shuffled by a
// generator seeded from the eval's seed and the run, so the same run of
// the same eval always sees the same order, whichever worker runs it.
func Shuffle(names []string, seed int64, arm string, query, n int) []string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d/%d", arm, query, n)
	rng := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
	out := slices.Clone(names)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
