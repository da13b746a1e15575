package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
)

// BenchmarkFile is each skill's benchmark, in skill-creator's schema.
const BenchmarkFile = "benchmark.json"

// benchmarkJSON is skill-creator's benchmark.json: the field names its
// viewer reads, and Skillet's statistics under "skillet".
type benchmarkJSON struct {
	Metadata   metadataJSON         `json:"metadata"`
	Runs       []runJSON            `json:"runs"`
	RunSummary runSummaryJSON       `json:"run_summary"`
	Notes      []string             `json:"notes"`
	Skillet    skilletBenchmarkJSON `json:"skillet"`
}

type metadataJSON struct {
	SkillName            string `json:"skill_name"`
	SkillPath            string `json:"skill_path"`
	ExecutorModel        string `json:"executor_model"`
	AnalyzerModel        string `json:"analyzer_model"`
	Timestamp            string `json:"timestamp"`
	EvalsRun             []int  `json:"evals_run"`
	RunsPerConfiguration int    `json:"runs_per_configuration"`
}

type runJSON struct {
	EvalID        int               `json:"eval_id"`
	EvalName      string            `json:"eval_name"`
	Configuration string            `json:"configuration"`
	RunNumber     int               `json:"run_number"`
	Result        resultJSON        `json:"result"`
	Expectations  []expectationJSON `json:"expectations"`
	Notes         []string          `json:"notes"`
}

type resultJSON struct {
	PassRate    float64 `json:"pass_rate"`
	Passed      int     `json:"passed"`
	Failed      int     `json:"failed"`
	Total       int     `json:"total"`
	TimeSeconds float64 `json:"time_seconds"`
	Tokens      int     `json:"tokens"`
	ToolCalls   int     `json:"tool_calls"`
	Errors      int     `json:"errors"`
}

// runSummaryJSON is run_summary: the configurations in order (the skill's
// first: the viewer takes the first key as its first column and the delta
// as the first minus the second), then delta.
type runSummaryJSON struct {
	Configs []string
	Stats   []summaryStatsJSON
	Delta   *deltaJSON
}

type deltaJSON struct {
	PassRate    string `json:"pass_rate"`
	TimeSeconds string `json:"time_seconds"`
	Tokens      string `json:"tokens"`
}

