// Package uitest provides a scripted engine for testing the terminal
// interface without a model: it keeps a snapshot and a transcript, emits
// the events a real session would, and runs turns from a script.
package uitest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"skillet/harness"
)

// TurnFunc plays one turn: it records entries and emits events through e.
type TurnFunc func(ctx context.Context, e *Engine, text string) (*harness.TurnEnd, error)

// Skill is a skill the engine knows.
type Skill struct {
	Name, Description, Version, Body string
	Tools                            []harness.ToolInfo
	Preload                          bool
	Problems                         []string
	Shadowed                         bool
}

// Engine is a scripted stand-in for *harness.Session. It is safe for
// concurrent use; Turn runs Script.
type Engine struct {
	// OnEvent receives every event (the interface's Sink.OnEvent).
	OnEvent func(harness.Event)
	// Approver answers `ask` tool calls (the interface's approver).
	Approver harness.Approver
	// Script plays each turn; nil plays Demo.
	Script TurnFunc
	// Delay is the pause between streamed chunks.
	Delay time.Duration

	mu        sync.Mutex
	marks     []harness.Event
	snap      harness.Snapshot
	entries   []harness.Entry
	calls     []harness.CallRecord
	skills    map[string]*Skill
	order     []string
	agent     []harness.ToolInfo
	models    []string
	prompt    string
	execs     int
	callID    int
	approved  map[string]bool
	failNext  error
	modelCall int
}

// New returns an engine with the given skills enabled and agent tools.
func New(skills []Skill, agentTools []harness.ToolInfo) *Engine {
	e := &Engine{skills: map[string]*Skill{}, agent: agentTools, approved: map[string]bool{}}
	for i := range skills {
		s := skills[i]
		e.skills[s.Name] = &s
		e.order = append(e.order, s.Name)
	}
	e.prompt = "You are a careful assistant for account reviews."
	e.models = []string{"gpt-4o-mini", "gpt-4o", "o4-mini", "demo"}
	e.snap = harness.Snapshot{
		SessionID: "s-1",
		Model:     "gpt-4o-mini",
		BaseURL:   "https://api.openai.com/v1",
		Limits:    harness.DefaultSettings(),
	}
	for _, s := range skills {
		if s.Preload {
			e.snap.Preloaded = append(e.snap.Preloaded, harness.LoadedSkill{
				Name: s.Name, Version: s.Version, ExecutionID: "p-1", Tokens: tokens(s.Body), By: "preload",
				State: json.RawMessage("{}"), Store: json.RawMessage("{}"),
			})
		}
	}
	e.recompose()
	return e
}

// tokens estimates tokens the way the status bar expects: about four
// characters each.
func tokens(s string) int { return (len(s) + 3) / 4 }

// Snapshot returns a copy of the current snapshot.
func (e *Engine) Snapshot() *harness.Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.snap
	s.Loaded = append([]harness.LoadedSkill(nil), e.snap.Loaded...)
	s.Tools = append([]harness.ToolInfo(nil), e.snap.Tools...)
	s.Parts = append([]harness.ContextPart(nil), e.snap.Parts...)
	return &s
}

// Transcript returns the entries recorded so far.
func (e *Engine) Transcript() []harness.Entry {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.entries[:len(e.entries):len(e.entries)]
}

// ModelCalls returns the calls recorded so far.
func (e *Engine) ModelCalls() []harness.CallRecord {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]harness.CallRecord(nil), e.calls...)
}

// Models lists the scripted models.
func (e *Engine) Models(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.models...), nil
}

// SetModel switches the model.
func (e *Engine) SetModel(name string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("model: empty name")
	}
	e.mu.Lock()
	e.snap.Model = name
	e.snap.Demo = name == "demo"
	turn := e.snap.Turn
	e.mu.Unlock()
	e.Emit(&harness.SettingChanged{Header: harness.Header{Turn: turn}, Key: "model", Value: name})
	return nil
}

