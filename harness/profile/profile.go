// Package profile reproduces how coding agents present skills to a model:
// where the catalogue goes and what it says, what each agent's listing
// budget leaves of every skill, the tool a model activates a skill with,
// and what comes back when it does. Everything here is pure and
// deterministic: no files are read and no model is called, so the engine
// can compose requests from a profile and `skillet offered` can show the
// same result without a model.
//
// Each rule names its source beside it: the agents' public code and
// documentation, and what the agents sent when run against a loopback
// endpoint (the conformance tests of package main keep them true). Each
// profile names the agent version it reproduces (Profile.Agent). Long
// fixed instruction paragraphs that do not depend on the skills are not
// reproduced; the text carries a marker naming them and their length
// instead (see Fixed), and the agents' bundled skills are listed by name
// and size with placeholder text (see placeholder).
//
// An engine plugs a profile in at three points: before a model call it
// places the Catalogue's blocks (system prompt, developer message,
// reminder message or tool description) and declares Tool; when the model
// calls that tool (or the user names a skill) it sends what Activate
// renders; Persistence says whether the text then stays in the history and
// whether Skillet's own lifecycle rules apply. The skillet profile is the
// exception: the engine composes its list itself and passes it in
// (Input.Engine).
package profile

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Skill is one enabled skill as a profile sees it.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// WhenToUse is Claude Code's `when_to_use` frontmatter key, listed after
	// the description.
	WhenToUse string `json:"when_to_use,omitempty"`
	// DisableModelInvocation is the `disable-model-invocation` key Claude
	// Code and Crush read: such a skill is left out of the catalogue.
	DisableModelInvocation bool `json:"disable_model_invocation,omitempty"`
	// Dir is the skill's folder and Path its SKILL.md, both absolute.
	Dir  string `json:"dir"`
	Path string `json:"path"`
	// Root is the skills folder the skill was found in (Codex shortens
	// paths with one alias per root).
	Root string `json:"root,omitempty"`
	// Scope is Codex's skill scope: "system", "admin", "repo" (default) or
	// "user"; it orders Codex's listing.
	Scope string `json:"scope,omitempty"`
	// Body is the instructions without frontmatter; Source the whole
	// SKILL.md file, as a file-read tool would return it.
	Body   string `json:"-"`
	Source string `json:"-"`
	// Files are the paths of the files in the skill's folder, relative to
	// it, with forward slashes (SKILL.md included).
	Files []string `json:"-"`
	// Usage feeds Claude Code's least-used-first rule.
	Usage Usage `json:"usage"`
	// Folder is the name of the skill's folder, which Claude Code knows a
	// skill by; "" means the last element of Dir.
	Folder string `json:"folder,omitempty"`
	// DescriptionAtEnd: the description is a block scalar that ends the
	// frontmatter (skills.Skill.DescriptionAtEnd).
	DescriptionAtEnd bool `json:"-"`
	// Breaches are the rules of the Agent Skills spec the skill breaks
	// that some agents read past (skills.LaxRule); each profile says
	// whether its agent lists the skill anyway.
	Breaches []Breach `json:"breaches,omitempty"`
}

