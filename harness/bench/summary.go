package bench

import (
	"fmt"
	"sort"
	"time"

	"skillet/harness/eval"
)

// VerdictUngraded is an eval none of whose items could be graded: only
// plain-language expectations, and no model to grade them.
const VerdictUngraded = "not graded"

// Report is a benchmark's statistics.
type Report struct {
	Created        time.Time `json:"created"`
	Model          string    `json:"model"`
	GraderModel    string    `json:"grader_model,omitempty"`
	Runs           int       `json:"runs_per_configuration"`
	Configurations []string  `json:"configurations"`
	// Baseline says what the baseline configuration was: "without_skill",
	// a folder or a git revision.
	Baseline string         `json:"baseline"`
	Skills   []*SkillReport `json:"skills"`
	// Interval names how the intervals are computed.
	Interval string `json:"interval"`
}

// SkillReport is one skill's benchmark.
type SkillReport struct {
	Skill   string          `json:"skill"`
	Dir     string          `json:"dir"`
	Evals   []*EvalReport   `json:"evals"`
	Configs []ConfigSummary `json:"configurations"`
	// Pooled is the delta over every graded eval's runs together.
	Pooled  Delta    `json:"pooled"`
	Verdict string   `json:"verdict"`
	Flaky   []string `json:"flaky,omitempty"`
	Errors  int      `json:"errors"`
	// Runs are every finished attempt, errored ones included.
	Runs []*RunResult `json:"-"`
}

// EvalReport is one eval across the configurations.
type EvalReport struct {
	ID      int          `json:"eval_id"`
	Name    string       `json:"eval_name"`
	Prompt  string       `json:"prompt"`
	Configs []EvalConfig `json:"configurations"`
	Delta   Delta        `json:"delta"`
	Verdict string       `json:"verdict"`
	Flaky   bool         `json:"flaky"`
	Errors  []string     `json:"errors,omitempty"`
}

// EvalConfig is one eval in one configuration: the share of its scored
// runs that passed every item, with a Wilson interval.
type EvalConfig struct {
	Configuration string  `json:"configuration"`
	Passed        int     `json:"passed_runs"`
	Runs          int     `json:"scored_runs"`
	Errors        int     `json:"errored_runs"`
	Rate          float64 `json:"rate"`
	Low           float64 `json:"low"`
	High          float64 `json:"high"`
	// MeanPassRate is the mean of the runs' result.pass_rate.
	MeanPassRate float64 `json:"mean_pass_rate"`
	Flaky        bool    `json:"flaky"`
}