// MarshalJSON writes the keys in order.
func (r runSummaryJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, c := range r.Configs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(c)
		v, err := json.Marshal(r.Stats[i])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	if r.Delta != nil {
		if len(r.Configs) > 0 {
			b.WriteByte(',')
		}
		v, _ := json.Marshal(r.Delta)
		b.WriteString(`"delta":`)
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type summaryStatsJSON struct {
	PassRate    Spread `json:"pass_rate"`
	TimeSeconds Spread `json:"time_seconds"`
	Tokens      Spread `json:"tokens"`
}

type skilletBenchmarkJSON struct {
	Baseline       string          `json:"baseline"`
	Configurations []ConfigSummary `json:"configurations"`
	Evals          []*EvalReport   `json:"evals"`
	Pooled         Delta           `json:"pooled"`
	Verdict        string          `json:"verdict"`
	Flaky          []string        `json:"flaky"`
	Interval       string          `json:"interval"`
	GraderModel    string          `json:"grader_model,omitempty"`
	Ungraded       []string        `json:"ungraded,omitempty"`
	Errors         []errorJSON     `json:"errors"`
	Journals       []journalJSON   `json:"journals"`
}

type errorJSON struct {
	EvalID        int    `json:"eval_id"`
	Configuration string `json:"configuration"`
	Attempt       int    `json:"attempt"`
	Error         string `json:"error"`
}

type journalJSON struct {
	EvalID        int    `json:"eval_id"`
	Configuration string `json:"configuration"`
	Attempt       int    `json:"attempt"`
	Journal       string `json:"journal"`
	Grading       string `json:"grading"`
}

// IntervalName is how the report's intervals are computed.
const IntervalName = "Wilson score 95 % per configuration; Newcombe hybrid score 95 % (method 10) for the delta"

// WriteBenchmark writes out/SKILL/benchmark.json for each skill.
func WriteBenchmark(out string, rep *Report) error {
	for _, sr := range rep.Skills {
		if err := writeJSON(filepath.Join(out, sr.Skill, BenchmarkFile), benchmark(out, rep, sr)); err != nil {
			return err
		}
	}
	return nil
}

func benchmark(out string, rep *Report, sr *SkillReport) benchmarkJSON {
	b := benchmarkJSON{
		Metadata: metadataJSON{SkillName: sr.Skill, SkillPath: sr.Dir, ExecutorModel: rep.Model, AnalyzerModel: rep.GraderModel,
			Timestamp: rep.Created.UTC().Format("2006-01-02T15:04:05Z"), EvalsRun: []int{}, RunsPerConfiguration: rep.Runs},
		Runs:  []runJSON{},
		Notes: []string{},
		Skillet: skilletBenchmarkJSON{Baseline: rep.Baseline, Configurations: sr.Configs, Evals: sr.Evals, Pooled: sr.Pooled,
			Verdict: sr.Verdict, Flaky: append([]string{}, sr.Flaky...), Interval: rep.Interval, GraderModel: rep.GraderModel,
			Errors: []errorJSON{}, Journals: []journalJSON{}},
	}
	for _, e := range sr.Evals {
		b.Metadata.EvalsRun = append(b.Metadata.EvalsRun, e.ID)
	}
	ungraded := map[string]bool{}
	for _, r := range sr.Runs {
		dir := RunDir(out, r.Skill, r.EvalID, r.Configuration, r.Attempt)
		b.Skillet.Journals = append(b.Skillet.Journals, journalJSON{EvalID: r.EvalID, Configuration: r.Configuration, Attempt: r.Attempt,
			Journal: rel(out, r.Journal), Grading: rel(out, filepath.Join(dir, GradingFile))})
		if !r.Scored() {
			b.Skillet.Errors = append(b.Skillet.Errors, errorJSON{EvalID: r.EvalID, Configuration: r.Configuration, Attempt: r.Attempt, Error: r.Error})
			continue
		}
		for _, u := range r.Ungraded {
			if !ungraded[u] {
				ungraded[u] = true
				b.Skillet.Ungraded = append(b.Skillet.Ungraded, u)
			}
		}
		p, t := r.Counts()
		notes := []string{}
		if len(r.Ungraded) > 0 {
			notes = append(notes, fmt.Sprintf("%d expectations not graded: model grading needs a real model", len(r.Ungraded)))
		}
		b.Runs = append(b.Runs, runJSON{EvalID: r.EvalID, EvalName: r.EvalName, Configuration: r.Configuration, RunNumber: r.Attempt,
			Result: resultJSON{PassRate: r.PassRate(), Passed: p, Failed: t - p, Total: t, TimeSeconds: round1(r.Seconds),
				Tokens: r.Outcome.Tokens, ToolCalls: r.Outcome.ToolCalls, Errors: r.Outcome.ToolErrors},
			Expectations: expectations(r), Notes: notes})
	}
	// the viewer reads every key of run_summary but delta as a
	// configuration: nothing else goes there
	for _, c := range sr.Configs {
		b.RunSummary.Configs = append(b.RunSummary.Configs, c.Configuration)
		b.RunSummary.Stats = append(b.RunSummary.Stats, summaryStatsJSON{PassRate: c.PassRate, TimeSeconds: c.TimeSeconds, Tokens: c.Tokens})
	}
	if len(sr.Configs) == 2 {
		a, c := sr.Configs[0], sr.Configs[1]
		b.RunSummary.Delta = &deltaJSON{
			PassRate:    fmt.Sprintf("%+.2f", a.PassRate.Mean-c.PassRate.Mean),
			TimeSeconds: fmt.Sprintf("%+.1f", a.TimeSeconds.Mean-c.TimeSeconds.Mean),
			Tokens:      fmt.Sprintf("%+.0f", a.Tokens.Mean-c.Tokens.Mean),
		}
	}
	b.Notes = notes(sr)
	return b
}

// notes are the observations skill-creator's analyzer would write, from
// the statistics.
func notes(sr *SkillReport) []string {
	out := []string{}
	for _, e := range sr.Evals {
		switch e.Verdict {
		case VerdictHelps, VerdictHurts:
			out = append(out, fmt.Sprintf("%s: the skill %s: delta %+.2f, 95 %% interval [%+.2f, %+.2f]", e.Name, e.Verdict, e.Delta.Delta, e.Delta.Low, e.Delta.High))
		case VerdictNoEvidence:
			out = append(out, fmt.Sprintf("%s: no evidence either way: delta %+.2f, 95 %% interval [%+.2f, %+.2f] holds 0", e.Name, e.Delta.Delta, e.Delta.Low, e.Delta.High))
		case VerdictUngraded:
			out = append(out, fmt.Sprintf("%s: not graded: its expectations need a grader model and it has no checks", e.Name))
		case VerdictError:
			out = append(out, fmt.Sprintf("%s: no scored runs in a configuration (%d errors)", e.Name, len(e.Errors)))
		}
		if e.Flaky {
			out = append(out, fmt.Sprintf("%s is flaky: both outcomes within one configuration", e.Name))
		}
	}
	return out
}

func rel(base, p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.Rel(base, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}
