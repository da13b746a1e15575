package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"skillet/harness/rulebook"
	"strings"
	"unicode/utf8"

	"skillet/harness/chat"
	"skillet/harness/tools"
	"skillet/skills"
)

// loadOutcome is what a load_skill call answers.
type loadOutcome struct {
	content string
	isError bool
	refused bool
}

// insertPlan is a load decided but not recorded yet: the skill's MCP
// servers are asked for their tools first, outside the lock.
type insertPlan struct {
	sk         *skills.Skill
	exec       string
	by         LoadedBy
	delivery   Delivery
	toolCallID string
	// repeat marks a skill read earlier this turn under the same execution.
	repeat bool
}

// loadDecision is what a model's load_skill call comes to: a final
// answer, or contextChanged lines recorded now, or a load to carry out.
type loadDecision struct {
	out      loadOutcome
	events   []Event
	lines    []string
	plan     *insertPlan
	delivery Delivery
}

// modelLoad carries out the model's load_skill call (R2, R3, R11–R14, R16).
func (s *Session) modelLoad(ctx context.Context, tc chat.ToolCall) loadOutcome {
	argsJSON, err := tools.ValidateArgs(loadSkillSchema, tc.Function.Arguments)
	if err != nil {
		return loadOutcome{content: "load_skill: " + err.Error(), isError: true, refused: true}
	}
	var args struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(argsJSON, &args)
	name := strings.TrimSpace(args.Name)
	var d loadDecision
	s.step(func(f *frame) []Event {
		d = f.modelLoad(name, tc.ID)
		return d.events
	})
	switch {
	case d.plan != nil:
		d.lines = s.insert(ctx, *d.plan)
	case d.lines == nil:
		return d.out
	}
	return loadOutcome{content: read(s, func(f *frame) string {
		ls := f.st.FindLoaded(name)
		out := loadResult(d.lines, ls, d.delivery)
		if ls != nil && ls.Body.Dir != "" && f.w.agent != nil && f.st.Settings.AgentTools {
			// a skill's scripts run from its folder, wherever the workspace is
			out += "\nThe skill's folder is " + ls.Body.Dir + ": paths in its instructions (scripts/, references/) are relative to it."
		}
		return out
	})}
}

// modelLoad decides a load_skill call of the model: refused, already
// there, or a load to carry out.
func (f *frame) modelLoad(name, callID string) loadDecision {
	set := f.st.Settings
	d := loadDecision{delivery: set.Delivery}
	if set.FreezePrompt {
		// a frozen prompt cannot show new text: the result carries it (R23)
		d.delivery = DeliveryToolResult
	}
	refuse := func(msg string) loadDecision {
		d.out = loadOutcome{content: msg, isError: true, refused: true}
		return d
	}
	if ls := f.st.FindPreload(name); ls != nil {
		d.out = loadOutcome{content: fmt.Sprintf("%s is preloaded this turn (execution %s): its guidance is already in the instructions and its tools are offered.", name, ls.ExecID)}
		return d
	}
	sk := f.w.Sel.EnabledSkill(name)
	if sk == nil {
		return refuse(f.unknownSkill(name))
	}
	resident := f.st.FindLoaded(name)
	exec, readThisTurn := rulebook.ReadThisTurn(f.st, name, sk.Version)
	if readThisTurn && resident != nil && resident.ExecID == exec {
		// R13: within a turn, loads of one version share one execution
		line := fmt.Sprintf("contextChanged: %s was already read this turn as execution %s", name, exec)
		if f.st.Loaded[0] != resident {
			line += "; it is the active skill again"
			d.events = append(d.events, &SkillActivated{Skill: name, ExecutionID: exec, By: ByModel})
		}
		d.events = append(d.events, &ContextChanged{Line: line, ToolCallID: callID})
		d.lines = []string{line}
		return d
	}
	if err := f.pinConflict(sk, f.victims(resident)); err != nil {
		return refuse("load refused: " + err.Error())
	}
	if readThisTurn {
		// read this turn and unloaded since: back under the same execution,
		// not counted again
		d.plan = &insertPlan{sk: sk, exec: exec, by: ByModel, delivery: d.delivery, toolCallID: callID, repeat: true}
		return d
	}
	text := skillText(sk)
	if why := rulebook.OverLimit(f.st, name, utf8.RuneCountInString(text), f.count(text)); why != "" {
		return refuse("load refused: " + why)
	}
	exec = f.nextExecID()
	if resident == nil {
		d.plan = &insertPlan{sk: sk, exec: exec, by: ByModel, delivery: d.delivery, toolCallID: callID}
		return d
	}
	line := fmt.Sprintf("contextChanged: %s read again as execution %s; it is the active skill", name, exec)
	d.events = []Event{&SkillActivated{Skill: name, ExecutionID: exec, By: ByModel}, &ContextChanged{Line: line, ToolCallID: callID}}
	d.lines = []string{line}
	return d
}

