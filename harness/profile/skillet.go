package profile

import "fmt"

// skillet is the rule book's own presentation (R10–R12, R16). Its list is
// ranked and rendered by the engine, which knows the latest user message;
// the profile takes that list as input (Input.Engine) and only explains
// it, so the ranking exists once.
type skillet struct{}

func (skillet) Name() string       { return "skillet" }
func (skillet) DefaultWindow() int { return 0 }

// Agent is "": the skillet profile is Skillet's own rule book.
func (skillet) Agent() string { return "" }

func (p skillet) Catalogue(in Input) Catalogue {
	cat := Catalogue{Profile: p.Name(), Entries: make([]Entry, len(in.Skills))}
	el := in.Engine
	if el == nil {
		for i, s := range in.Skills {
			cat.Entries[i] = Entry{Name: s.Name, State: Omitted, Length: runes(s.Description), Reason: "the engine composes Skillet's list (R10); no engine list was given", Warning: specWarning(s)}
		}
		cat.Warnings = []string{"the skillet profile needs the engine's list (R10)"}
		return cat
	}
	offered := map[string]int{}
	for i, n := range el.Offered {
		offered[n] = i + 1
	}
	left := map[string]int{}
	for i, n := range el.LeftOff {
		left[n] = len(el.Offered) + i + 1
	}
	pre := map[string]bool{}
	for _, n := range el.Preloaded {
		pre[n] = true
	}
	total := len(el.Offered) + len(el.LeftOff)
	for i, s := range in.Skills {
		e := Entry{Name: s.Name, Length: runes(s.Description), Warning: specWarning(s)}
		switch {
		case len(s.Breaches) > 0:
			e.State = Omitted
			e.Reason = "invalid under the Agent Skills spec, so Skillet leaves it out (skillet validate says why)"
		case offered[s.Name] > 0:
			e.State, e.Kept, e.Rank = Full, e.Length, offered[s.Name]
			if len(el.LeftOff) == 0 {
				e.Reason = fmt.Sprintf("all %d enabled skills fit the list (list_size %d, R10)", total, el.ListSize)
			} else {
				e.Reason = fmt.Sprintf("ranked %d of %d against the latest user message, within list_size %d (R10)", e.Rank, total, el.ListSize)
			}
		case left[s.Name] > 0:
			e.State, e.Rank = Omitted, left[s.Name]
			e.Reason = fmt.Sprintf("ranked %d of %d against the latest user message, beyond list_size %d: left off and named in a warning (R10)", e.Rank, total, el.ListSize)
		case pre[s.Name]:
			e.State = Omitted
			e.Reason = "preloaded: its whole text is in the instructions every turn, so it is not on the list (R16)"
		default:
			e.State = Omitted
			e.Reason = "not enabled by the engine"
		}
		cat.Entries[i] = e
	}
	if el.Text != "" {
		cat.Blocks = []Block{{Placement: SystemPrompt, Text: el.Text}}
	}
	if len(el.LeftOff) > 0 {
		cat.Warnings = []string{fmt.Sprintf("%s left off the list (R10)", plural(len(el.LeftOff), "skill"))}
	}
	return cat
}

func (skillet) Tool(in Input) *Tool {
	if in.Engine == nil {
		return nil
	}
	return in.Engine.Tool
}

// Activate leaves the rendering to the engine: a load's result is the
// contextChanged line and the text goes to <current_context> (R7, R8,
// R11), or the text is the result in tool-result delivery.
func (skillet) Activate(Skill, Request) Activation {
	return Activation{Note: "rendered by the engine: the contextChanged line as the load_skill result and the text in <current_context> (R7, R8, R11), or the text as the result in tool-result delivery"}
}

func (skillet) Persistence() Persistence {
	return Persistence{BodyStays: false, CarriedAcrossTurns: true, Lifecycle: true,
		RepeatNote: "within a turn a repeated load returns the same execution (R13)",
		Note:       "at most max_loaded_skills stay loaded; the least recently used unloads and takes its text and tools (R2–R4); per-turn load limits (R12); the transcript window (R9)"}
}