// Set changes a setting, with the harness's own validation.
func (e *Engine) Set(key, value string) error {
	e.mu.Lock()
	err := e.snap.Limits.Set(key, value)
	turn := e.snap.Turn
	e.mu.Unlock()
	if err != nil {
		return fmt.Errorf("set %w", err) // as the engine says it
	}
	e.mu.Lock()
	e.recompose()
	e.mu.Unlock()
	e.Emit(&harness.SettingChanged{Header: harness.Header{Turn: turn}, Key: key, Value: value})
	return nil
}

// Reload pretends to re-read the skills.
func (e *Engine) Reload() error {
	e.mu.Lock()
	turn := e.snap.Turn
	e.mu.Unlock()
	e.Emit(&harness.Warning{Header: harness.Header{Turn: turn}, Message: "skills re-read from disk: no change"})
	return nil
}

// Clear starts a new session.
func (e *Engine) Clear() error {
	e.mu.Lock()
	e.entries, e.calls, e.marks = nil, nil, nil
	e.snap.Loaded, e.snap.LastTurn, e.snap.Usage = nil, nil, harness.TurnUsage{}
	e.snap.Turn = 0
	e.snap.SessionID += "'"
	e.recompose()
	e.mu.Unlock()
	return nil
}

// FailNext makes the next LoadSkill, UnloadSkill or CallTool fail.
func (e *Engine) FailNext(err error) {
	e.mu.Lock()
	e.failNext = err
	e.mu.Unlock()
}

func (e *Engine) takeFailure() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	err := e.failNext
	e.failNext = nil
	return err
}

// LoadSkill loads a skill by hand.
func (e *Engine) LoadSkill(name string) error {
	if err := e.takeFailure(); err != nil {
		return err
	}
	if _, err := e.load(name, "user", ""); err != nil {
		return fmt.Errorf("load %s: %w", name, err) // as the engine says it
	}
	return nil
}

// UnloadSkill unloads a skill by hand.
func (e *Engine) UnloadSkill(name string) error {
	if err := e.takeFailure(); err != nil {
		return err
	}
	e.mu.Lock()
	idx := -1
	for i, s := range e.snap.Loaded {
		if s.Name == name {
			idx = i
		}
	}
	if idx < 0 {
		e.mu.Unlock()
		return fmt.Errorf("unload %s: it is not loaded", name)
	}
	e.snap.Loaded = append(e.snap.Loaded[:idx], e.snap.Loaded[idx+1:]...)
	e.activate()
	e.recompose()
	turn := e.snap.Turn
	e.mu.Unlock()
	line := fmt.Sprintf("contextChanged: unloaded %s (user)", name)
	e.Note(harness.NoteContextChanged, line)
	e.Emit(&harness.SkillUnloaded{Header: harness.Header{Turn: turn}, Skill: name, Reason: "user"})
	e.Emit(&harness.ContextChanged{Header: harness.Header{Turn: turn}, Line: line})
	return nil
}

