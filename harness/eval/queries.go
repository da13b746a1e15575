// Package eval measures whether skills trigger: it runs each query of a
// query file in fresh sessions, observes which skills the model itself
// loads (R20), and scores the runs with intervals, so a verdict is given
// only when the runs support it.
package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Query types a row may name.
const (
	TypeExplicit   = "explicit"
	TypeImplicit   = "implicit"
	TypeContextual = "contextual"
	TypeNegative   = "negative"
)

// TriggersFile is where a skill folder keeps its own query file.
const TriggersFile = "evals/triggers.json"

// Query is one row of a query file: the skill-creator fields, read
// verbatim, and Skillet's optional ones.
type Query struct {
	Query         string `json:"query"`
	ShouldTrigger bool   `json:"should_trigger"`
	// Skill is the skill the row is about.
	Skill string `json:"skill,omitempty"`
	// Type is explicit, implicit, contextual or negative.
	Type string `json:"type,omitempty"`
	// Weight scales the row in a skill's weighted pass score; 0 means 1.
	Weight float64 `json:"weight,omitempty"`
	// Expect checks routing across skills in every run.
	Expect *Expect `json:"expect,omitempty"`
	// Source names the file and row, for messages.
	Source string `json:"source,omitempty"`
}

// Expect is a row's routing check: which skills a run must load, must not
// load, and how many it may load at most.
type Expect struct {
	MustInclude    []string `json:"must_include,omitempty"`
	MustNotInclude []string `json:"must_not_include,omitempty"`
	MaxSkills      int      `json:"max_skills,omitempty"`
}

// Met reports whether the skills a run loaded satisfy the check.
func (e *Expect) Met(loaded []string) bool {
	if e == nil {
		return true
	}
	for _, s := range e.MustInclude {
		if !slices.Contains(loaded, s) {
			return false
		}
	}
	for _, s := range e.MustNotInclude {
		if slices.Contains(loaded, s) {
			return false
		}
	}
	return e.MaxSkills == 0 || len(loaded) <= e.MaxSkills
}

// Why says how the skills a run loaded miss the check; "" when they meet
// it.
func (e *Expect) Why(loaded []string) string {
	if e == nil {
		return ""
	}
	var out []string
	for _, s := range e.MustInclude {
		if !slices.Contains(loaded, s) {
			out = append(out, "did not load "+s+" (must_include)")
		}
	}
	for _, s := range e.MustNotInclude {
		if slices.Contains(loaded, s) {
			out = append(out, "loaded "+s+" (must_not_include)")
		}
	}
	if e.MaxSkills > 0 && len(loaded) > e.MaxSkills {
		out = append(out, fmt.Sprintf("loaded %d skills (%s), over max_skills %d", len(loaded), strings.Join(loaded, ", "), e.MaxSkills))
	}
	return strings.Join(out, "; ")
}

// weight is the row's weight, 1 when unset.
func (q Query) weight() float64 {
	if q.Weight == 0 {
		return 1
	}
	return q.Weight
}

// ReadQueries reads a query file; defaultSkill fills rows that name none.
func ReadQueries(path, defaultSkill string) ([]Query, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read queries: %w", err)
	}
	return ParseQueries(data, path, defaultSkill)
}

// ParseQueries parses query-file text: a JSON array of rows, each with a
// string "query" and a boolean "should_trigger". Every bad row is named.
func ParseQueries(data []byte, name, defaultSkill string) ([]Query, error) {
	var rows []json.RawMessage
	if err := json.Unmarshal(data, &rows); err != nil {
		return nil, fmt.Errorf("queries %s: %s (want a JSON array such as [{\"query\": \"...\", \"should_trigger\": true}])", name, jsonProblem(data, err))
	}
	var errs []error
	out := make([]Query, 0, len(rows))
	for i, raw := range rows {
		q, err := parseRow(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("row %d: %w", i+1, err))
			continue
		}
		if q.Skill == "" {
			q.Skill = defaultSkill
		}
		q.Source = fmt.Sprintf("%s row %d", name, i+1)
		out = append(out, q)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("queries %s: %w", name, errors.Join(errs...))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("queries %s: no rows (want [{\"query\": \"...\", \"should_trigger\": true}, ...])", name)
	}
	return out, nil
}

