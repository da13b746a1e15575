// Package report writes a scored eval as files: results.json in
// skill-creator's shape with Skillet's fields, JUnit XML for CI, and a
// self-contained HTML page.
package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"skillet/harness/atomicfile"
	"skillet/harness/eval"
)

// Files a report writes into the eval's folder.
const (
	JSONFile  = "results.json"
	JUnitFile = "results.xml"
	HTMLFile  = "report.html"
)

// Results is results.json: skill-creator's fields first (skill_name,
// description, results, summary), then Skillet's.
type Results struct {
	SkillName   string  `json:"skill_name"`
	Description string  `json:"description"`
	Results     []Row   `json:"results"`
	Summary     Summary `json:"summary"`
	Skills      []Skill `json:"skills"`
	Confusion   any     `json:"confusion"`
	Model       string  `json:"model"`
	BaseURL     string  `json:"base_url"`
	Demo        bool    `json:"demo,omitempty"`
	Plan        any     `json:"plan"`
	// IntervalMethod names the interval of every row: the confidence
	// sequence with --runs auto, Wilson for a fixed count.
	IntervalMethod string   `json:"interval_method"`
	Threshold      float64  `json:"threshold"`
	Stopped        string   `json:"stopped,omitempty"`
	Arms           []ArmOut `json:"arms,omitempty"`
	Flips          *int     `json:"aa_flips,omitempty"`
}

// Row is one query: skill-creator's fields, then Skillet's.
type Row struct {
	Query         string  `json:"query"`
	ShouldTrigger bool    `json:"should_trigger"`
	TriggerRate   float64 `json:"trigger_rate"`
	Triggers      int     `json:"triggers"`
	Runs          int     `json:"runs"`
	Pass          bool    `json:"pass"`

	Skill         string           `json:"skill"`
	Type          string           `json:"type,omitempty"`
	Weight        float64          `json:"weight,omitempty"`
	Verdict       string           `json:"verdict"`
	Interval      [2]float64       `json:"interval"`
	Errors        int              `json:"errors"`
	Outcomes      map[string]int   `json:"outcomes"`
	OfferedRanks  []int            `json:"offered_ranks"`
	ExpectMet     *int             `json:"expect_met,omitempty"`
	ExpectFailure string           `json:"expect_failure,omitempty"`
	Seconds       float64          `json:"seconds"`
	RunResults    []eval.RunResult `json:"run_results"`
}

// Summary is skill-creator's summary with verdict counts and totals.
type Summary struct {
	Total        int `json:"total"`
	Passed       int `json:"passed"`
	Failed       int `json:"failed"`
	VerdictPass  int `json:"verdict_pass"`
	VerdictFail  int `json:"verdict_fail"`
	Undetermined int `json:"undetermined"`
	VerdictError int `json:"verdict_error"`
	Runs         int `json:"runs"`
	Errors       int `json:"errors"`
	Tokens       int `json:"tokens"`
}

// Skill is one evaluated skill's scores, without its rows (results.json
// lists them once, under "results").
type Skill struct {
	eval.SkillScore
	// Queries hides the score's rows.
	Queries []eval.QueryScore `json:"queries,omitempty"`
}

// ArmOut is one arm of an A/A eval.
type ArmOut struct {
	Name    string  `json:"name"`
	Results []Row   `json:"results"`
	Summary Summary `json:"summary"`
	Skills  []Skill `json:"skills"`
}

// Build turns a scored eval into results.json's content; its rows are
// the first arm's, all arms are under "arms" when there are two.
func Build(rep *eval.Report) *Results {
	out := &Results{Model: rep.Model, BaseURL: rep.BaseURL, Demo: rep.Demo, Plan: rep.Plan, Stopped: rep.Stopped,
		IntervalMethod: rep.Plan.IntervalMethod(), Threshold: rep.Plan.TriggerThreshold()}
	var arms []ArmOut
	for _, a := range rep.Arms {
		ao := ArmOut{Name: a.Name, Results: []Row{}, Skills: []Skill{}}
		for _, s := range a.Skills {
			ao.Skills = append(ao.Skills, skillOut(s))
			for _, q := range s.Queries {
				ao.Results = append(ao.Results, rowOut(s.Name, q))
			}
		}
		ao.Summary = summarize(ao.Results)
		arms = append(arms, ao)
	}
	if len(arms) > 0 {
		out.Results, out.Skills, out.Summary = arms[0].Results, arms[0].Skills, arms[0].Summary
		out.Confusion = rep.Arms[0].Confusion
	}
	out.Summary.Runs, out.Summary.Errors, out.Summary.Tokens = rep.Runs, rep.Errors, rep.Tokens
	var names []string
	for _, s := range out.Skills {
		names = append(names, s.Name)
	}
	out.SkillName = strings.Join(names, ",")
	if len(out.Skills) == 1 {
		out.Description = out.Skills[0].Description
	}
	if len(arms) == 2 {
		out.Arms = arms
		flips := rep.Flips
		out.Flips = &flips
	}
	return out
}

func rowOut(skill string, q eval.QueryScore) Row {
	r := Row{Query: q.Query, ShouldTrigger: q.ShouldTrigger, TriggerRate: q.TriggerRate, Triggers: q.Triggers, Runs: q.Runs, Pass: q.Pass,
		Skill: skill, Type: q.Type, Weight: q.Weight, Verdict: q.Verdict, Interval: [2]float64{q.Low, q.High}, Errors: q.Errors,
		Outcomes: q.Outcomes, OfferedRanks: []int{}, ExpectMet: q.ExpectMet, ExpectFailure: q.ExpectFailure, Seconds: q.Seconds, RunResults: q.Cells}
	for _, c := range q.Cells {
		r.OfferedRanks = append(r.OfferedRanks, c.Rank)
	}
	return r
}

func skillOut(s eval.SkillScore) Skill {
	s.Queries = nil
	return Skill{SkillScore: s}
}

func summarize(rows []Row) Summary {
	s := Summary{Total: len(rows)}
	for _, r := range rows {
		if r.Pass {
			s.Passed++
		} else {
			s.Failed++
		}
		switch r.Verdict {
		case eval.VerdictPass:
			s.VerdictPass++
		case eval.VerdictFail:
			s.VerdictFail++
		case eval.VerdictError:
			s.VerdictError++
		default:
			s.Undetermined++
		}
	}
	return s
}

// WriteAll writes results.json, results.xml and report.html into dir.
func WriteAll(dir string, rep *eval.Report) error {
	res := Build(rep)
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", JSONFile, err)
	}
	if err := write(filepath.Join(dir, JSONFile), append(b, '\n')); err != nil {
		return err
	}
	x, err := JUnit(rep)
	if err != nil {
		return err
	}
	if err := write(filepath.Join(dir, JUnitFile), x); err != nil {
		return err
	}
	h, err := HTML(rep)
	if err != nil {
		return err
	}
	return write(filepath.Join(dir, HTMLFile), h)
}

func write(path string, b []byte) error {
	if err := atomicfile.Write(path, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}