// victims names the skills a load would unload (R2).
func (f *frame) victims(resident *rulebook.Loaded) map[string]bool {
	return rulebook.Victims(f.st, resident, f.lifecycle())
}

// insert loads a skill that is not loaded (see frame.insert). The skill's
// MCP servers are asked for their tools first, outside the lock. It
// returns the contextChanged lines recorded.
func (s *Session) insert(ctx context.Context, p insertPlan) []string {
	refs := read(s, func(f *frame) []string { return f.mcpRefs([]*skills.Skill{p.sk}) })
	failures := mcpWarnings(s.prefetchMCP(ctx, refs))
	var lines []string
	s.step(func(f *frame) []Event {
		events, l := f.insert(p)
		lines = l
		return append(failures, events...)
	})
	return lines
}

// mcpWarnings are the harness.log warnings of MCP servers that could not
// be asked for their tools.
func mcpWarnings(failures []string) []Event {
	out := make([]Event, 0, len(failures))
	for _, msg := range failures {
		out = append(out, &Warning{Message: msg, Log: true})
	}
	return out
}

// insert records the load of a skill that is not loaded (R2, R7): the
// shell renders it and works out the tools it makes available; the rule
// book records the evictions and the load.
func (f *frame) insert(p insertPlan) ([]Event, []string) {
	sk, by := p.sk, p.by
	ls := &rulebook.Loaded{Name: sk.Name, ExecID: p.exec, ExecTurn: f.st.Turn, LoadedTurn: f.st.Turn, By: by, Delivery: p.delivery, ResultMsg: -1}
	if by != ByModel {
		ls.Delivery = DeliveryContext // only a tool result can carry text
	}
	f.render(ls, sk, by == ByModel || by == ByPaste)
	evicted := rulebook.Evicted(f.st, f.lifecycle())
	keep := f.st.Loaded[:len(f.st.Loaded)-len(evicted)]
	before := f.buildTools()
	after := f.buildToolsWith(f.st.Preloads, append([]*rulebook.Loaded{ls}, keep...))
	ls.Tools = madeAvailable(before, after, ls)
	return rulebook.Insert(f.st, rulebook.Load{Skill: sk.Name, Version: sk.Version, Exec: p.exec, By: by, Delivery: ls.Delivery, ToolCallID: p.toolCallID,
		Repeat: p.repeat, Body: ls.Body, Tokens: ls.Tokens, Tools: ls.Tools}, evicted)
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// loadResult is the load_skill answer: the contextChanged lines, and in
// tool-result delivery the skill's whole text after them (R11).
func loadResult(lines []string, ls *rulebook.Loaded, delivery Delivery) string {
	out := strings.Join(lines, "\n")
	if delivery == DeliveryToolResult && ls != nil {
		out += "\n\n" + rulebook.SkillElement(ls.Name, ls.Version, ls.ExecID, true, "", ls.Body.Text)
	}
	return out
}

func (f *frame) unknownSkill(name string) string { return rulebook.UnknownSkill(f.w.World, name) }

// LoadSkill loads a skill at the user's request (/load), between turns. It
// counts as Delivered, never Loaded (R20).
func (s *Session) LoadSkill(name string) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	s.syncSkills() // read from disk, as a turn would (R17)
	var err error
	var plan *insertPlan
	s.step(func(f *frame) []Event {
		var events []Event
		events, plan, err = f.userLoad(name)
		return events
	})
	if err != nil {
		return err
	}
	if plan != nil {
		s.insert(context.Background(), *plan)
	}
	return s.syncJournal()
}

// userLoad decides a /load: refused, made active, or a load to carry out.
func (f *frame) userLoad(name string) ([]Event, *insertPlan, error) {
	if f.st.Settings.FreezePrompt {
		return nil, nil, fmt.Errorf("load %s: with freeze_prompt the instructions cannot change, so only the model can load a skill (its text arrives as the load_skill result)", name)
	}
	for _, p := range f.w.Sel.Preload {
		if p.Name == name {
			return nil, nil, fmt.Errorf("load %s: it is preloaded: its guidance is in the instructions at every turn", name)
		}
	}
	if ls := f.st.FindLoaded(name); ls != nil {
		if f.st.Loaded[0] == ls {
			return nil, nil, nil
		}
		return []Event{
			&SkillActivated{Skill: name, ExecutionID: ls.ExecID, By: ByUser},
			&ContextChanged{Line: fmt.Sprintf("contextChanged: %s made the active skill by the user", name)},
		}, nil, nil
	}
	sk := f.w.Sel.EnabledSkill(name)
	if sk == nil {
		return nil, nil, fmt.Errorf("load %s: %s", name, strings.TrimPrefix(f.unknownSkill(name), "load_skill: "))
	}
	if rs := rulebook.LoadLimits(f.st.Settings, rulebook.Usage{}, rulebook.PathUser, name, utf8.RuneCountInString(skillText(sk)), 0); len(rs) > 0 {
		return nil, nil, fmt.Errorf("load %s: %s", name, rs[0].Why)
	}
	if err := f.pinConflict(sk, f.victims(nil)); err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", name, err)
	}
	return nil, &insertPlan{sk: sk, exec: f.nextExecID(), by: ByUser, delivery: DeliveryContext}, nil
}