// Breach is one rule of the spec a skill breaks.
type Breach struct {
	// Rule is a skills.LaxRule: name-folder, name-missing, name-format,
	// description-length, body-length or metadata-value.
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// The rules of Breach.Rule, as package skills names them.
const (
	BreachNameFolder        = "name-folder"
	BreachNameMissing       = "name-missing"
	BreachNameFormat        = "name-format"
	BreachDescriptionLength = "description-length"
	BreachBodyLength        = "body-length"
	BreachMetadataValue     = "metadata-value"
)

// folder is the skill's folder name.
func (s Skill) folder() string {
	if s.Folder != "" {
		return s.Folder
	}
	d := strings.TrimRight(s.Dir, "/")
	if i := strings.LastIndex(d, "/"); i >= 0 {
		return d[i+1:]
	}
	if d == "" {
		return s.Name
	}
	return d
}

// breaks reports whether the skill breaks that rule of the spec.
func (s Skill) breaks(rule string) (Breach, bool) {
	for _, b := range s.Breaches {
		if b.Rule == rule {
			return b, true
		}
	}
	return Breach{}, false
}

// specWarning is the warning an entry carries when the spec would not
// accept the skill: `skillet validate` is the spec's judge, the profile
// only says what its agent does with the skill.
func specWarning(s Skill) string {
	if len(s.Breaches) == 0 {
		return ""
	}
	msgs := make([]string, len(s.Breaches))
	for i, b := range s.Breaches {
		msgs[i] = b.Message
	}
	return "the Agent Skills spec does not accept this skill (see skillet validate): " + strings.Join(msgs, "; ")
}

// needsName is the entry of a skill without a name under an agent that
// requires one; ok is false when the skill has a name.
func needsName(s Skill, agent string) (Entry, bool) {
	if _, missing := s.breaks(BreachNameMissing); !missing {
		return Entry{}, false
	}
	return omitted(s.Name, s.Description, agent+" requires a name in the frontmatter; Claude Code and Codex name such a skill after its folder"), true
}

// requireNames composes a catalogue with compose over the skills that
// have a name; the others are omitted, saying why, in their place.
func requireNames(in Input, agent string, compose func(Input) Catalogue) Catalogue {
	var keep []Skill
	var idx []int
	skipped := map[int]Entry{}
	for i, s := range in.Skills {
		if e, ok := needsName(s, agent); ok {
			e.Warning = specWarning(s)
			skipped[i] = e
			continue
		}
		keep, idx = append(keep, s), append(idx, i)
	}
	if len(skipped) == 0 {
		return compose(in)
	}
	sub := in
	sub.Skills = keep
	cat := compose(sub)
	entries := make([]Entry, len(in.Skills))
	for j, i := range idx {
		entries[i] = cat.Entries[j]
	}
	for i, e := range skipped {
		entries[i] = e
	}
	cat.Entries = entries
	return cat
}

// warnEntries puts the spec's warning on every entry of a skill that
// breaks a rule.
func warnEntries(cat *Catalogue, in Input) {
	for i, s := range in.Skills {
		if i < len(cat.Entries) {
			cat.Entries[i].Warning = specWarning(s)
		}
	}
}

// Usage is how often, and when last, a skill was invoked.
type Usage struct {
	Count    int       `json:"count"`
	LastUsed time.Time `json:"last_used,omitzero"`
}

// Input is what a profile composes a catalogue from.
type Input struct {
	// Skills are the enabled skills in the engine's order.
	Skills []Skill
	// ContextWindow is the model's context window in tokens; 0 means the
	// profile's default (DefaultWindow).
	ContextWindow int
	// Roots are the skills folders in search order (Codex numbers its path
	// aliases in this order); empty means the order skills name them in.
	Roots []string
	// Now is the time usage decays to; zero means time.Now().
	Now time.Time
	// Engine is the list the engine composed (R10); only the skillet
	// profile reads it, because Skillet's ranking lives in the engine.
	Engine *EngineList
	// Model is the model's name; Claude Code's budget depends on it.
	Model string
	// NoBundled leaves out the skills the agent ships with (the
	// bundled_skills setting); by default they are listed and share the
	// budget, as the agent does.
	NoBundled bool
	// Listed are the skills earlier listings of the conversation named;
	// an agent that lists each skill once (Claude Code) lists only the
	// others. Empty: the first listing.
	Listed Listed
}

// EngineList is Skillet's own list as the engine composed it (R10).
type EngineList struct {
	// Text is the list block of the system prompt.
	Text string
	// Offered names the listed skills in list order; LeftOff the enabled
	// skills the list left out, in rank order; Preloaded the skills
	// delivered whole instead (R16).
	Offered   []string
	LeftOff   []string
	Preloaded []string
	ListSize  int
	// Tool is the load_skill tool as the engine declares it.
	Tool *Tool
}

// Placement says where a catalogue block reaches the model.
type Placement string

// Placements of catalogue blocks.
const (
	// SystemPrompt is a section of the system prompt.
	SystemPrompt Placement = "system-prompt"
	// DeveloperMessage is a developer-role message among the instructions
	// (Codex's contextual instructions).
	DeveloperMessage Placement = "developer-message"
	// ReminderMessage is a user-role message the harness adds, wrapped in
	// <system-reminder> (Claude Code).
	ReminderMessage Placement = "reminder-message"
	// ToolDescription is the description of the activation tool.
	ToolDescription Placement = "tool-description"
)

// Block is one piece of the catalogue and where it goes.
type Block struct {
	Placement Placement `json:"placement"`
	Text      string    `json:"text"`
}

// State is what the catalogue keeps of one skill.
type State string

// Catalogue states.
const (
	Full      State = "full"
	Truncated State = "truncated"
	NameOnly  State = "name-only"
	Omitted   State = "omitted"
)

// Entry is one skill's fate in a catalogue, and why.
type Entry struct {
	Name  string `json:"name"`
	State State  `json:"state"`
	// Kept is how many characters of the description the catalogue shows,
	// of Length.
	Kept   int `json:"kept"`
	Length int `json:"length"`
	// Rank is the skill's place in the order the profile spends its budget
	// in (1 is first); 0 when the profile has no such order.
	Rank   int    `json:"rank,omitempty"`
	Reason string `json:"reason"`
	// Warning says the spec would not accept the skill, although this
	// agent lists it (or why the agent, too, refuses it).
	Warning string `json:"warning,omitempty"`
	// Bundled marks a skill the agent ships with.
	Bundled bool `json:"bundled,omitempty"`
}

// Budget is a listing budget and how much of it the catalogue used.
type Budget struct {
	// Window is the context window, in tokens, the budget derives from;
	// 0 when the window is unknown.
	Window int `json:"window_tokens"`
	// Unit is "characters" or "tokens".
	Unit  string `json:"unit"`
	Limit int    `json:"limit"`
	Used  int    `json:"used"`
	// Rule says how Limit was computed.
	Rule string `json:"rule"`
}

// Catalogue is what a profile shows the model of the enabled skills.
type Catalogue struct {
	Profile string  `json:"profile"`
	Blocks  []Block `json:"blocks"`
	// Entries follow the input order of the skills.
	Entries []Entry `json:"entries"`
	// Bundled are the entries of the skills the agent ships with, in the
	// order it lists them; empty with Input.NoBundled.
	Bundled []Entry `json:"bundled,omitempty"`
	// Agent is the agent version the profile reproduces.
	Agent string `json:"agent,omitempty"`
	// Budget is nil for profiles without one.
	Budget   *Budget  `json:"budget,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Listed names what the listing shows, for Input.Listed of the next
	// one (Claude Code); nil for the other profiles.
	Listed Listed `json:"-"`
}

// Text is the whole catalogue text, blocks in order, each headed by its
// placement when there is more than one.
func (c Catalogue) Text() string {
	if len(c.Blocks) == 1 {
		return c.Blocks[0].Text
	}
	var b strings.Builder
	for i, bl := range c.Blocks {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[%s]\n%s\n", bl.Placement, bl.Text)
	}
	return b.String()
}

// Tool is a function tool as the model sees it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one activation: how the skill was asked for.
type Request struct {
	// Args are the arguments of Claude Code's Skill tool.
	Args string
	// Repeat says the same skill was already invoked in this conversation.
	Repeat bool
	// Mention is the user naming the skill ($name in Codex, a user command
	// in Crush) rather than the model activating it.
	Mention bool
}

// Message is a message a harness adds to the conversation.
type Message struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// Activation is what comes back when a skill is activated.
type Activation struct {
	// ToolResult is the result of the activation tool call, "" when the
	// skill did not come through a tool.
	ToolResult string `json:"tool_result,omitempty"`
	// Messages are added after the tool result (or instead of it).
	Messages []Message `json:"messages,omitempty"`
	// Note says what is approximated or left to the engine.
	Note string `json:"note,omitempty"`
}

// Persistence says what happens to an activated skill afterwards.
type Persistence struct {
	// BodyStays: the activated text stays in the conversation history.
	BodyStays bool `json:"body_stays"`
	// CarriedAcrossTurns: the agent tells the model to keep applying the
	// skill in later turns.
	CarriedAcrossTurns bool `json:"carried_across_turns"`
	// RepeatNote says what a repeated activation adds.
	RepeatNote string `json:"repeat_note"`
	// Lifecycle: Skillet's own rules (LRU eviction, per-turn load limits,
	// the transcript window) are on by default.
	Lifecycle bool   `json:"lifecycle"`
	Note      string `json:"note,omitempty"`
}

// Profile is one agent's way of presenting skills.
type Profile interface {
	// Name is the profile's name, as --profile takes it.
	Name() string
	// Agent is the agent version the profile reproduces, "" for skillet.
	Agent() string
	// DefaultWindow is the context window, in tokens, assumed when none is
	// given; 0 when the profile's catalogue does not depend on it.
	DefaultWindow() int
	// Catalogue composes the catalogue of the input's skills.
	Catalogue(in Input) Catalogue
	// Tool is the activation tool the model is given, nil for none.
	Tool(in Input) *Tool
	// Activate renders what the model gets when a skill is activated.
	Activate(s Skill, r Request) Activation
	// Persistence says what happens to an activated skill afterwards.
	Persistence() Persistence
}

var registry = []Profile{skillet{}, claudeCode{}, codex{}, crush{}, opencode{}, geminiCLI{}}

// Names lists the known profiles, the default one first.
func Names() []string {
	out := make([]string, len(registry))
	for i, p := range registry {
		out[i] = p.Name()
	}
	return out
}

// All returns every profile, the default one first.
func All() []Profile { return append([]Profile(nil), registry...) }

// Get returns the named profile, or an error listing the known ones. A
// name may carry the agent version it means, NAME@VERSION (such as
// claude-code@2.1.332): a version the profile does not reproduce is an
// error naming the one it does, since each profile reproduces one.
func Get(spec string) (Profile, error) {
	name, version, versioned := strings.Cut(spec, "@")
	for _, p := range registry {
		if p.Name() != name {
			continue
		}
		if !versioned {
			return p, nil
		}
		switch v := Version(p); {
		case v == "":
			return nil, fmt.Errorf("profile %s reproduces no other agent, so it takes no version (%q)", name, version)
		case version != v:
			return nil, fmt.Errorf("unknown %s version %q: the %s profile reproduces %s only (known versions: %s)", agentName(p), version, name, p.Agent(), v)
		}
		return p, nil
	}
	return nil, fmt.Errorf("unknown profile %q: known profiles are %s", name, strings.Join(Names(), ", "))
}

// Version is the version of the agent a profile reproduces, the last word
// of Agent ("2.1.332", Crush's commit "37f36e93"); "" for skillet.
func Version(p Profile) string { return VersionOf(p.Agent()) }

// VersionOf is the version in an agent's name and version, such as
// "2.1.332" of "Claude Code 2.1.332" (a journal's profile_agent).
func VersionOf(agent string) string { return agent[strings.LastIndex(agent, " ")+1:] }

// agentName is the agent a profile reproduces, without its version.
func agentName(p Profile) string {
	a := p.Agent()
	if i := strings.LastIndex(a, " "); i >= 0 {
		return a[:i]
	}
	return a
}

// Notices say what the agent a profile reproduces would make of a model
// and a context window (0: none given) that it takes with an assumption
// of its own or not at all: a model Claude Code does not know (it assumes
// a 200,000-token window, as its own notice says), a window that a known
// Claude model's own replaces, a window given to a profile whose listing
// has no budget. None of them stops anything; they say what the listing
// then rests on.
func Notices(p Profile, model string, window int) []string {
	var out []string
	switch {
	case p.Name() == "claude-code" && model != "" && !ClaudeKnows(model):
		if window > 0 {
			out = append(out, fmt.Sprintf("%s does not know the model %q; its listing budget here rests on the %d-token window given and %d bytes a token", claudeAgent, model, window, ClaudeBytesPerToken(model)))
		} else {
			out = append(out, fmt.Sprintf("%s does not know the model %q: like the agent, the profile assumes a window of %d tokens and counts %d bytes a token (give --context-window for the model's own window)", claudeAgent, model, claudeWindow, ClaudeBytesPerToken(model)))
		}
	case p.Name() == "claude-code" && window > 0 && window != ClaudeWindow(model) && model != "":
		out = append(out, fmt.Sprintf("%s gives %s a window of %d tokens; the %d given is what it uses only with CLAUDE_CODE_MAX_CONTEXT_TOKENS and DISABLE_COMPACT set", claudeAgent, model, ClaudeWindow(model), window))
	case p.DefaultWindow() == 0 && window > 0 && Version(p) != "":
		out = append(out, fmt.Sprintf("%s lists every skill whatever the window: the context window of %d tokens changes nothing in the %s profile", p.Agent(), window, p.Name()))
	}
	return out
}

// window is the context window a profile works with.
func window(p Profile, in Input) int {
	if in.ContextWindow > 0 {
		return in.ContextWindow
	}
	return p.DefaultWindow()
}

// Fixed stands for a fixed instruction paragraph of an agent that does not
// depend on the skills: its name and length, not its wording, so that the
// catalogue's length stays right while third-party prose is not copied.
func Fixed(what string, chars int) string {
	if chars <= 0 {
		return "[fixed text: " + what + "]"
	}
	return fmt.Sprintf("[fixed text: %s, %d characters]", what, chars)
}

// runes counts characters.
func runes(s string) int { return utf8.RuneCountInString(s) }

// cutRunes keeps the first n characters of s.
func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// jsonSchema encodes a tool's parameter schema.
func jsonSchema(v any) json.RawMessage {
	b, _ := json.Marshal(v) // maps of strings and slices: nothing to fail on
	return b
}

// omitted is the entry of a skill a profile leaves out before any budget
// applies.
func omitted(name, desc, reason string) Entry {
	return Entry{Name: name, State: Omitted, Length: runes(desc), Reason: reason}
}

// sortedFiles returns the files, sorted, without the ones drop names.
func sortedFiles(files []string, drop func(string) bool) []string {
	out := make([]string, 0, len(files))
	for _, f := range files {
		if !drop(f) {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// joinPath joins a folder and a slash-separated relative path.
func joinPath(dir, rel string) string {
	return strings.TrimRight(dir, "/") + "/" + rel
}

// plural writes n and a noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
