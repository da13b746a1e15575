package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"skillet/harness/sandbox"
)

// Grade is one expectation or check of one run, graded.
type Grade struct {
	Text     string `json:"text"`
	Passed   bool   `json:"passed"`
	Evidence string `json:"evidence"`
	// By is "check" or "grader"; Error says why no grade could be given
	// (the grader answered nonsense or timed out): neither pass nor fail.
	By    string `json:"by"`
	Error string `json:"error,omitempty"`
}

// commandWall bounds a command check.
const commandWall = 60 * time.Second

// evidenceMax is how much of a file or output a check quotes.
const evidenceMax = 300

// CheckRunner grades checks; Sandbox runs command checks (nil refuses them).
type CheckRunner struct {
	Sandbox *sandbox.Sandbox
	// Network lets command checks reach the network.
	Network bool
}

// Grade grades one check against a run's outcome and final workspace.
func (r *CheckRunner) Grade(ctx context.Context, c Check, o Outcome) Grade {
	g := Grade{Text: c.Label(), By: "check"}
	pass := func(ok bool, format string, args ...any) Grade {
		g.Passed, g.Evidence = ok, fmt.Sprintf(format, args...)
		return g
	}
	file := func() ([]byte, string, bool) {
		if o.Workspace == "" {
			g.Evidence = "the run had no workspace"
			return nil, "", false
		}
		p, err := workspacePath(o.Workspace, c.Path)
		if err != nil {
			g.Evidence = err.Error()
			return nil, "", false
		}
		data, err := os.ReadFile(p)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				g.Evidence = c.Path + " does not exist in the workspace"
			} else {
				g.Evidence = fmt.Sprintf("read %s: %v", c.Path, err)
			}
			return nil, "", false
		}
		return data, p, true
	}
	switch c.Kind {
	case KindFileExists:
		p, err := workspacePath(o.Workspace, c.Path)
		if err != nil || o.Workspace == "" {
			return pass(false, "the run had no workspace to look in")
		}
		fi, err := os.Stat(p)
		if err != nil {
			return pass(false, "%s does not exist in the workspace", c.Path)
		}
		return pass(true, "%s exists (%d bytes)", c.Path, fi.Size())
	case KindFileContains:
		data, _, ok := file()
		if !ok {
			return g
		}
		if i := bytes.Index(data, []byte(c.Text)); i >= 0 {
			return pass(true, "%s holds %q", c.Path, c.Text)
		}
		return pass(false, "%s (%d bytes) does not hold %q; it starts %q", c.Path, len(data), c.Text, clip(string(data), evidenceMax))
	case KindFileMatches:
		data, _, ok := file()
		if !ok {
			return g
		}
		if m := c.re.Find(data); m != nil {
			return pass(true, "%s matches: %q", c.Path, clip(string(m), evidenceMax))
		}
		return pass(false, "%s (%d bytes) has no match for /%s/; it starts %q", c.Path, len(data), c.Regex, clip(string(data), evidenceMax))
	case KindJSONPath:
		data, _, ok := file()
		if !ok {
			return g
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			return pass(false, "%s is not JSON: %v", c.Path, err)
		}
		v, err := lookup(doc, *c.Pointer)
		if err != nil {
			return pass(false, "%s: %v", c.Path, err)
		}
		got, _ := json.Marshal(v)
		if jsonEqual(v, c.Equals) {
			return pass(true, "%s %s is %s", c.Path, *c.Pointer, got)
		}
		return pass(false, "%s %s is %s, not %s", c.Path, *c.Pointer, clip(string(got), evidenceMax), compactJSON(c.Equals))
	case KindAnswerContains:
		if strings.Contains(o.Answer, c.Text) {
			return pass(true, "the answer holds %q", c.Text)
		}
		return pass(false, "the answer does not hold %q; it starts %q", c.Text, clip(o.Answer, evidenceMax))
	case KindAnswerMatches:
		if m := c.re.FindString(o.Answer); c.re.MatchString(o.Answer) {
			return pass(true, "the answer matches: %q", clip(m, evidenceMax))
		}
		return pass(false, "the answer has no match for /%s/; it starts %q", c.Regex, clip(o.Answer, evidenceMax))
	case KindToolCalled:
		n := 0
		for _, t := range o.Tools {
			if t.Name != c.Name {
				continue
			}
			n++
			if argsMatch(t.Arguments, c.Arguments) {
				return pass(true, "called %s with %s", t.Name, clip(t.Arguments, evidenceMax))
			}
		}
		if n > 0 {
			return pass(false, "%s was called %d times, never with those arguments", c.Name, n)
		}
		return pass(false, "%s was never called (%d tool calls in all)", c.Name, len(o.Tools))
	case KindSkillLoaded:
		for _, s := range o.Loaded {
			if s == c.Skill {
				return pass(true, "%s was loaded", c.Skill)
			}
		}
		if len(o.Loaded) == 0 {
			return pass(false, "%s was not loaded: no skill was", c.Skill)
		}
		return pass(false, "%s was not loaded (loaded: %s)", c.Skill, strings.Join(o.Loaded, ", "))
	case KindCommand:
		return r.command(ctx, c, o, g)
	}
	g.Error = "unknown check kind " + c.Kind
	return g
}

// command runs a command check in the sandbox, in the final workspace.
func (r *CheckRunner) command(ctx context.Context, c Check, o Outcome, g Grade) Grade {
	if r.Sandbox == nil {
		g.Error = "command checks need the sandbox, which could not start"
		return g
	}
	if o.Workspace == "" {
		g.Evidence = "the run had no workspace"
		return g
	}
	res, err := r.Sandbox.Run(ctx, sandbox.Spec{Command: c.Run, Workspace: o.Workspace, Network: r.Network,
		Env: []string{"PATH=" + sandbox.DefaultPath, "LANG=C.UTF-8"}, Limits: sandbox.Limits{Wall: commandWall}})
	if err != nil {
		g.Error = fmt.Sprintf("run %q: %v", c.Run, err)
		return g
	}
	out := strings.TrimSpace(string(res.Output))
	if len(out) > evidenceMax {
		out = "…" + out[len(out)-evidenceMax:]
	}
	g.Passed = res.ExitCode == 0
	g.Evidence = fmt.Sprintf("exit code %d", res.ExitCode)
	if res.Limit != "" {
		g.Evidence += " (stopped at its " + res.Limit + ")"
	}
	if out != "" {
		g.Evidence += ": " + out
	}
	return g
}

// argsMatch says whether a call's JSON arguments hold every wanted one.
func argsMatch(args string, want map[string]json.RawMessage) bool {
	if len(want) == 0 {
		return true
	}
	var got map[string]any
	if json.Unmarshal([]byte(args), &got) != nil {
		return false
	}
	for k, w := range want {
		v, ok := got[k]
		if !ok || !jsonEqual(v, w) {
			return false
		}
	}
	return true
}