// load puts a skill at the front of the LRU, evicting the least recently
// used; it returns the contextChanged line.
func (e *Engine) load(name, by, callID string) (string, error) {
	e.mu.Lock()
	sk, ok := e.skills[name]
	if !ok {
		e.mu.Unlock()
		return "", fmt.Errorf("no skill named %q", name)
	}
	turn := e.snap.Turn
	for i, s := range e.snap.Loaded {
		if s.Name == name {
			e.snap.Loaded = append(append([]harness.LoadedSkill{s}, e.snap.Loaded[:i]...), e.snap.Loaded[i+1:]...)
			e.activate()
			e.recompose()
			e.mu.Unlock()
			e.Emit(&harness.SkillActivated{Header: harness.Header{Turn: turn}, Skill: name, ExecutionID: s.ExecutionID})
			return "contextChanged: " + name + " became active", nil
		}
	}
	e.execs++
	var toolNames []string
	for _, t := range sk.Tools {
		toolNames = append(toolNames, fmt.Sprintf("%s@%d", t.Name, t.Version))
	}
	ls := harness.LoadedSkill{
		Name: name, Version: sk.Version, ExecutionID: fmt.Sprintf("x-%d", e.execs), Tokens: tokens(sk.Body),
		By: harness.LoadedBy(by), LoadedTurn: turn, Tools: toolNames,
		State: json.RawMessage("{}"), Store: json.RawMessage(`{"reviews":0}`),
	}
	e.snap.Loaded = append([]harness.LoadedSkill{ls}, e.snap.Loaded...)
	var evicted []string
	for len(e.snap.Loaded) > e.snap.Limits.MaxLoadedSkills {
		last := e.snap.Loaded[len(e.snap.Loaded)-1]
		evicted = append(evicted, last.Name)
		e.snap.Loaded = e.snap.Loaded[:len(e.snap.Loaded)-1]
	}
	e.activate()
	e.snap.Usage.Loads++
	e.snap.Usage.LoadTokens += ls.Tokens
	e.recompose()
	e.mu.Unlock()

	first := strings.SplitN(strings.TrimSpace(sk.Body), "\n", 2)[0]
	line := fmt.Sprintf("contextChanged: loaded %s v%s (%s) — %s", name, sk.Version, ls.ExecutionID, first)
	if len(evicted) > 0 {
		line += fmt.Sprintf("; unloaded %s (lru)", strings.Join(evicted, ", "))
	}
	e.Emit(&harness.SkillLoaded{Header: harness.Header{Turn: turn}, Skill: name, Version: sk.Version, ExecutionID: ls.ExecutionID,
		Evicted: evicted, Tools: toolNames, By: harness.LoadedBy(by), Tokens: ls.Tokens})
	for _, ev := range evicted {
		e.Emit(&harness.SkillUnloaded{Header: harness.Header{Turn: turn}, Skill: ev, Reason: "lru"})
	}
	if callID == "" {
		e.Note(harness.NoteContextChanged, line)
	}
	e.Emit(&harness.ContextChanged{Header: harness.Header{Turn: turn}, Line: line, ToolCallID: callID})
	return line, nil
}

// activate marks the first loaded skill active; callers hold mu.
func (e *Engine) activate() {
	for i := range e.snap.Loaded {
		e.snap.Loaded[i].Active = i == 0
	}
}

