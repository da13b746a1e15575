package harness

import (
	"context"
	"encoding/json"
	"skillet/harness/event"
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
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
		d = rulebook.DecideModelLoad(st, w, name, tc.ID)
		return d.Events
	})
	switch {
	case d.Plan != nil:
		d.Lines = s.insert(ctx, *d.Plan)
	case d.Lines == nil:
		return d.Answer
	}
	return loadOutcome{Content: read(s, func(f *frame) string {
		return rulebook.LoadAnswer(f.st, name, d.Lines, d.Delivery, f.w.agent != nil)
	})}
}

// insert loads a skill that is not loaded (see frame.insert). The skill's
// MCP servers are asked for their tools first, outside the lock. It
// returns the contextChanged lines recorded.
func (s *Session) insert(ctx context.Context, p insertPlan) []string {
	refs := read(s, func(f *frame) []string { return rulebook.MCPRefs(f.w.World, []*skills.Skill{p.Skill}) })
	failures := mcpWarnings(s.prefetchMCP(ctx, refs))
	var lines []string
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
		events, l := rulebook.Place(st, w, p)
		lines = l
		return append(failures, events...)
	})
	return lines
}

// mcpWarnings are the harness.log warnings of MCP servers that could not
// be asked for their tools.
func mcpWarnings(failures []string) []event.Event {
	out := make([]event.Event, 0, len(failures))
	for _, msg := range failures {
		out = append(out, &event.Warning{Message: msg, Log: true})
	}
	return out
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

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
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
		var events []event.Event
		events, plan, err = rulebook.DecideUserLoad(st, w, name)
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
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
		var events []event.Event
		events, err = rulebook.UnloadByUser(st, name)
		return events
	})
	if err != nil {
		return err
	}
	return s.syncJournal()
}

// preloadSkills loads the preloaded skills at the start of a turn (R16).
func (s *Session) preloadSkills() {
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event { return rulebook.Preloads(st, w) })
}

// pasteSkills puts the top-ranked skills that fit the load limits into the
// instructions, when there is no load_skill tool (R22). They are Delivered,
// not Loaded.
func (s *Session) pasteSkills(text string) {
	var chosen []*skills.Skill
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
		var events []event.Event
		chosen, events = rulebook.Paste(st, w, text)
		return events
	})
	// the best match goes last so it ends up most recent: the active one
	for i := len(chosen) - 1; i >= 0; i-- {
		sk := chosen[i]
		var plan *insertPlan
		s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
			var events []event.Event
			events, plan = rulebook.PasteOne(st, w, sk)
			return events
		})
		if plan != nil {
			s.insert(context.Background(), *plan)
		}
	}
}
