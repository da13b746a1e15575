package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"skillet/harness/journal"
)

// Folder is a benchmark's folder read back: how it was started, each
// skill's evals as they ran and every finished run, so its statistics can
// be made again without running anything.
type Folder struct {
	Dir      string
	Manifest *Manifest
	Suites   []*Suite
	// Configurations are the skill's and the baseline's, in that order.
	Configurations []string
	// Runs are the finished attempts, errored ones included.
	Runs []*RunResult
	// Missing counts the scored runs still to come (--resume runs them).
	Missing int
}

// Configurations are a benchmark's two configurations for a --baseline:
// with_skill first, then without_skill or baseline.
func Configurations(baseline string) []string {
	if BaselineKind(baseline) == WithoutSkill {
		return []string{WithSkill, WithoutSkill}
	}
	return []string{WithSkill, Baseline}
}

// ReadFolder reads the benchmark in dir: its manifest, each eval's
// eval_metadata.json and each run's grading.json.
func ReadFolder(dir string) (*Folder, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("benchmark folder: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is a file, not a benchmark's folder (skillet bench --out DIR)", dir)
	}
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	if len(m.Skills) == 0 {
		return nil, fmt.Errorf("%s: names no skill", filepath.Join(dir, ManifestFile))
	}
	f := &Folder{Dir: dir, Manifest: m, Configurations: Configurations(m.Baseline)}
	for _, skill := range m.Skills {
		s, err := f.readSuite(skill)
		if err != nil {
			return nil, err
		}
		f.Suites = append(f.Suites, s)
	}
	return f, nil
}

// readSuite reads one skill's evals from their folders, and their runs.
func (f *Folder) readSuite(skill string) (*Suite, error) {
	root := filepath.Join(f.Dir, skill)
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: the benchmark of %s has no folder %s", f.Dir, skill, root)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", root, err)
	}
	s := &Suite{Skill: skill, Dir: f.Manifest.SkillDirs[skill], Evals: &Evals{SkillName: skill}}
	for _, en := range entries {
		var id int
		if _, err := fmt.Sscanf(en.Name(), "eval-%d", &id); err != nil || !en.IsDir() || en.Name() != fmt.Sprintf("eval-%d", id) {
			continue
		}
		e, err := readEvalMetadata(filepath.Join(root, en.Name()))
		if err != nil {
			return nil, err
		}
		if e.ID != id {
			return nil, fmt.Errorf("%s: eval_id %d in the folder of eval %d", filepath.Join(root, en.Name(), EvalMetadataFile), e.ID, id)
		}
		s.Evals.Evals = append(s.Evals.Evals, e)
	}
	if len(s.Evals.Evals) == 0 {
		return nil, fmt.Errorf("%s holds no eval's folder (eval-ID): the benchmark of %s has not started", root, skill)
	}
	sort.Slice(s.Evals.Evals, func(i, j int) bool { return s.Evals.Evals[i].ID < s.Evals.Evals[j].ID })
	for _, e := range s.Evals.Evals {
		for _, c := range f.Configurations {
			scored, err := f.readRuns(skill, e, c)
			if err != nil {
				return nil, err
			}
			f.Missing += max(0, f.Manifest.Runs-scored)
		}
	}
	return s, nil
}

// readRuns reads the graded runs of one eval in one configuration; it
// returns how many are scored.
func (f *Folder) readRuns(skill string, e Eval, config string) (int, error) {
	dir := filepath.Join(f.Dir, skill, fmt.Sprintf("eval-%d", e.ID), config)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", dir, err)
	}
	scored := 0
	for _, en := range entries {
		var n int
		if _, err := fmt.Sscanf(en.Name(), "run-%d", &n); err != nil || !en.IsDir() {
			continue
		}
		runDir := filepath.Join(dir, en.Name())
		if _, err := os.Stat(filepath.Join(runDir, GradingFile)); errors.Is(err, os.ErrNotExist) {
			continue // unfinished: --resume runs it again
		}
		r, err := readGrading(runDir)
		if err != nil {
			return 0, err
		}
		if r.Skill != skill || r.EvalID != e.ID || r.Configuration != config || r.Attempt != n {
			return 0, fmt.Errorf("%s: records %s eval %d %s run %d, not the run of its folder", filepath.Join(runDir, GradingFile), r.Skill, r.EvalID, r.Configuration, r.Attempt)
		}
		// the folder may have moved since: its journal is the one beside it
		if j := filepath.Join(runDir, SessionID, journal.FileName); r.Journal != "" {
			r.Journal = j
		}
		if r.Scored() {
			scored++
		}
		f.Runs = append(f.Runs, r)
	}
	return scored, nil
}

// readEvalMetadata reads an eval back from its eval_metadata.json.
func readEvalMetadata(dir string) (Eval, error) {
	path := filepath.Join(dir, EvalMetadataFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return Eval{}, fmt.Errorf("read the eval's record: %w", err)
	}
	var meta struct {
		ID         *int              `json:"eval_id"`
		Name       string            `json:"eval_name"`
		Prompt     string            `json:"prompt"`
		Assertions []string          `json:"assertions"`
		Checks     []json.RawMessage `json:"checks"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return Eval{}, fmt.Errorf("%s: %w", path, err)
	}
	if meta.ID == nil {
		return Eval{}, fmt.Errorf("%s: no eval_id", path)
	}
	e := Eval{ID: *meta.ID, Prompt: meta.Prompt, Expectations: meta.Assertions}
	if meta.Name != (Eval{ID: e.ID}).Title() {
		e.Name = meta.Name
	}
	for i, raw := range meta.Checks {
		c, err := ParseCheck(raw)
		if err != nil {
			return Eval{}, fmt.Errorf("%s: checks[%d]: %v", path, i, err)
		}
		e.Checks = append(e.Checks, c)
	}
	return e, nil
}

// graded reports whether the benchmark had a model grading expectations:
// a grader endpoint, or the runs' own model unless it was the demo.
func (f *Folder) graded() bool { return f.Manifest.GraderBaseURL != "" || !f.Manifest.Demo }

// Gradable reports whether an eval of the folder had anything graded: its
// checks, or its expectations when a model graded them. (A folder written
// before the checks were recorded shows them in its runs' grades.)
func (f *Folder) Gradable(e Eval) bool {
	if len(e.Checks) > 0 || f.graded() {
		return true
	}
	for _, r := range f.Runs {
		if r.EvalID == e.ID && len(r.Grades) > 0 {
			return true
		}
	}
	return false
}

// Report makes the benchmark's statistics from its runs, as the
// benchmark made them when it ended.
func (f *Folder) Report() *Report {
	m := f.Manifest
	rep := &Report{Created: m.Created, Model: m.Model, Runs: m.Runs, Configurations: f.Configurations,
		Baseline: m.Baseline, Interval: IntervalName, Skills: Summarize(f.Suites, f.Configurations, f.Runs, f.Gradable)}
	if f.graded() {
		rep.GraderModel = m.GraderModel
		if rep.GraderModel == "" {
			rep.GraderModel = m.Model
		}
	}
	return rep
}

// RunLabel names a run for people: "eval 2 · with_skill · run 3".
func RunLabel(r *RunResult) string {
	return strings.Join([]string{fmt.Sprintf("eval %d", r.EvalID), r.Configuration, fmt.Sprintf("run %d", r.Attempt)}, " · ")
}

// ReadRun reads one run's grading.json from its folder (…/run-N).
func ReadRun(runDir string) (*RunResult, error) { return readGrading(runDir) }