// Delta is the first configuration's rate minus the second's, with
// Newcombe's interval.
type Delta struct {
	Delta float64 `json:"delta"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}

// ConfigSummary is a configuration's cost and outcome over its scored runs.
type ConfigSummary struct {
	Configuration string `json:"configuration"`
	Runs          int    `json:"scored_runs"`
	Errors        int    `json:"errored_runs"`
	PassRate      Spread `json:"pass_rate"`
	TimeSeconds   Spread `json:"time_seconds"`
	Tokens        Spread `json:"tokens"`
	ModelCalls    Spread `json:"model_calls"`
	ToolCalls     Spread `json:"tool_calls"`
}

// Summarize scores the runs. configs[0] is the skill's configuration and
// configs[1] the baseline; a delta is configs[0] − configs[1].
func Summarize(suites []*Suite, configs []string, runs []*RunResult, gradable func(Eval) bool) []*SkillReport {
	var out []*SkillReport
	for _, s := range suites {
		sr := &SkillReport{Skill: s.Skill, Dir: s.Dir}
		byKey := map[string][]*RunResult{}
		for _, r := range runs {
			if r.Skill != s.Skill {
				continue
			}
			sr.Runs = append(sr.Runs, r)
			byKey[key(r.EvalID, r.Configuration)] = append(byKey[key(r.EvalID, r.Configuration)], r)
		}
		sort.Slice(sr.Runs, func(i, j int) bool {
			a, b := sr.Runs[i], sr.Runs[j]
			if a.EvalID != b.EvalID {
				return a.EvalID < b.EvalID
			}
			if a.Configuration != b.Configuration {
				return indexOf(configs, a.Configuration) < indexOf(configs, b.Configuration)
			}
			return a.Attempt < b.Attempt
		})
		pooledK, pooledN := make([]int, len(configs)), make([]int, len(configs))
		for _, e := range s.Evals.Evals {
			er := &EvalReport{ID: e.ID, Name: e.Title(), Prompt: e.Prompt}
			for _, c := range configs {
				ec := EvalConfig{Configuration: c}
				var rates float64
				for _, r := range byKey[key(e.ID, c)] {
					if !r.Scored() {
						ec.Errors++
						sr.Errors++
						er.Errors = append(er.Errors, r.Error)
						continue
					}
					ec.Runs++
					rates += r.PassRate()
					if r.Passed() {
						ec.Passed++
					}
				}
				if ec.Runs > 0 {
					ec.Rate = float64(ec.Passed) / float64(ec.Runs)
					ec.MeanPassRate = round4(rates / float64(ec.Runs))
				}
				ec.Low, ec.High = eval.Wilson(ec.Passed, ec.Runs)
				ec.Flaky = ec.Passed > 0 && ec.Passed < ec.Runs
				er.Flaky = er.Flaky || ec.Flaky
				er.Configs = append(er.Configs, ec)
			}
			switch {
			case gradable != nil && !gradable(e):
				er.Verdict = VerdictUngraded
			case len(er.Configs) < 2 || er.Configs[0].Runs == 0 || er.Configs[1].Runs == 0:
				er.Verdict = VerdictError
			default:
				a, b := er.Configs[0], er.Configs[1]
				er.Delta.Delta, er.Delta.Low, er.Delta.High = Newcombe(a.Passed, a.Runs, b.Passed, b.Runs)
				er.Verdict = VerdictOf(er.Delta.Low, er.Delta.High)
				for i := range 2 {
					pooledK[i] += er.Configs[i].Passed
					pooledN[i] += er.Configs[i].Runs
				}
			}
			if er.Flaky {
				sr.Flaky = append(sr.Flaky, e.Title())
			}
			sr.Evals = append(sr.Evals, er)
		}
		if len(configs) >= 2 && pooledN[0] > 0 && pooledN[1] > 0 {
			sr.Pooled.Delta, sr.Pooled.Low, sr.Pooled.High = Newcombe(pooledK[0], pooledN[0], pooledK[1], pooledN[1])
			sr.Verdict = VerdictOf(sr.Pooled.Low, sr.Pooled.High)
		} else {
			sr.Verdict = VerdictError
			if gradable != nil && allUngraded(sr) {
				sr.Verdict = VerdictUngraded
			}
		}
		for _, c := range configs {
			sr.Configs = append(sr.Configs, configSummary(c, sr.Runs))
		}
		out = append(out, sr)
	}
	return out
}

func allUngraded(sr *SkillReport) bool {
	for _, e := range sr.Evals {
		if e.Verdict != VerdictUngraded {
			return false
		}
	}
	return true
}

func configSummary(c string, runs []*RunResult) ConfigSummary {
	cs := ConfigSummary{Configuration: c}
	var rate, secs, tokens, calls, tools []float64
	for _, r := range runs {
		if r.Configuration != c {
			continue
		}
		if !r.Scored() {
			cs.Errors++
			continue
		}
		cs.Runs++
		rate = append(rate, r.PassRate())
		secs = append(secs, r.Seconds)
		tokens = append(tokens, float64(r.Outcome.Tokens))
		calls = append(calls, float64(r.Outcome.ModelCalls))
		tools = append(tools, float64(r.Outcome.ToolCalls))
	}
	cs.PassRate, cs.TimeSeconds, cs.Tokens, cs.ModelCalls, cs.ToolCalls = SpreadOf(rate), SpreadOf(secs), SpreadOf(tokens), SpreadOf(calls), SpreadOf(tools)
	return cs
}

func key(id int, c string) string { return fmt.Sprintf("%s/%d", c, id) }

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return len(list)
}
