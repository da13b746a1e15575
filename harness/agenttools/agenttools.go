// Package agenttools reproduces the shell and file tools each coding agent
// gives its model: the names, parameters and defaults the model sees, and
// the way each agent frames what comes back (line numbering, truncation
// notes, error wording). Every rule names its source beside it: the agents'
// public code (openai/codex, charmbracelet/crush, sst/opencode,
// google-gemini/gemini-cli) or, for Claude Code, the bundled CLI of the npm
// package @anthropic-ai/claude-code. The descriptions are Skillet's own.
//
// The package touches the machine only through two small interfaces: a
// Resolver that confines every path, and a Shell that runs a command
// confined. File tools are plain Go: paths go through the Resolver, reads
// stream, searches are capped.
package agenttools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Kind is what a tool does, whatever the agent calls it.
type Kind string

// The kinds of tool an agent offers.
const (
	KindShell Kind = "shell"
	KindRead  Kind = "read"
	KindWrite Kind = "write"
	KindEdit  Kind = "edit"
	KindPatch Kind = "patch"
	KindGlob  Kind = "glob"
	KindGrep  Kind = "grep"
	KindList  Kind = "list"
)

// Def is one tool as a profile declares it to the model.
type Def struct {
	// Name is the tool's name as the agent gives it.
	Name string `json:"name"`
	// Description is Skillet's own wording: what the tool does and the
	// limits that apply.
	Description string `json:"description"`
	// Parameters is the JSON Schema of the arguments, with the agent's
	// property names, types, required list and defaults.
	Parameters json.RawMessage `json:"parameters"`
	Kind       Kind            `json:"kind"`
	// ReadOnly tools never ask for approval.
	ReadOnly bool `json:"read_only"`
	// Source is where the definition comes from (repository and file, or
	// npm package and version).
	Source string `json:"source"`

	// profile selects the argument reading and result framing in Run.
	profile string
}

// Profile is the profile the definition belongs to.
func (d Def) Profile() string { return withProfile(d).profile }

// Resolver confines paths: it returns the absolute, symlink-resolved path
// a tool may use, or an error saying why not.
type Resolver interface {
	Resolve(path string, write bool) (string, error)
	Root() string
}

// ShellRequest is one command to run.
type ShellRequest struct {
	Command string
	Dir     string
	// Timeout is the agent's time limit for the command; 0 leaves the
	// shell's own limit.
	Timeout time.Duration
	Stdin   string
}

// ShellResult is what a command did.
type ShellResult struct {
	Stdout, Stderr string
	// Output is stdout and stderr interleaved as they were written.
	Output   string
	ExitCode int
	Signal   string
	Duration time.Duration
	// Truncated reports that the shell kept only part of the output;
	// OutputBytes is how much there was in all.
	Truncated   bool
	OutputBytes int64
	// Limit names the limit that stopped the command ("wall time",
	// "memory", …), empty when it ended by itself.
	Limit string
}

// Shell runs a command confined.
type Shell interface {
	Run(ctx context.Context, req ShellRequest) (ShellResult, error)
}

// Env is what tools work with.
type Env struct {
	Files Resolver
	// Shell nil: shell tools are refused with ShellUnavailable as the
	// message.
	Shell            Shell
	ShellUnavailable string
	// SkillDirs are the folders of the enabled skills; they are
	// read-only to tools.
	SkillDirs []string
}

// ShellRun records a shell call for display and journaling.
type ShellRun struct {
	Command  string        `json:"command"`
	Dir      string        `json:"dir"`
	ExitCode int           `json:"exit_code"`
	Signal   string        `json:"signal,omitempty"`
	Duration time.Duration `json:"duration"`
	// Output is the whole output, up to the shell's own cap.
	Output string `json:"output"`
	Limit  string `json:"limit,omitempty"`
}

// Result is what a tool call returns.
type Result struct {
	// Content is what the model gets, framed as the agent frames it.
	Content string
	IsError bool
	// Shell is set for shell calls.
	Shell *ShellRun
	// Wrote lists the absolute paths a write, edit or patch changed
	// (created, modified or deleted).
	Wrote []string
}

// Profiles are the profile names For knows, in a fixed order.
var Profiles = []string{"skillet", "claude-code", "codex", "crush", "opencode", "gemini-cli"}

// For returns the tools of a profile.
func For(profile string) ([]Def, error) {
	defsOnce.Do(func() {
		defsBy = map[string][]Def{"skillet": skilletDefs(), "claude-code": claudeDefs(), "codex": codexDefs(),
			"crush": crushDefs(), "opencode": opencodeDefs(), "gemini-cli": geminiDefs()}
		for p, defs := range defsBy {
			for i := range defs {
				defs[i].profile = p
			}
		}
	})
	defs, ok := defsBy[profile]
	if !ok {
		return nil, fmt.Errorf("agent tools: unknown profile %q (known: %s)", profile, strings.Join(Profiles, ", "))
	}
	// a copy of the list: callers may reorder it; the definitions' schemas
	// are shared and never written
	return append([]Def(nil), defs...), nil
}

// defsBy are the definitions per profile, made once: the engine asks for
// them at every request and snapshot.
var (
	defsOnce sync.Once
	defsBy   map[string][]Def
)