func parseRow(raw json.RawMessage) (Query, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Query{}, fmt.Errorf("want an object with \"query\" and \"should_trigger\", got %s", clip(string(raw), 40))
	}
	var q Query
	text, ok := fields["query"]
	if !ok {
		return q, errors.New(`no "query"`)
	}
	if err := json.Unmarshal(text, &q.Query); err != nil || strings.TrimSpace(q.Query) == "" {
		return q, fmt.Errorf(`"query" must be a non-empty string, got %s`, clip(string(text), 40))
	}
	st, ok := fields["should_trigger"]
	if !ok {
		return q, fmt.Errorf(`no "should_trigger" (query %q)`, clip(q.Query, 40))
	}
	// null is an error, not false: a label left blank must not silently
	// become a should-not row
	if err := json.Unmarshal(st, &q.ShouldTrigger); err != nil || string(bytes.TrimSpace(st)) == "null" {
		return q, fmt.Errorf(`"should_trigger" must be true or false, got %s (query %q)`, clip(string(st), 20), clip(q.Query, 40))
	}
	var opt struct {
		Skill  *string  `json:"skill"`
		Type   *string  `json:"type"`
		Weight *float64 `json:"weight"`
		Expect *Expect  `json:"expect"`
	}
	if err := json.Unmarshal(raw, &opt); err != nil {
		return q, fmt.Errorf("optional fields: %v", err)
	}
	if opt.Skill != nil {
		q.Skill = strings.TrimSpace(*opt.Skill)
	}
	if opt.Type != nil {
		q.Type = strings.TrimSpace(*opt.Type)
		if !slices.Contains([]string{TypeExplicit, TypeImplicit, TypeContextual, TypeNegative}, q.Type) {
			return q, fmt.Errorf(`"type" %q: want explicit, implicit, contextual or negative`, q.Type)
		}
	}
	if opt.Weight != nil {
		if *opt.Weight <= 0 {
			return q, fmt.Errorf(`"weight" must be more than 0, got %v`, *opt.Weight)
		}
		q.Weight = *opt.Weight
	}
	if opt.Expect != nil {
		if opt.Expect.MaxSkills < 0 {
			return q, fmt.Errorf(`"expect.max_skills" must be 0 or more, got %d`, opt.Expect.MaxSkills)
		}
		q.Expect = opt.Expect
	}
	return q, nil
}

// jsonProblem says where JSON text goes wrong, by line and column.
func jsonProblem(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:se.Offset], []byte("\n"))
		col := int(se.Offset) - bytes.LastIndexByte(data[:se.Offset], '\n') - 1
		return fmt.Sprintf("not JSON: line %d, column %d: %v", line, col, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("not a list of rows: the file holds a JSON %s", te.Value)
	}
	return "not JSON: " + err.Error()
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// SkillQueries reads a skill folder's own query file (TriggersFile); its
// rows are about that skill unless they say otherwise.
func SkillQueries(dir, skill string) ([]Query, error) {
	p := filepath.Join(dir, filepath.FromSlash(TriggersFile))
	if _, err := os.Stat(p); err != nil {
		return nil, fmt.Errorf("skill %s has no %s (in %s): give --queries FILE", skill, TriggersFile, dir)
	}
	return ReadQueries(p, skill)
}

// CheckSkills makes sure every row names a skill that is evaluated, and
// every evaluated skill exists; known are the names the catalog holds
// enabled, and invalid, when set, says why a skill of that name that does
// exist cannot be used ("" for none).
func CheckSkills(queries []Query, evaluated, known []string, closest func(string, []string) []string, invalid func(string) string) error {
	unknown := func(name string) error {
		if invalid != nil {
			if why := invalid(name); why != "" {
				return fmt.Errorf("skill %q is not valid, so it is not enabled: %s (skillet validate shows every problem)", name, why)
			}
		}
		return unknownSkill(name, known, closest)
	}
	var errs []error
	for _, s := range evaluated {
		if !slices.Contains(known, s) {
			errs = append(errs, unknown(s))
		}
	}
	for _, q := range queries {
		switch {
		case q.Skill == "":
			errs = append(errs, fmt.Errorf("%s names no skill: add \"skill\" to the row or name the skill on the command line (skillet eval SKILL --queries FILE)", q.Source))
		case !slices.Contains(known, q.Skill):
			errs = append(errs, fmt.Errorf("%s: %w", q.Source, unknown(q.Skill)))
		case len(evaluated) > 0 && !slices.Contains(evaluated, q.Skill):
			errs = append(errs, fmt.Errorf("%s is about skill %s, which is not among the skills evaluated (%s)", q.Source, q.Skill, strings.Join(evaluated, ", ")))
		}
	}
	return errors.Join(errs...)
}

func unknownSkill(name string, known []string, closest func(string, []string) []string) error {
	msg := fmt.Sprintf("no skill %q is enabled", name)
	if near := closest(name, known); len(near) > 0 {
		msg += "; closest: " + strings.Join(near, ", ")
	} else if len(known) > 0 && len(known) <= 12 {
		msg += "; the skills are " + strings.Join(known, ", ")
	}
	return errors.New(msg)
}

// Skills are the distinct skills the rows are about, in first-seen order.
func Skills(queries []Query) []string {
	var out []string
	for _, q := range queries {
		if q.Skill != "" && !slices.Contains(out, q.Skill) {
			out = append(out, q.Skill)
		}
	}
	return out
}
