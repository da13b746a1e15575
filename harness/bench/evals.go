// Package bench measures whether a skill helps: each eval of a skill's
// evals/evals.json (skill-creator's format) runs repeatedly with the skill
// and against a baseline, every run is graded by model-free checks and a
// grader model, and the pass rates are compared with intervals.
package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// EvalsFile is where a skill keeps its evals, relative to its folder.
const EvalsFile = "evals/evals.json"

// Evals is skill-creator's evals.json.
type Evals struct {
	SkillName string `json:"skill_name"`
	Evals     []Eval `json:"evals"`
	// Path is the file read; Dir the folder the evals' files are relative to.
	Path string `json:"-"`
	Dir  string `json:"-"`
}

// Eval is one task: a prompt, input files, expectations a grader model
// judges, and Skillet's checks that need no model.
type Eval struct {
	ID             int      `json:"id"`
	Name           string   `json:"name,omitempty"`
	Prompt         string   `json:"prompt"`
	ExpectedOutput string   `json:"expected_output,omitempty"`
	Files          []string `json:"files,omitempty"`
	Expectations   []string `json:"expectations,omitempty"`
	Checks         []Check  `json:"checks,omitempty"`
}

// Title is the eval's name for people: its name, else "Eval ID".
func (e Eval) Title() string {
	if e.Name != "" {
		return e.Name
	}
	return fmt.Sprintf("Eval %d", e.ID)
}

// ReadEvals reads an evals file; dir is the folder its files are relative
// to ("" for the skill folder the file sits in, two levels up).
func ReadEvals(path, dir string) (*Evals, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("evals file %s does not exist", path)
		}
		return nil, fmt.Errorf("read evals file: %w", err)
	}
	ev, err := ParseEvals(data, path)
	if err != nil {
		return nil, err
	}
	ev.Path = path
	ev.Dir = dir
	if ev.Dir == "" {
		ev.Dir = filepath.Dir(filepath.Dir(path))
	}
	return ev, ev.checkFiles()
}

// SkillEvals reads a skill folder's evals/evals.json.
func SkillEvals(skillDir, skill string) (*Evals, error) {
	path := filepath.Join(skillDir, filepath.FromSlash(EvalsFile))
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("skill %s has no %s (in %s): write one in skill-creator's format, or give --evals FILE", skill, EvalsFile, skillDir)
	}
	return ReadEvals(path, skillDir)
}

// ParseEvals reads evals.json text; name says where it came from.
func ParseEvals(data []byte, name string) (*Evals, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		hint := ""
		if bytes.Contains(data, []byte(`"should_trigger"`)) {
			hint = " (it looks like trigger queries, the file `skillet eval` reads)"
		}
		return nil, fmt.Errorf("%s: a JSON list%s; want skill-creator's evals.json, an object with skill_name and evals", name, hint)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: not JSON: %v", name, err)
	}
	raw, ok := top["evals"]
	if !ok {
		return nil, fmt.Errorf("%s: no \"evals\" field; want skill-creator's evals.json: {\"skill_name\": ..., \"evals\": [{\"id\", \"prompt\", \"expectations\", ...}]}", name)
	}
	ev := &Evals{}
	if s, ok := top["skill_name"]; ok {
		if err := json.Unmarshal(s, &ev.SkillName); err != nil {
			return nil, fmt.Errorf("%s: skill_name: want a string", name)
		}
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(raw, &rows); err != nil {
		return nil, fmt.Errorf("%s: evals: want a list of evals", name)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: evals: the list is empty", name)
	}
	seen := map[int]bool{}
	for i, r := range rows {
		e, err := parseEval(r)
		if err != nil {
			return nil, fmt.Errorf("%s: evals[%d]%s", name, i, err)
		}
		if seen[e.ID] {
			return nil, fmt.Errorf("%s: evals[%d].id: %d is used twice", name, i, e.ID)
		}
		seen[e.ID] = true
		ev.Evals = append(ev.Evals, e)
	}
	return ev, nil
}

// parseEval reads one eval; its error starts with the field (".prompt: ...").
func parseEval(raw json.RawMessage) (Eval, error) {
	var e Eval
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return e, fmt.Errorf(": want an object")
	}
	id, ok := fields["id"]
	if !ok {
		return e, fmt.Errorf(".id: missing; want a whole number")
	}
	if err := json.Unmarshal(id, &e.ID); err != nil {
		return e, fmt.Errorf(".id: %s is not a whole number", clip(string(id), 30))
	}
	if err := field(fields, "prompt", &e.Prompt); err != nil || strings.TrimSpace(e.Prompt) == "" {
		if err == nil {
			err = errors.New("missing or empty; want the task's text")
		}
		return e, fmt.Errorf(".prompt: %v", err)
	}
	for _, f := range []struct {
		name string
		into any
		want string
	}{
		{"name", &e.Name, "a string"},
		{"eval_name", &e.Name, "a string"},
		{"expected_output", &e.ExpectedOutput, "a string"},
		{"files", &e.Files, "a list of paths"},
		{"expectations", &e.Expectations, "a list of statements (strings)"},
	} {
		if err := field(fields, f.name, f.into); err != nil {
			return e, fmt.Errorf(".%s: want %s", f.name, f.want)
		}
	}
	for i, x := range e.Expectations {
		if strings.TrimSpace(x) == "" {
			return e, fmt.Errorf(".expectations[%d]: empty", i)
		}
	}
	if c, ok := fields["checks"]; ok {
		var rows []json.RawMessage
		if err := json.Unmarshal(c, &rows); err != nil {
			return e, fmt.Errorf(".checks: want a list of objects with a kind")
		}
		for i, r := range rows {
			ch, err := ParseCheck(r)
			if err != nil {
				return e, fmt.Errorf(".checks[%d]: %v", i, err)
			}
			e.Checks = append(e.Checks, ch)
		}
	}
	if len(e.Expectations) == 0 && len(e.Checks) == 0 {
		return e, fmt.Errorf(": no expectations and no checks: nothing to grade")
	}
	return e, nil
}

// field decodes fields[name] into v when present.
func field(fields map[string]json.RawMessage, name string, v any) error {
	raw, ok := fields[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// checkFiles makes sure every eval's files exist under Dir and that no two
// land on the same name in the workspace.
func (ev *Evals) checkFiles() error {
	for i, e := range ev.Evals {
		names := map[string]string{}
		for j, f := range e.Files {
			src, err := ev.FilePath(f)
			if err != nil {
				return fmt.Errorf("%s: evals[%d].files[%d]: %v", ev.Path, i, j, err)
			}
			if _, err := os.Stat(src); err != nil {
				return fmt.Errorf("%s: evals[%d].files[%d]: %s is missing (looked for %s)", ev.Path, i, j, f, src)
			}
			base := filepath.Base(src)
			if prev, ok := names[base]; ok {
				return fmt.Errorf("%s: evals[%d].files: %s and %s would both be %s in the workspace", ev.Path, i, prev, f, base)
			}
			names[base] = f
		}
	}
	return nil
}

// FilePath is where an eval's file is: relative to the skill folder, and
// inside it.
func (ev *Evals) FilePath(f string) (string, error) {
	if strings.TrimSpace(f) == "" {
		return "", errors.New("an empty path")
	}
	if filepath.IsAbs(f) {
		return "", fmt.Errorf("%s is absolute; give it relative to %s", f, ev.Dir)
	}
	p := filepath.Join(ev.Dir, filepath.FromSlash(f))
	rel, err := filepath.Rel(ev.Dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s leaves the skill folder %s", f, ev.Dir)
	}
	return p, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
