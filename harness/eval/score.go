package eval

import (
	"cmp"
	"fmt"
	"slices"
)

// NoSkill is the confusion column of runs that loaded no evaluated skill.
const NoSkill = "(none)"

// OtherSkill is the confusion column of skills loaded that are not
// evaluated.
const OtherSkill = "(other)"

// Report is the scored eval: per arm, per skill, per query.
type Report struct {
	Model   string `json:"model"`
	BaseURL string `json:"base_url"`
	Demo    bool   `json:"demo,omitempty"`
	Plan    Plan   `json:"plan"`
	Arms    []Arm  `json:"arms"`
	// Flips counts, with two arms, the queries whose verdict differs
	// between them: the noise floor of identical descriptions.
	Flips int `json:"flips,omitempty"`
	// Runs, Errors and Tokens are totals over every run.
	Runs   int `json:"runs"`
	Errors int `json:"errors"`
	Tokens int `json:"tokens"`
	// Stopped says why the eval ended before its plan: "interrupted",
	// "budget", "failing endpoint"; "" when it ran to the end.
	Stopped string `json:"stopped,omitempty"`
}

// Arm is one arm's scores.
type Arm struct {
	Name      string       `json:"name,omitempty"`
	Skills    []SkillScore `json:"skills"`
	Confusion Confusion    `json:"confusion"`
}

