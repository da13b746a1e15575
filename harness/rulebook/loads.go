// Rules R2 (a load evicts the least recently used), R12 (its limits, as
// LoadLimits decides), R13 (one execution per version per turn), R16
// (preloads at the start of a turn) and R22 (the skills pasted for a
// message): what a load by the model, the user, a preload or paste comes
// to, decided from the state and the world. Where a load needs the
// skill's MCP servers asked first, the decision is a Plan the shell
// carries out with Place once it has asked them.

package rulebook

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"skillet/harness/event"
	"skillet/skills"
)

// Plan is a load decided but not recorded yet: the shell asks the skill's
// MCP servers for their tools (MCPRefs), then records it with Place.
type Plan struct {
	Skill      *skills.Skill
	Exec       string
	By         event.LoadedBy
	Delivery   event.Delivery
	ToolCallID string
	// Repeat marks a skill read earlier this turn under the same execution.
	Repeat bool
}

// Answer is a tool call's final answer decided by a rule.
type Answer struct {
	Content string
	IsError bool
	Refused bool
}

// ModelLoad is what a model's load_skill call comes to: a final Answer,
// or contextChanged Lines recorded by Events, or a Plan to carry out.
type ModelLoad struct {
	Answer   Answer
	Events   []event.Event
	Lines    []string
	Plan     *Plan
	Delivery event.Delivery
}

// DecideModelLoad decides a load_skill call of the model for the skill
// name (R2, R3, R11–R14, R16): refused, already there, or a load to carry
// out.
func DecideModelLoad(st *State, w *World, name, callID string) ModelLoad {
	set := st.Settings
	d := ModelLoad{Delivery: set.Delivery}
	if set.FreezePrompt {
		// a frozen prompt cannot show new text: the result carries it (R23)
		d.Delivery = event.DeliveryToolResult
	}
	refuse := func(msg string) ModelLoad {
		d.Answer = Answer{Content: msg, IsError: true, Refused: true}
		return d
	}
	if ls := st.FindPreload(name); ls != nil {
		d.Answer = Answer{Content: fmt.Sprintf("%s is preloaded this turn (execution %s): its guidance is already in the instructions and its tools are offered.", name, ls.ExecID)}
		return d
	}
	sk := w.Sel.EnabledSkill(name)
	if sk == nil {
		return refuse(UnknownSkill(w, name))
	}
	resident := st.FindLoaded(name)
	exec, readThisTurn := ReadThisTurn(st, name, sk.Version)
	if readThisTurn && resident != nil && resident.ExecID == exec {
		// R13: within a turn, loads of one version share one execution
		line := fmt.Sprintf("contextChanged: %s was already read this turn as execution %s", name, exec)
		if st.Loaded[0] != resident {
			line += "; it is the active skill again"
			d.Events = append(d.Events, &event.SkillActivated{Skill: name, ExecutionID: exec, By: event.ByModel})
		}
		d.Events = append(d.Events, &event.ContextChanged{Line: line, ToolCallID: callID})
		d.Lines = []string{line}
		return d
	}
	if err := PinConflict(st, w, sk, Victims(st, resident, Lifecycle(st))); err != nil {
		return refuse("load refused: " + err.Error())
	}
	if readThisTurn {
		// read this turn and unloaded since: back under the same execution,
		// not counted again
		d.Plan = &Plan{Skill: sk, Exec: exec, By: event.ByModel, Delivery: d.Delivery, ToolCallID: callID, Repeat: true}
		return d
	}
	text := sk.LoadText()
	if why := OverLimit(st, name, utf8.RuneCountInString(text), w.Count.Count(text)); why != "" {
		return refuse("load refused: " + why)
	}
	exec = w.NextExec(st)
	if resident == nil {
		d.Plan = &Plan{Skill: sk, Exec: exec, By: event.ByModel, Delivery: d.Delivery, ToolCallID: callID}
		return d
	}
	line := fmt.Sprintf("contextChanged: %s read again as execution %s; it is the active skill", name, exec)
	d.Events = []event.Event{&event.SkillActivated{Skill: name, ExecutionID: exec, By: event.ByModel}, &event.ContextChanged{Line: line, ToolCallID: callID}}
	d.Lines = []string{line}
	return d
}

