package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"skillet/harness/journal"
	"sync"
	"time"

	"skillet/harness/atomicfile"
)

// Files of an eval's folder.
const (
	// ManifestFile holds what the eval is: skills, queries, plan, model.
	ManifestFile = "eval.json"
	// RunsFile holds one line per finished run.
	RunsFile = "runs.jsonl"
	// SessionsDir holds every run's session, one folder per run.
	SessionsDir = "sessions"
)

// Plan is how many runs each query gets and how each runs.
type Plan struct {
	// Runs fixes the runs per query; 0 means auto: at least MinRuns, then
	// more until the verdict is decided, at most MaxRuns.
	Runs    int `json:"runs"`
	MinRuns int `json:"min_runs"`
	MaxRuns int `json:"max_runs"`
	// Seed drives the catalogue order of every run.
	Seed int64 `json:"seed"`
	// RoutingOnly offers load_skill alone and stops after the first model
	// call.
	RoutingOnly bool `json:"routing_only"`
	// MaxSteps caps the model calls of a run; 0 leaves the turn's own
	// limits.
	MaxSteps int `json:"max_steps"`
	// Arms are the arms every query runs in: one, or "A" and "B" (--aa).
	Arms []string `json:"arms"`
	// MaxErrors is how many errored runs a query may have, each replaced
	// by another, before it ends in error; 0 means as many as its runs
	// (Runs, or MaxRuns with auto).
	MaxErrors int `json:"max_errors,omitempty"`
	// Threshold is the trigger rate a should-trigger query must reach and
	// a should-not one stay below; 0 means 0.5 (skill-creator's
	// --trigger-threshold).
	Threshold float64 `json:"threshold,omitempty"`
}

// ErrorCap is how many errored runs a query may have before it ends in
// error.
func (p Plan) ErrorCap() int {
	switch {
	case p.MaxErrors > 0:
		return p.MaxErrors
	case p.Runs > 0:
		return p.Runs
	}
	return p.MaxRuns
}

// Needs reports whether a query with this many scored runs and this
// verdict over them still wants another run: short of its fixed count,
// or (auto) short of the minimum or undecided below the maximum.
func (p Plan) Needs(scored int, verdict string) bool {
	if p.Runs > 0 {
		return scored < p.Runs
	}
	if scored >= p.MaxRuns {
		return false
	}
	return scored < p.MinRuns || verdict == VerdictUndetermined
}

// SkillInfo is one evaluated skill as the runs saw it.
type SkillInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Manifest describes an eval; it is written first, so that a folder can be
// resumed and re-scored.
type Manifest struct {
	Created time.Time   `json:"created"`
	Skills  []SkillInfo `json:"skills"`
	Queries []Query     `json:"queries"`
	Plan    Plan        `json:"plan"`
	Model   string      `json:"model"`
	BaseURL string      `json:"base_url"`
	Demo    bool        `json:"demo,omitempty"`
	// Catalogue are the enabled skills every run offers, before shuffling.
	Catalogue []string `json:"catalogue"`
	// Roots, Config and Sets are the skills folders, config file and
	// --set pairs of the eval, used again when it is resumed.
	Roots  []string `json:"roots,omitempty"`
	Config string   `json:"config,omitempty"`
	Sets   []string `json:"sets,omitempty"`
}

// Run is one finished run, a line of RunsFile.
type Run struct {
	Arm   string `json:"arm,omitempty"`
	Query int    `json:"query"`
	// N is the run's number within its query and arm, from 1.
	N       int    `json:"n"`
	Session string `json:"session"`
	// Order is the catalogue order the run was given.
	Order  []string `json:"order,omitempty"`
	Result Result   `json:"result"`
}

// WriteManifest writes the manifest into dir, making dir.
func WriteManifest(dir string, m *Manifest) error {
	if err := os.MkdirAll(filepath.Join(dir, SessionsDir), 0o700); err != nil {
		return fmt.Errorf("eval folder: %w", err)
	}
	return writeJSON(filepath.Join(dir, ManifestFile), m)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := atomicfile.Write(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ReadManifest reads dir's manifest.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s is not an eval folder: it has no %s", dir, ManifestFile)
	}
	if err != nil {
		return nil, fmt.Errorf("read eval manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("eval manifest %s: %w", filepath.Join(dir, ManifestFile), err)
	}
	if len(m.Plan.Arms) == 0 {
		m.Plan.Arms = []string{""}
	}
	return &m, nil
}

// ReadRuns reads dir's finished runs. A torn last line (a crash while it
// was written) is skipped: that run is simply run again on resume.
func ReadRuns(dir string) ([]Run, error) {
	b, err := os.ReadFile(filepath.Join(dir, RunsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read eval runs: %w", err)
	}
	var runs []Run
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r Run
		if json.Unmarshal(line, &r) == nil {
			runs = append(runs, r)
		}
	}
	return runs, nil
}

// runLog appends finished runs to RunsFile.
type runLog struct {
	mu sync.Mutex
	f  *os.File
}

func openRunLog(dir string) (*runLog, error) {
	f, err := os.OpenFile(filepath.Join(dir, RunsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open eval runs: %w", err)
	}
	return &runLog{f: f}, nil
}

func (l *runLog) add(r Run) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode run: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write eval runs: %w", err)
	}
	return nil
}

func (l *runLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.f.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Rescore reads every run's journal again and classifies it anew, so a
// report reflects the journals, not what was decided while running. A run
// whose journal is gone keeps its recorded result; problems name them.
func Rescore(dir string, m *Manifest, runs []Run) ([]Run, []string) {
	out := make([]Run, len(runs))
	problems := make([]string, len(runs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				out[i], problems[i] = rescoreOne(dir, m, runs[i])
			}
		})
	}
	for i := range runs {
		next <- i
	}
	close(next)
	wg.Wait()
	var probs []string
	for _, p := range problems {
		if p != "" {
			probs = append(probs, p)
		}
	}
	return out, probs
}

func rescoreOne(dir string, m *Manifest, r Run) (Run, string) {
	if r.Query < 0 || r.Query >= len(m.Queries) {
		return r, fmt.Sprintf("run %s: query %d is not in the manifest", r.Session, r.Query)
	}
	f, err := journal.OpenRegular(JournalPath(dir, r.Session))
	if err != nil {
		return r, fmt.Sprintf("run %s: %v (its recorded result is kept)", r.Session, err)
	}
	defer f.Close()
	events, _, err := journal.Read(bufio.NewReaderSize(f, 256<<10))
	if err != nil {
		return r, fmt.Sprintf("run %s: %v (its recorded result is kept)", r.Session, err)
	}
	r.Result = Classify(events, m.Queries[r.Query].Skill, m.Plan.MaxSteps)
	return r, ""
}

// JournalPath is where a run's session journal lives.
func JournalPath(dir, session string) string {
	return filepath.Join(dir, SessionsDir, session, journal.FileName)
}
