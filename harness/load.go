package harness

import (
	"context"
	"encoding/json"
	"skillet/harness/rulebook"
	"strings"

	"skillet/harness/chat"
	"skillet/harness/tools"
	"skillet/skills"
)

// loadOutcome is what a load_skill call answers; insertPlan a load the
// rule book decided and the shell carries out (see rulebook.Plan).
type (
	loadOutcome = rulebook.Answer
	insertPlan  = rulebook.Plan
)

// modelLoad carries out the model's load_skill call (R2, R3, R11–R14, R16).
func (s *Session) modelLoad(ctx context.Context, tc chat.ToolCall) loadOutcome {
	argsJSON, err := tools.ValidateArgs(rulebook.LoadSkillSchema, tc.Function.Arguments)
	if err != nil {
		return loadOutcome{Content: "load_skill: " + err.Error(), IsError: true, Refused: true}
	}
	var args struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(argsJSON, &args)
	name := strings.TrimSpace(args.Name)
	var d rulebook.ModelLoad
	s.step(func(f *frame) []Event {
		d = rulebook.DecideModelLoad(f.st, f.w.World, name, tc.ID)
		return d.Events
	})
	switch {
	case d.Plan != nil:
		d.Lines = s.insert(ctx, *d.Plan)
	case d.Lines == nil:
		return d.Answer
	}
	return loadOutcome{Content: read(s, func(f *frame) string {
		ls := f.st.FindLoaded(name)
		out := loadResult(d.Lines, ls, d.Delivery)
		if ls != nil && ls.Body.Dir != "" && f.w.agent != nil && f.st.Settings.AgentTools {
			// a skill's scripts run from its folder, wherever the workspace is
			out += "\nThe skill's folder is " + ls.Body.Dir + ": paths in its instructions (scripts/, references/) are relative to it."
		}
		return out
	})}
}

// insert loads a skill that is not loaded (see frame.insert). The skill's
// MCP servers are asked for their tools first, outside the lock. It
// returns the contextChanged lines recorded.
func (s *Session) insert(ctx context.Context, p insertPlan) []string {
	refs := read(s, func(f *frame) []string { return rulebook.MCPRefs(f.w.World, []*skills.Skill{p.Skill}) })
	failures := mcpWarnings(s.prefetchMCP(ctx, refs))
	var lines []string
	s.step(func(f *frame) []Event {
		events, l := rulebook.Place(f.st, f.w.World, p)
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
		events, plan, err = rulebook.DecideUserLoad(f.st, f.w.World, name)
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
func (s *Session) preloadSkills() {
	s.step(func(f *frame) []Event { return rulebook.Preloads(f.st, f.w.World) })
}

// pasteSkills puts the top-ranked skills that fit the load limits into the
// instructions, when there is no load_skill tool (R22). They are Delivered,
// not Loaded.
func (s *Session) pasteSkills(text string) {
	var chosen []*skills.Skill
	s.step(func(f *frame) []Event {
		var events []Event
		chosen, events = rulebook.Paste(f.st, f.w.World, text)
		return events
	})
	// the best match goes last so it ends up most recent: the active one
	for i := len(chosen) - 1; i >= 0; i-- {
		sk := chosen[i]
		var plan *insertPlan
		s.step(func(f *frame) []Event {
			var events []Event
			events, plan = rulebook.PasteOne(f.st, f.w.World, sk)
			return events
		})
		if plan != nil {
			s.insert(context.Background(), *plan)
		}
	}
}
