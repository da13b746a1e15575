package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Check kinds.
const (
	KindFileExists     = "file_exists"
	KindFileContains   = "file_contains"
	KindFileMatches    = "file_matches"
	KindJSONPath       = "json_path"
	KindAnswerContains = "answer_contains"
	KindAnswerMatches  = "answer_matches"
	KindToolCalled     = "tool_called"
	KindSkillLoaded    = "skill_loaded"
	KindCommand        = "command"
)

// checkFields are each kind's required and optional fields.
var checkFields = map[string]struct{ required, optional []string }{
	KindFileExists:     {[]string{"path"}, nil},
	KindFileContains:   {[]string{"path", "text"}, nil},
	KindFileMatches:    {[]string{"path", "regex"}, nil},
	KindJSONPath:       {[]string{"path", "pointer", "equals"}, nil},
	KindAnswerContains: {[]string{"text"}, nil},
	KindAnswerMatches:  {[]string{"regex"}, nil},
	KindToolCalled:     {[]string{"name"}, []string{"arguments"}},
	KindSkillLoaded:    {[]string{"skill"}, nil},
	KindCommand:        {[]string{"run"}, nil},
}

// Kinds lists the check kinds, sorted.
func Kinds() []string {
	var out []string
	for k := range checkFields {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Check is a grade that needs no model (Skillet's extension of evals.json).
type Check struct {
	Kind      string                     `json:"kind"`
	Path      string                     `json:"path,omitempty"`
	Text      string                     `json:"text,omitempty"`
	Regex     string                     `json:"regex,omitempty"`
	Pointer   *string                    `json:"pointer,omitempty"`
	Equals    json.RawMessage            `json:"equals,omitempty"`
	Name      string                     `json:"name,omitempty"`
	Arguments map[string]json.RawMessage `json:"arguments,omitempty"`
	Skill     string                     `json:"skill,omitempty"`
	Run       string                     `json:"run,omitempty"`

	re *regexp.Regexp
}

// ParseCheck reads one check: a known kind, its fields and no others.
func ParseCheck(raw json.RawMessage) (Check, error) {
	var c Check
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return c, errors.New("want an object with a kind")
	}
	if err := field(fields, "kind", &c.Kind); err != nil || c.Kind == "" {
		return c, fmt.Errorf("kind: missing or not a string; want one of %s", strings.Join(Kinds(), ", "))
	}
	spec, ok := checkFields[c.Kind]
	if !ok {
		return c, fmt.Errorf("kind %q is unknown; want one of %s", c.Kind, strings.Join(Kinds(), ", "))
	}
	for name := range fields {
		if name != "kind" && !slices.Contains(spec.required, name) && !slices.Contains(spec.optional, name) {
			return c, fmt.Errorf("%s: %q is not a field of it; it takes %s", c.Kind, name, strings.Join(append(slices.Clone(spec.required), spec.optional...), ", "))
		}
	}
	for _, name := range spec.required {
		if _, ok := fields[name]; !ok {
			return c, fmt.Errorf("%s: %s is missing", c.Kind, name)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%s: %v", c.Kind, err)
	}
	for _, name := range spec.required {
		empty := false
		switch name {
		case "path":
			empty = strings.TrimSpace(c.Path) == ""
		case "text":
			empty = c.Text == ""
		case "regex":
			empty = c.Regex == ""
		case "name":
			empty = c.Name == ""
		case "skill":
			empty = c.Skill == ""
		case "run":
			empty = strings.TrimSpace(c.Run) == ""
		}
		if empty {
			return c, fmt.Errorf("%s: %s is empty", c.Kind, name)
		}
	}
	if c.Regex != "" {
		re, err := regexp.Compile(c.Regex)
		if err != nil {
			return c, fmt.Errorf("%s: regex %q: %v", c.Kind, c.Regex, err)
		}
		c.re = re
	}
	if c.Kind == KindJSONPath && c.Pointer == nil {
		return c, fmt.Errorf("%s: pointer is null; want an RFC 6901 pointer such as \"/items/0/name\" (\"\" for the whole document)", c.Kind)
	}
	if c.Pointer != nil {
		if _, err := parsePointer(*c.Pointer); err != nil {
			return c, fmt.Errorf("%s: pointer %q: %v", c.Kind, *c.Pointer, err)
		}
	}
	if c.Path != "" {
		if _, err := workspacePath("/w", c.Path); err != nil {
			return c, fmt.Errorf("%s: path: %v", c.Kind, err)
		}
	}
	return c, nil
}

// Label names the check as grading.json's expectation text: its kind and
// what it looks at.
func (c Check) Label() string {
	switch c.Kind {
	case KindFileExists:
		return fmt.Sprintf("file_exists %s", c.Path)
	case KindFileContains:
		return fmt.Sprintf("file_contains %s %q", c.Path, c.Text)
	case KindFileMatches:
		return fmt.Sprintf("file_matches %s /%s/", c.Path, c.Regex)
	case KindJSONPath:
		return fmt.Sprintf("json_path %s %s equals %s", c.Path, *c.Pointer, compactJSON(c.Equals))
	case KindAnswerContains:
		return fmt.Sprintf("answer_contains %q", c.Text)
	case KindAnswerMatches:
		return fmt.Sprintf("answer_matches /%s/", c.Regex)
	case KindToolCalled:
		if len(c.Arguments) > 0 {
			b, _ := json.Marshal(c.Arguments)
			return fmt.Sprintf("tool_called %s %s", c.Name, b)
		}
		return "tool_called " + c.Name
	case KindSkillLoaded:
		return "skill_loaded " + c.Skill
	case KindCommand:
		return "command " + c.Run
	}
	return c.Kind
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
