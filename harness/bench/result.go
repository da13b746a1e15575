package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"skillet/harness/atomicfile"
)

// GradingFile is each run's grading, in skill-creator's grading.json schema.
const GradingFile = "grading.json"

// RunResult is one attempt of one eval in one configuration, graded.
type RunResult struct {
	Skill         string  `json:"skill"`
	EvalID        int     `json:"eval_id"`
	EvalName      string  `json:"eval_name"`
	Configuration string  `json:"configuration"`
	Attempt       int     `json:"attempt"`
	Outcome       Outcome `json:"outcome"`
	Grades        []Grade `json:"grades"`
	// Ungraded are the expectations left without a grade: with the demo
	// model there is no model to grade them.
	Ungraded      []string `json:"ungraded,omitempty"`
	Seconds       float64  `json:"seconds"`
	GraderSeconds float64  `json:"grader_seconds"`
	// Error says why the run has no grade; such a run is re-run, never
	// counted as a failure.
	Error   string `json:"error,omitempty"`
	Journal string `json:"journal,omitempty"`
}

// Scored reports whether the run counts.
func (r *RunResult) Scored() bool { return r.Error == "" }

// Counts are the run's graded items: passed and in all.
func (r *RunResult) Counts() (passed, total int) {
	for _, g := range r.Grades {
		if g.Passed {
			passed++
		}
	}
	return passed, len(r.Grades)
}

// Passed reports whether every graded item of the run passed (and there
// was one).
func (r *RunResult) Passed() bool {
	p, t := r.Counts()
	return t > 0 && p == t
}

// PassRate is skill-creator's result.pass_rate: the share of items passed.
func (r *RunResult) PassRate() float64 {
	p, t := r.Counts()
	if t == 0 {
		return 0
	}
	return math.Round(float64(p)/float64(t)*1e4) / 1e4
}

// gradingJSON is skill-creator's grading.json, with Skillet's record of the
// run under "skillet".
type gradingJSON struct {
	Expectations     []expectationJSON `json:"expectations"`
	Summary          summaryJSON       `json:"summary"`
	ExecutionMetrics metricsJSON       `json:"execution_metrics"`
	Timing           timingJSON        `json:"timing"`
	Skillet          *RunResult        `json:"skillet"`
}

type expectationJSON struct {
	Text     string `json:"text"`
	Passed   bool   `json:"passed"`
	Evidence string `json:"evidence"`
}

type summaryJSON struct {
	Passed   int     `json:"passed"`
	Failed   int     `json:"failed"`
	Total    int     `json:"total"`
	PassRate float64 `json:"pass_rate"`
}

type metricsJSON struct {
	ToolCalls         map[string]int `json:"tool_calls"`
	TotalToolCalls    int            `json:"total_tool_calls"`
	TotalSteps        int            `json:"total_steps"`
	ErrorsEncountered int            `json:"errors_encountered"`
	OutputChars       int            `json:"output_chars"`
	TranscriptChars   int            `json:"transcript_chars"`
}

type timingJSON struct {
	ExecutorDurationSeconds float64 `json:"executor_duration_seconds"`
	GraderDurationSeconds   float64 `json:"grader_duration_seconds"`
	TotalDurationSeconds    float64 `json:"total_duration_seconds"`
}

func expectations(r *RunResult) []expectationJSON {
	out := []expectationJSON{}
	for _, g := range r.Grades {
		out = append(out, expectationJSON{Text: g.Text, Passed: g.Passed, Evidence: g.Evidence})
	}
	return out
}

func grading(r *RunResult) gradingJSON {
	p, t := r.Counts()
	out := 0
	for _, c := range r.Outcome.Changed {
		out += len(c.Content)
	}
	counts := r.Outcome.ToolCounts
	if counts == nil {
		counts = map[string]int{}
	}
	return gradingJSON{
		Expectations: expectations(r),
		Summary:      summaryJSON{Passed: p, Failed: t - p, Total: t, PassRate: r.PassRate()},
		ExecutionMetrics: metricsJSON{ToolCalls: counts, TotalToolCalls: r.Outcome.ToolCalls, TotalSteps: r.Outcome.ModelCalls,
			ErrorsEncountered: r.Outcome.ToolErrors, OutputChars: out, TranscriptChars: len(r.Outcome.Answer)},
		Timing: timingJSON{ExecutorDurationSeconds: round1(r.Seconds - r.GraderSeconds), GraderDurationSeconds: round1(r.GraderSeconds),
			TotalDurationSeconds: round1(r.Seconds)},
		Skillet: r,
	}
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// writeGrading writes the run's grading.json, the mark of a finished run.
func writeGrading(dir string, r *RunResult) error {
	return writeJSON(filepath.Join(dir, GradingFile), grading(r))
}

// readGrading reads a finished run back from its grading.json.
func readGrading(dir string) (*RunResult, error) {
	data, err := os.ReadFile(filepath.Join(dir, GradingFile))
	if err != nil {
		return nil, err
	}
	var g gradingJSON
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, GradingFile), err)
	}
	if g.Skillet == nil {
		return nil, fmt.Errorf("%s: no skillet record", filepath.Join(dir, GradingFile))
	}
	return g.Skillet, nil
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