// Render sets a new load's text from a parsed skill, on a load not yet in
// the state. Only loads that count against the turn's token budget (R12)
// need an exact count; the others take the estimate while the tokenizer's
// tables load.
func Render(w *World, ls *Loaded, sk *skills.Skill, exact bool) {
	ls.Version = sk.Version
	ls.Body = BodyOf(sk)
	if exact {
		ls.Tokens = w.Count.Count(ls.Body.Text)
	} else {
		ls.Tokens = w.Count.CountNow(ls.Body.Text, nil)
	}
}

// Place records a planned load of a skill that is not loaded (R2, R7, R14):
// it is rendered, the tools it makes available in place of the skills it
// evicts are worked out, and the evictions and the load recorded. It
// returns the events and the contextChanged lines.
func Place(st *State, w *World, p Plan) ([]event.Event, []string) {
	sk, by := p.Skill, p.By
	ls := &Loaded{Name: sk.Name, ExecID: p.Exec, ExecTurn: st.Turn, LoadedTurn: st.Turn, By: by, Delivery: p.Delivery, ResultMsg: -1}
	if by != event.ByModel {
		ls.Delivery = event.DeliveryContext // only a tool result can carry text
	}
	Render(w, ls, sk, by == event.ByModel || by == event.ByPaste)
	evicted := Evicted(st, Lifecycle(st))
	keep := st.Loaded[:len(st.Loaded)-len(evicted)]
	before := BuildTools(st, w)
	after := BuildToolsWith(st, w, st.Preloads, append([]*Loaded{ls}, keep...))
	ls.Tools = MadeAvailable(before, after, ls)
	return Insert(st, Load{Skill: sk.Name, Version: sk.Version, Exec: p.Exec, By: by, Delivery: ls.Delivery, ToolCallID: p.ToolCallID,
		Repeat: p.Repeat, Body: ls.Body, Tokens: ls.Tokens, Tools: ls.Tools}, evicted)
}

// DecideUserLoad decides a /load of the user: refused (the error), made
// active (the events), or a load to carry out.
func DecideUserLoad(st *State, w *World, name string) ([]event.Event, *Plan, error) {
	if st.Settings.FreezePrompt {
		return nil, nil, fmt.Errorf("load %s: with freeze_prompt the instructions cannot change, so only the model can load a skill (its text arrives as the load_skill result)", name)
	}
	for _, p := range w.Sel.Preload {
		if p.Name == name {
			return nil, nil, fmt.Errorf("load %s: it is preloaded: its guidance is in the instructions at every turn", name)
		}
	}
	if ls := st.FindLoaded(name); ls != nil {
		if st.Loaded[0] == ls {
			return nil, nil, nil
		}
		return []event.Event{
			&event.SkillActivated{Skill: name, ExecutionID: ls.ExecID, By: event.ByUser},
			&event.ContextChanged{Line: fmt.Sprintf("contextChanged: %s made the active skill by the user", name)},
		}, nil, nil
	}
	sk := w.Sel.EnabledSkill(name)
	if sk == nil {
		return nil, nil, fmt.Errorf("load %s: %s", name, trimTool(UnknownSkill(w, name)))
	}
	if rs := LoadLimits(st.Settings, Usage{}, PathUser, name, utf8.RuneCountInString(sk.LoadText()), 0); len(rs) > 0 {
		return nil, nil, fmt.Errorf("load %s: %s", name, rs[0].Why)
	}
	if err := PinConflict(st, w, sk, Victims(st, nil, Lifecycle(st))); err != nil {
		return nil, nil, fmt.Errorf("load %s: %w", name, err)
	}
	return nil, &Plan{Skill: sk, Exec: w.NextExec(st), By: event.ByUser, Delivery: event.DeliveryContext}, nil
}

func trimTool(msg string) string {
	const p = ToolLoadSkill + ": "
	if len(msg) >= len(p) && msg[:len(p)] == p {
		return msg[len(p):]
	}
	return msg
}

