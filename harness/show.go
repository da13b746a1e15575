package harness

import (
	"encoding/json"
	"iter"
	"maps"
	"skillet/harness/paged"
	"slices"
	"sort"
)

// StateView is the state of a session as `skillet show` and `skillet run
// --show-state` print it: what a reopened session has, and what the next
// request would carry.
type StateView struct {
	SessionID string `json:"session_id"`
	Model     string `json:"model"`
	// Demo marks a session started on the offline demo model.
	Demo   bool     `json:"demo"`
	Turn   int      `json:"turn"`
	Limits Settings `json:"limits"`
	// Profile is how skills reach the model; ContextWindow the window its
	// listing budget derives from; Lifecycle whether Skillet's LRU, load
	// limits and window apply.
	Profile       string `json:"profile"`
	ContextWindow int    `json:"context_window,omitempty"`
	Lifecycle     bool   `json:"lifecycle"`
	// ProfileAgent is the agent version the session's profile reproduced,
	// as its journal recorded it; omitted for skillet.
	ProfileAgent string `json:"profile_agent,omitempty"`
	// Loaded is the loaded set in LRU order, the active skill first.
	Loaded    []LoadedSkill `json:"loaded"`
	Preloaded []LoadedSkill `json:"preloaded"`
	// Context is the <current_context> block of the next request.
	Context string `json:"context"`
	// Tools are the tools of the next request.
	Tools  []ToolView `json:"tools"`
	Window WindowInfo `json:"window"`
	// Turns are the finished turns' records (R20, R21).
	Turns []TurnView `json:"turns"`
	// Stores are the skills' session stores (R26), by skill.
	Stores map[string]json.RawMessage `json:"stores"`
	Ledger Ledger                     `json:"ledger"`
	// Workspace is where the agent tools work, nil without them; Files
	// the workspace files tool calls changed, by path (content left out:
	// `skillet workspace` writes it out).
	Workspace *WorkspaceInfo `json:"workspace,omitempty"`
	Files     []FileChange   `json:"files,omitempty"`
}

// ToolView is one tool of the next request, as `skillet show` lists it.
type ToolView struct {
	Name     string     `json:"name"`
	Version  int        `json:"version,omitempty"`
	Source   ToolSource `json:"source"`
	Skill    string     `json:"skill,omitempty"`
	Approval string     `json:"approval"`
	Pinned   bool       `json:"pinned"`
}

// TurnView is one finished turn's Offered / Delivered / Loaded and uses.
type TurnView struct {
	Turn       int        `json:"turn"`
	Offered    []string   `json:"offered"`
	LeftOff    []string   `json:"left_off,omitempty"`
	Delivered  []string   `json:"delivered"`
	Loaded     []string   `json:"loaded"`
	Uses       []Use      `json:"uses"`
	StopReason StopReason `json:"stop_reason"`
}

// State returns the session's state view.
func (s *Session) State() *StateView {
	v, turns := s.StateTurns()
	for t := range turns {
		v.Turns = append(v.Turns, t)
	}
	return v
}

// StateTurns returns the session's state view without its Turns (an empty
// list), and the turns in order, each decoded from the session's sealed
// pages as it is reached: a long session's thousands of turn records are
// never all held. The turns are those finished when StateTurns was called.
func (s *Session) StateTurns() (*StateView, iter.Seq[TurnView]) {
	snap := s.snapshot(true) // the state is exact, whatever the tables
	v := &StateView{SessionID: snap.SessionID, Model: snap.Model, Demo: snap.Demo, Turn: snap.Turn, Limits: snap.Limits,
		Profile: snap.Profile, ContextWindow: snap.ContextWindow, Lifecycle: snap.Lifecycle, ProfileAgent: snap.ProfileAgent,
		Loaded: nonNilLoaded(snap.Loaded), Preloaded: nonNilLoaded(snap.Preloaded), Context: snap.Context, Window: snap.Window,
		Ledger: snap.Ledger, Tools: []ToolView{}, Turns: []TurnView{}, Stores: map[string]json.RawMessage{}}
	for _, t := range snap.Tools {
		if t.Gone {
			continue
		}
		v.Tools = append(v.Tools, ToolView{Name: t.Name, Version: t.Version, Source: t.Source, Skill: t.Skill, Approval: t.Approval, Pinned: t.Pinned})
	}
	var ends paged.List[*TurnEnd]
	s.with(func(f *frame) {
		v.Demo = f.st.Demo
		ends = f.st.Ends.View()
		names := make([]string, 0, len(f.st.Stores))
		for name := range f.st.Stores {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			v.Stores[name] = f.st.Stores[name]
		}
		v.Workspace = f.st.Workspace
		for _, p := range slices.Sorted(maps.Keys(f.st.Files)) {
			v.Files = append(v.Files, f.st.Files[p])
		}
	})
	// read after the lock: the older records are decoded from their pages
	return v, func(yield func(TurnView) bool) {
		for _, e := range ends.All() {
			if !yield(TurnView{Turn: e.Turn, Offered: nonNil(e.Offered), LeftOff: e.LeftOff, Delivered: nonNil(e.Delivered),
				Loaded: nonNil(e.Loaded), Uses: nonNilUses(e.Uses), StopReason: e.StopReason}) {
				return
			}
		}
	}
}

func nonNilLoaded(l []LoadedSkill) []LoadedSkill {
	if l == nil {
		return []LoadedSkill{}
	}
	return l
}