// SkillScore is one evaluated skill's scores.
type SkillScore struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Queries     []QueryScore `json:"queries"`
	// Run-level counts and rates: a run of a should-trigger query that
	// triggered is a true positive, and so on.
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	TN        int     `json:"tn"`
	FN        int     `json:"fn"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Accuracy  float64 `json:"accuracy"`
	// Query-level: skill-creator's pass count, and verdict counts.
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	VerdictPass  int `json:"verdict_pass"`
	VerdictFail  int `json:"verdict_fail"`
	Undetermined int `json:"undetermined"`
	// VerdictError counts the queries that ended in error: too few
	// scored runs once their errors reached the plan's cap.
	VerdictError int `json:"verdict_error"`
	// WeightedPass is the passing rows' share of the weights.
	WeightedPass float64 `json:"weighted_pass"`
	// HijackRate is the share of this skill's should-trigger runs where
	// another skill loaded and this one did not.
	HijackRate float64 `json:"hijack_rate"`
	// ByType counts passing and all queries per row type, for rows that
	// name one.
	ByType map[string]TypeCount `json:"by_type,omitempty"`
}

// TypeCount is the query pass count of one row type.
type TypeCount struct {
	Passed int `json:"passed"`
	Total  int `json:"total"`
}

// QueryScore is one query's scores in one arm.
type QueryScore struct {
	Index         int     `json:"index"`
	Query         string  `json:"query"`
	ShouldTrigger bool    `json:"should_trigger"`
	Type          string  `json:"type,omitempty"`
	Weight        float64 `json:"weight,omitempty"`
	Runs          int     `json:"runs"`
	Triggers      int     `json:"triggers"`
	TriggerRate   float64 `json:"trigger_rate"`
	Low           float64 `json:"interval_low"`
	High          float64 `json:"interval_high"`
	// Pass is skill-creator's; Verdict adds the interval.
	Pass    bool   `json:"pass"`
	Verdict string `json:"verdict"`
	// Errors are runs that failed before the model decided (not in Runs).
	Errors   int            `json:"errors"`
	Outcomes map[string]int `json:"outcomes"`
	// ExpectMet counts the runs meeting the row's expect, when it has one;
	// ExpectFailure says how the first run that missed it did.
	ExpectMet     *int   `json:"expect_met,omitempty"`
	ExpectFailure string `json:"expect_failure,omitempty"`
	// Seconds is the wall time of all its runs, errored ones too.
	Seconds float64     `json:"seconds"`
	Cells   []RunResult `json:"run_results"`
}

// RunResult is one run of a query, as the grids show it.
type RunResult struct {
	N         int      `json:"n"`
	Session   string   `json:"session"`
	Triggered bool     `json:"triggered"`
	Outcome   string   `json:"outcome"`
	Detail    string   `json:"detail,omitempty"`
	Rank      int      `json:"offered_rank"`
	Loaded    []string `json:"loaded"`
	Seconds   float64  `json:"seconds"`
}

// Confusion counts, for each evaluated skill's should-trigger runs, which
// skills loaded: Counts[row][col] over Rows × Cols.
type Confusion struct {
	Rows   []string `json:"rows"`
	Cols   []string `json:"cols"`
	Counts [][]int  `json:"counts"`
}

// Score scores finished runs against the manifest.
func Score(m *Manifest, runs []Run) *Report {
	rep := &Report{Model: m.Model, BaseURL: m.BaseURL, Demo: m.Demo, Plan: m.Plan}
	arms := m.Plan.Arms
	if len(arms) == 0 {
		arms = []string{""}
	}
	byKey := map[[2]int][]Run{}
	armIdx := map[string]int{}
	for i, a := range arms {
		armIdx[a] = i
	}
	for _, r := range runs {
		ai, ok := armIdx[r.Arm]
		if !ok || r.Query < 0 || r.Query >= len(m.Queries) {
			continue
		}
		byKey[[2]int{ai, r.Query}] = append(byKey[[2]int{ai, r.Query}], r)
		rep.Runs++
		rep.Tokens += r.Result.Tokens
		if !r.Result.Scored() {
			rep.Errors++
		}
	}
	for ai, a := range arms {
		arm := Arm{Name: a}
		for _, sk := range m.Skills {
			arm.Skills = append(arm.Skills, scoreSkill(m, sk, ai, byKey))
		}
		arm.Confusion = confusion(m, ai, byKey)
		rep.Arms = append(rep.Arms, arm)
	}
	if len(rep.Arms) == 2 {
		for si := range rep.Arms[0].Skills {
			a, b := rep.Arms[0].Skills[si].Queries, rep.Arms[1].Skills[si].Queries
			for qi := range a {
				if a[qi].Verdict != b[qi].Verdict || a[qi].Pass != b[qi].Pass {
					rep.Flips++
				}
			}
		}
	}
	return rep
}

func scoreSkill(m *Manifest, sk SkillInfo, arm int, byKey map[[2]int][]Run) SkillScore {
	s := SkillScore{Name: sk.Name, Description: sk.Description, Queries: []QueryScore{}}
	var wAll, wPass float64
	var shouldRuns, hijacked int
	for qi, q := range m.Queries {
		if q.Skill != sk.Name {
			continue
		}
		runs := slices.SortedFunc(slices.Values(byKey[[2]int{arm, qi}]), func(a, b Run) int { return cmp.Compare(a.N, b.N) })
		qs := scoreQuery(m.Plan, qi, q, runs)
		for _, r := range runs {
			if !r.Result.Scored() {
				continue
			}
			t := r.Result.Triggered
			switch {
			case q.ShouldTrigger && t:
				s.TP++
			case q.ShouldTrigger:
				s.FN++
			case t:
				s.FP++
			default:
				s.TN++
			}
			if q.ShouldTrigger {
				shouldRuns++
				if !t && len(r.Result.Loaded) > 0 {
					hijacked++
				}
			}
		}
		if qs.Pass {
			s.Passed++
			wPass += q.weight()
		} else {
			s.Failed++
		}
		if q.Type != "" {
			if s.ByType == nil {
				s.ByType = map[string]TypeCount{}
			}
			tc := s.ByType[q.Type]
			tc.Total++
			if qs.Pass {
				tc.Passed++
			}
			s.ByType[q.Type] = tc
		}
		wAll += q.weight()
		switch qs.Verdict {
		case VerdictPass:
			s.VerdictPass++
		case VerdictFail:
			s.VerdictFail++
		case VerdictError:
			s.VerdictError++
		default:
			s.Undetermined++
		}
		s.Queries = append(s.Queries, qs)
	}
	s.Precision = ratio(float64(s.TP), float64(s.TP+s.FP))
	s.Recall = ratio(float64(s.TP), float64(s.TP+s.FN))
	s.F1 = ratio(2*s.Precision*s.Recall, s.Precision+s.Recall)
	s.Accuracy = ratio(float64(s.TP+s.TN), float64(s.TP+s.TN+s.FP+s.FN))
	s.WeightedPass = ratio(wPass, wAll)
	s.HijackRate = ratio(float64(hijacked), float64(shouldRuns))
	return s
}

func scoreQuery(plan Plan, qi int, q Query, runs []Run) QueryScore {
	qs := QueryScore{Index: qi, Query: q.Query, ShouldTrigger: q.ShouldTrigger, Type: q.Type, Weight: q.Weight, Outcomes: map[string]int{}, Cells: []RunResult{}}
	met := 0
	for _, r := range runs {
		res := r.Result
		qs.Outcomes[res.Outcome]++
		qs.Seconds += res.Seconds
		qs.Cells = append(qs.Cells, RunResult{N: r.N, Session: r.Session, Triggered: res.Triggered, Outcome: res.Outcome, Detail: detail(res), Rank: res.Rank, Loaded: res.Loaded, Seconds: res.Seconds})
		if !res.Scored() {
			qs.Errors++
			continue
		}
		qs.Runs++
		if res.Triggered {
			qs.Triggers++
		}
		if q.Expect.Met(res.Loaded) {
			met++
		}
	}
	qs.TriggerRate = ratio(float64(qs.Triggers), float64(qs.Runs))
	qs.Low, qs.High = plan.Interval(qs.Triggers, qs.Runs)
	// skill-creator counts a query with no runs as failed
	qs.Pass = qs.Runs > 0 && plan.Pass(qs.TriggerRate, q.ShouldTrigger)
	qs.Verdict = plan.Verdict(qs.Triggers, qs.Runs, q.ShouldTrigger)
	if q.Expect != nil {
		qs.ExpectMet = &met
		// the routing check is a rate that must be 1: pass once its
		// interval clears the threshold, like a should-trigger row
		qs.Verdict = combine(qs.Verdict, plan.Verdict(met, qs.Runs, true))
		if met < qs.Runs {
			qs.ExpectFailure = expectFailure(q.Expect, runs)
		}
	}
	if qs.Errors >= plan.ErrorCap() && plan.Needs(qs.Runs, qs.Verdict) {
		qs.Verdict = VerdictError
	}
	return qs
}

// expectFailure says how the first run that missed the row's routing
// check missed it.
func expectFailure(e *Expect, runs []Run) string {
	for _, r := range runs {
		if r.Result.Scored() && !e.Met(r.Result.Loaded) {
			return fmt.Sprintf("run %d: %s", r.N, e.Why(r.Result.Loaded))
		}
	}
	return ""
}

// detail is a run's outcome in a few words, for grids and test cases.
func detail(r Result) string {
	switch r.Outcome {
	case OutcomeOtherSkill:
		return r.Other
	case OutcomeToolFirst:
		if r.Followed {
			return r.FirstTool + ", then loaded"
		}
		return r.FirstTool + ", not loaded"
	case OutcomeRefused:
		return r.Limit
	case OutcomeError:
		return r.Error
	}
	return ""
}

func confusion(m *Manifest, arm int, byKey map[[2]int][]Run) Confusion {
	c := Confusion{}
	col := map[string]int{}
	for _, sk := range m.Skills {
		c.Rows = append(c.Rows, sk.Name)
		col[sk.Name] = len(c.Cols)
		c.Cols = append(c.Cols, sk.Name)
	}
	col[OtherSkill], col[NoSkill] = len(c.Cols), len(c.Cols)+1
	c.Cols = append(c.Cols, OtherSkill, NoSkill)
	c.Counts = make([][]int, len(c.Rows))
	for i := range c.Counts {
		c.Counts[i] = make([]int, len(c.Cols))
	}
	for ri, sk := range m.Skills {
		for qi, q := range m.Queries {
			if q.Skill != sk.Name || !q.ShouldTrigger {
				continue
			}
			for _, r := range byKey[[2]int{arm, qi}] {
				if !r.Result.Scored() {
					continue
				}
				other := false
				for _, l := range r.Result.Loaded {
					if ci, ok := col[l]; ok && l != OtherSkill && l != NoSkill {
						c.Counts[ri][ci]++
					} else {
						other = true
					}
				}
				switch {
				case other:
					c.Counts[ri][col[OtherSkill]]++
				case len(r.Result.Loaded) == 0:
					c.Counts[ri][col[NoSkill]]++
				}
			}
		}
	}
	return c
}

// Verdicts lists every query verdict of the report, across arms.
func (r *Report) Verdicts() []string {
	var out []string
	for _, a := range r.Arms {
		for _, s := range a.Skills {
			for _, q := range s.Queries {
				out = append(out, q.Verdict)
			}
		}
	}
	return out
}