// aliases are names an agent still accepts for one of its tools.
var aliases = map[string]map[string]string{
	// Gemini CLI renamed search_file_content to grep_search and keeps the
	// old name as an alias (packages/core/src/tools/tool-names.ts).
	"gemini-cli": {"search_file_content": "grep_search"},
}

// Find returns the tool a model's call names among a profile's
// definitions, accepting the names the agent keeps as aliases.
func Find(defs []Def, name string) (Def, bool) {
	for _, d := range defs {
		if d.Name == name {
			return d, true
		}
	}
	for _, d := range defs {
		if alias, ok := aliases[d.profile][name]; ok && alias == d.Name {
			return d, true
		}
	}
	return Def{}, false
}

// Run executes one call. Bad arguments, refused paths and failed commands
// come back as a Result the model can read, never as a panic.
func Run(ctx context.Context, env Env, def Def, args json.RawMessage) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = Result{Content: fmt.Sprintf("internal error in %s: %v", def.Name, r), IsError: true}
		}
	}()
	def = withProfile(def)
	p, ok := profiles[def.profile]
	if !ok {
		return Result{Content: fmt.Sprintf("tool %q has no profile; take definitions from agenttools.For", def.Name), IsError: true}
	}
	if env.Files == nil && def.Kind != KindShell {
		return p.fail(def, "no workspace is set up for file tools")
	}
	a, err := decodeArgs(args)
	if err != nil {
		return p.fail(def, err.Error())
	}
	return p.run(ctx, env, def, a)
}

// withProfile restores the profile of a definition that lost it (one
// decoded from JSON): Source names the profile's sources.
func withProfile(def Def) Def {
	if def.profile != "" {
		return def
	}
	sources := map[string]string{skilletSrc: "skillet", claudeSrc: "claude-code", codexSrc: "codex",
		crushSrc: "crush", opencodeSrc: "opencode", geminiSrc: "gemini-cli"}
	def.profile = sources[def.Source]
	return def
}

// Target is what a call would run or touch.
type Target struct {
	Command string
	Path    string
}

// TargetOf reads a call's command or path from its arguments, as written
// by the model (relative paths stay relative). Unreadable arguments give
// an empty Target.
func TargetOf(def Def, args json.RawMessage) Target {
	a, err := decodeArgs(args)
	if err != nil {
		return Target{}
	}
	def = withProfile(def)
	p, ok := profiles[def.profile]
	if !ok {
		return Target{}
	}
	switch def.Kind {
	case KindShell:
		return Target{Command: a.str(p.names(def).command)}
	case KindPatch:
		paths := patchPaths(a.str("input"))
		if len(paths) > 0 {
			return Target{Path: paths[0]}
		}
		return Target{}
	default:
		return Target{Path: a.str(p.names(def).path)}
	}
}

// argNames are the argument names a profile's tool uses for its command
// and its path.
type argNames struct{ command, path string }

// profileImpl is one agent's argument reading and result framing.
type profileImpl interface {
	run(ctx context.Context, env Env, def Def, a args) Result
	names(def Def) argNames
	fail(def Def, msg string) Result
}

var profiles = map[string]profileImpl{
	"skillet":     skilletImpl{},
	"claude-code": claudeImpl{},
	"codex":       codexImpl{},
	"crush":       crushImpl{},
	"opencode":    opencodeImpl{},
	"gemini-cli":  geminiImpl{},
}

// args are decoded call arguments.
type args map[string]json.RawMessage

func decodeArgs(raw json.RawMessage) (args, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return args{}, nil
	}
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("arguments are not a JSON object: %v", err)
	}
	if a == nil {
		a = args{}
	}
	return a, nil
}

func (a args) has(name string) bool {
	v, ok := a[name]
	return ok && string(v) != "null"
}

// str reads a string argument; a missing or non-string one is "".
func (a args) str(name string) string {
	var s string
	if v, ok := a[name]; ok {
		_ = json.Unmarshal(v, &s)
	}
	return s
}

// num reads a number argument (models sometimes send numbers as strings).
func (a args) num(name string) (float64, bool) {
	v, ok := a[name]
	if !ok || string(v) == "null" {
		return 0, false
	}
	var f float64
	if json.Unmarshal(v, &f) == nil {
		return f, true
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if _, err := fmt.Sscan(s, &f); err == nil {
			return f, true
		}
	}
	return 0, false
}

func (a args) integer(name string, def int) int {
	if f, ok := a.num(name); ok {
		return int(f)
	}
	return def
}

func (a args) boolean(name string) bool {
	var b bool
	if v, ok := a[name]; ok {
		if json.Unmarshal(v, &b) != nil {
			var s string
			_ = json.Unmarshal(v, &s)
			b = s == "true"
		}
	}
	return b
}

func (a args) strings(name string) []string {
	var out []string
	if v, ok := a[name]; ok {
		_ = json.Unmarshal(v, &out)
	}
	return out
}

// required reports the first of names the call lacks.
func (a args) required(names ...string) (string, bool) {
	for _, n := range names {
		if !a.has(n) {
			return n, false
		}
	}
	return "", true
}

// schema builds a JSON Schema object from properties and a required list.
func schema(required []string, props map[string]any) json.RawMessage {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	s["additionalProperties"] = false
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // literal schemas always marshal
	}
	return b
}

func prop(typ, desc string, extra ...any) map[string]any {
	m := map[string]any{"type": typ, "description": desc}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return m
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