// UnloadSkill unloads a skill at the user's request (/unload).
func (s *Session) UnloadSkill(name string) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	var err error
	s.step(func(f *frame) []Event {
		var events []Event
		events, err = rulebook.UnloadByUser(f.st, name)
		return events
	})
	if err != nil {
		return err
	}
	return s.syncJournal()
}

// preloadSkills loads the preloaded skills at the start of a turn (R16).
func (s *Session) preloadSkills() { s.step((*frame).preloads) }

// preloads records the preloaded skills' loads, in config order, each an
// execution of its own (R16); one over max_skill_chars is refused with a
// warning.
func (f *frame) preloads() []Event {
	var warns, loads []Event
	for _, sk := range f.w.Sel.Preload {
		ls := &rulebook.Loaded{Name: sk.Name, LoadedTurn: f.st.Turn, ExecTurn: f.st.Turn, By: ByPreload, Delivery: DeliveryContext, ResultMsg: -1}
		f.render(ls, sk, false) // preloads count against no limit (R16)
		if rs := rulebook.LoadLimits(f.st.Settings, rulebook.Usage{}, rulebook.PathPreload, sk.Name, utf8.RuneCountInString(ls.Body.Text), ls.Tokens); len(rs) > 0 {
			warns = append(warns, &Warning{Log: true, Message: fmt.Sprintf("preloaded skill %s left out: %s", sk.Name, rs[0].Why)})
			continue
		}
		ls.ExecID = f.nextExecID()
		loads = append(loads, &SkillPreload{Skill: ls.Name, Version: ls.Version, ExecutionID: ls.ExecID, Tokens: ls.Tokens, Body: ls.Body})
	}
	return append(warns, loads...)
}

// pasteSkills puts the top-ranked skills that fit the load limits into the
// instructions, when there is no load_skill tool (R22). They are Delivered,
// not Loaded.
func (s *Session) pasteSkills(text string) {
	var chosen []*skills.Skill
	s.step(func(f *frame) []Event {
		var events []Event
		chosen, events = f.paste(text)
		return events
	})
	// the best match goes last so it ends up most recent: the active one
	for i := len(chosen) - 1; i >= 0; i-- {
		sk := chosen[i]
		var plan *insertPlan
		s.step(func(f *frame) []Event {
			exec := f.nextExecID()
			if f.st.FindLoaded(sk.Name) == nil {
				plan = &insertPlan{sk: sk, exec: exec, by: ByPaste, delivery: DeliveryContext}
				return nil
			}
			return []Event{
				&SkillActivated{Skill: sk.Name, ExecutionID: exec, By: ByPaste},
				&ContextChanged{Line: fmt.Sprintf("contextChanged: %s pasted again for this message as execution %s", sk.Name, exec)},
			}
		})
		if plan != nil {
			s.insert(context.Background(), *plan)
		}
	}
}

// paste chooses the skills to paste for a user message (R22) and unloads
// the pasted skills that no longer rank among them.
func (f *frame) paste(text string) ([]*skills.Skill, []Event) {
	set := f.st.Settings
	ranked, _, scores := f.w.Rank.Top(f.w.Sel.Enabled, text, len(f.w.Sel.Enabled))
	var chosen []*skills.Skill
	tokens := 0
	for i, sk := range ranked {
		if scores[i] <= 0 || len(chosen) >= set.MaxLoadedSkills {
			break
		}
		t := skillText(sk)
		n := f.count(t)
		rs := rulebook.LoadLimits(set, rulebook.Usage{Loads: len(chosen), LoadTokens: tokens}, rulebook.PathPaste, sk.Name, utf8.RuneCountInString(t), n)
		if rulebook.Breaks(rs, rulebook.LimitLoads) {
			break
		}
		if len(rs) > 0 || f.pinConflictWith(sk, chosen) != nil {
			continue
		}
		tokens += n
		chosen = append(chosen, sk)
	}
	keep := map[string]bool{}
	for _, sk := range chosen {
		keep[sk.Name] = true
	}
	var events []Event
	for _, ls := range f.st.Loaded {
		if !keep[ls.Name] {
			events = append(events, &SkillUnloaded{Skill: ls.Name, Reason: UnloadPaste},
				&ContextChanged{Line: fmt.Sprintf("contextChanged: unloaded %s: it no longer ranks among the skills pasted for this message", ls.Name)})
		}
	}
	return chosen, events
}