// Preloads records the preloaded skills' loads, in config order, each an
// execution of its own (R16); one over max_skill_chars is refused with a
// warning.
func Preloads(st *State, w *World) []event.Event {
	var warns, loads []event.Event
	for _, sk := range w.Sel.Preload {
		ls := &Loaded{Name: sk.Name, LoadedTurn: st.Turn, ExecTurn: st.Turn, By: event.ByPreload, Delivery: event.DeliveryContext, ResultMsg: -1}
		Render(w, ls, sk, false) // preloads count against no limit (R16)
		if rs := LoadLimits(st.Settings, Usage{}, PathPreload, sk.Name, utf8.RuneCountInString(ls.Body.Text), ls.Tokens); len(rs) > 0 {
			warns = append(warns, &event.Warning{Log: true, Message: fmt.Sprintf("preloaded skill %s left out: %s", sk.Name, rs[0].Why)})
			continue
		}
		ls.ExecID = w.NextExec(st)
		loads = append(loads, &event.SkillPreload{Skill: ls.Name, Version: ls.Version, ExecutionID: ls.ExecID, Tokens: ls.Tokens, Body: ls.Body})
	}
	return append(warns, loads...)
}

// PendingPreloads are the preloads a turn will make, rendered, for a
// request composed before the turn starts.
func PendingPreloads(w *World) []*Loaded {
	var out []*Loaded
	for _, sk := range w.Sel.Preload {
		ls := &Loaded{Name: sk.Name, By: event.ByPreload, ResultMsg: -1}
		Render(w, ls, sk, false)
		out = append(out, ls)
	}
	return out
}

// Paste chooses the skills to paste for a user message (R22): the
// top-ranked ones that share a word with it, as many as max_loaded_skills
// and the load limits let through, best first. It also unloads the pasted
// skills that no longer rank among them.
func Paste(st *State, w *World, text string) ([]*skills.Skill, []event.Event) {
	set := st.Settings
	ranked, _, scores := w.Rank.Top(w.Sel.Enabled, text, len(w.Sel.Enabled))
	var chosen []*skills.Skill
	tokens := 0
	for i, sk := range ranked {
		if scores[i] <= 0 || len(chosen) >= set.MaxLoadedSkills {
			break
		}
		t := sk.LoadText()
		n := w.Count.Count(t)
		rs := LoadLimits(set, Usage{Loads: len(chosen), LoadTokens: tokens}, PathPaste, sk.Name, utf8.RuneCountInString(t), n)
		if Breaks(rs, LimitLoads) {
			break
		}
		if len(rs) > 0 || PinConflictWith(w, sk, chosen) != nil {
			continue
		}
		tokens += n
		chosen = append(chosen, sk)
	}
	keep := map[string]bool{}
	for _, sk := range chosen {
		keep[sk.Name] = true
	}
	var events []event.Event
	for _, ls := range st.Loaded {
		if !keep[ls.Name] {
			events = append(events, &event.SkillUnloaded{Skill: ls.Name, Reason: event.UnloadPaste},
				&event.ContextChanged{Line: fmt.Sprintf("contextChanged: unloaded %s: it no longer ranks among the skills pasted for this message", ls.Name)})
		}
	}
	return chosen, events
}

// PasteOne decides the paste of one chosen skill: a load to carry out, or
// the events that make the loaded one active under a new execution.
func PasteOne(st *State, w *World, sk *skills.Skill) ([]event.Event, *Plan) {
	exec := w.NextExec(st)
	if st.FindLoaded(sk.Name) == nil {
		return nil, &Plan{Skill: sk, Exec: exec, By: event.ByPaste, Delivery: event.DeliveryContext}
	}
	return []event.Event{
		&event.SkillActivated{Skill: sk.Name, ExecutionID: exec, By: event.ByPaste},
		&event.ContextChanged{Line: fmt.Sprintf("contextChanged: %s pasted again for this message as execution %s", sk.Name, exec)},
	}, nil
}

// LoadAnswer is the load_skill answer once the load is recorded: the
// contextChanged lines, in tool-result delivery the skill's whole text
// after them (R11), and, when the session's agent tools run (workspace
// says they can), where the skill's folder is, since its scripts run from
// there wherever the workspace is.
func LoadAnswer(st *State, name string, lines []string, delivery event.Delivery, workspace bool) string {
	ls := st.FindLoaded(name)
	out := strings.Join(lines, "\n")
	if delivery == event.DeliveryToolResult && ls != nil {
		out += "\n\n" + SkillElement(ls.Name, ls.Version, ls.ExecID, true, "", ls.Body.Text)
	}
	if ls != nil && ls.Body.Dir != "" && workspace && st.Settings.AgentTools {
		out += "\nThe skill's folder is " + ls.Body.Dir + ": paths in its instructions (scripts/, references/) are relative to it."
	}
	return out
}