// recompose rebuilds the instructions, parts and tools from the loaded
// set, as the real engine does; callers hold mu.
func (e *Engine) recompose() {
	var parts []harness.ContextPart
	var b strings.Builder
	add := func(kind, skill, text string) {
		parts = append(parts, harness.ContextPart{Kind: kind, Skill: skill, Text: text, Tokens: tokens(text)})
		b.WriteString(text)
		b.WriteString("\n\n")
	}
	add("prompt", "", e.prompt)
	for _, p := range e.snap.Preloaded {
		add("preload", p.Name, fmt.Sprintf("<preloaded_skills>\n<skill name=%q version=%q>\n%s\n</skill>\n</preloaded_skills>", p.Name, p.Version, e.skills[p.Name].Body))
	}
	var list strings.Builder
	list.WriteString("<available_skills>\n")
	names := append([]string(nil), e.order...)
	sort.Strings(names)
	for _, n := range names {
		s := e.skills[n]
		if s.Preload || len(s.Problems) > 0 || s.Shadowed {
			continue
		}
		fmt.Fprintf(&list, "<skill>\n<name>%s</name>\n<description>%s</description>\n</skill>\n", s.Name, s.Description)
	}
	list.WriteString("</available_skills>\nCall load_skill with a skill's name to read it before you follow it.")
	add("list", "", list.String())
	var ctx strings.Builder
	if len(e.snap.Loaded) > 0 {
		ctx.WriteString("<current_context>\n")
		for _, l := range e.snap.Loaded {
			act := ""
			if l.Active {
				act = ` active="true"`
			}
			text := fmt.Sprintf("<skill name=%q version=%q execution=%q%s>\n%s\n</skill>", l.Name, l.Version, l.ExecutionID, act, e.skills[l.Name].Body)
			parts = append(parts, harness.ContextPart{Kind: "skill", Skill: l.Name, Text: text, Tokens: tokens(text)})
			ctx.WriteString(text + "\n")
		}
		ctx.WriteString("</current_context>")
		b.WriteString(ctx.String())
	}
	e.snap.Instructions = strings.TrimSpace(b.String())
	e.snap.Context = ctx.String()
	e.snap.Parts = parts
	e.snap.InstructionTokens = tokens(e.snap.Instructions)

	tools := []harness.ToolInfo{
		{Name: "load_skill", Description: "Load a skill by name.", Source: "built-in", Approval: harness.ApproveNever,
			Parameters: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"The skill's name."}},"required":["name"]}`)},
		{Name: "read_skill_resource", Description: "Read a file of a loaded skill.", Source: "built-in", Approval: harness.ApproveNever,
			Parameters: json.RawMessage(`{"type":"object","properties":{"skill":{"type":"string"},"path":{"type":"string"}},"required":["skill","path"]}`)},
	}
	tools = append(tools, e.agent...)
	for _, l := range e.snap.Loaded {
		for _, t := range e.skills[l.Name].Tools {
			t.Source, t.Skill = "skill", l.Name
			tools = append(tools, t)
		}
	}
	for _, p := range e.snap.Preloaded {
		for _, t := range e.skills[p.Name].Tools {
			t.Source, t.Skill = "skill", p.Name
			tools = append(tools, t)
		}
	}
	e.snap.Tools = tools

	msgs := 0
	for _, en := range e.entries {
		if en.Message >= 0 {
			msgs++
		}
	}
	e.snap.Window.Messages = msgs
	e.snap.Window.Cap = e.snap.Limits.MaxTranscriptMessages
	e.snap.Window.InWindow = min(msgs, e.snap.Window.Cap)
	e.snap.Window.FirstEntry = 0
	if msgs > e.snap.Window.Cap {
		// drop the oldest messages, then start at a user message (R9)
		drop := msgs - e.snap.Window.Cap
		first := 0
		for i, en := range e.entries {
			if en.Message >= 0 {
				if drop == 0 {
					first = i
					break
				}
				drop--
			}
		}
		for first < len(e.entries) && e.entries[first].Kind != harness.EntryUser {
			first++
		}
		e.snap.Window.FirstEntry = first
		in := 0
		for _, en := range e.entries[first:] {
			if en.Message >= 0 {
				in++
			}
		}
		e.snap.Window.InWindow = in
	}
	e.snap.RequestTokens = e.snap.InstructionTokens + 40*e.snap.Window.InWindow + 60*len(tools)
	var leftOff []string
	if n := len(names); n > e.snap.Limits.ListSize {
		leftOff = names[e.snap.Limits.ListSize:]
	}
	e.snap.LeftOff = leftOff
	e.snap.Skills = e.snap.Skills[:0]
	for _, n := range e.order {
		s := e.skills[n]
		st := harness.SkillStatus{Name: s.Name, Description: s.Description, Version: s.Version,
			Dir: "skills/" + s.Name, Root: "skills", Enabled: len(s.Problems) == 0, Preload: s.Preload, Shadowed: s.Shadowed}
		for _, l := range e.snap.Loaded {
			if l.Name == n {
				st.Loaded = true
			}
		}
		for _, p := range s.Problems {
			st.Problems = append(st.Problems, problem(p))
		}
		e.snap.Skills = append(e.snap.Skills, st)
	}
}

// SetMCP sets the MCP servers the snapshot lists.
func (e *Engine) SetMCP(servers []harness.MCPServerInfo) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.snap.MCP = append([]harness.MCPServerInfo(nil), servers...)
}
