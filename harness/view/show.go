package view

import (
	"encoding/json"
	"iter"
	"maps"
	"slices"

	"skillet/harness/event"
	"skillet/harness/paged"
	"skillet/harness/rulebook"
)

// StateView is the state of a session as `skillet show` and `skillet run
// --show-state` print it: what a reopened session has, and what the next
// request would carry.
type StateView struct {
	SessionID string `json:"session_id"`
	Model     string `json:"model"`
	// Demo marks a session started on the offline demo model.
	Demo   bool           `json:"demo"`
	Turn   int            `json:"turn"`
	Limits event.Settings `json:"limits"`
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
	Workspace *event.WorkspaceInfo `json:"workspace,omitempty"`
	Files     []event.FileChange   `json:"files,omitempty"`
}

// ToolView is one tool of the next request, as `skillet show` lists it.
type ToolView struct {
	Name     string           `json:"name"`
	Version  int              `json:"version,omitempty"`
	Source   event.ToolSource `json:"source"`
	Skill    string           `json:"skill,omitempty"`
	Approval string           `json:"approval"`
	Pinned   bool             `json:"pinned"`
}

// TurnView is one finished turn's Offered / Delivered / Loaded and uses.
type TurnView struct {
	Turn       int              `json:"turn"`
	Offered    []string         `json:"offered"`
	LeftOff    []string         `json:"left_off,omitempty"`
	Delivered  []string         `json:"delivered"`
	Loaded     []string         `json:"loaded"`
	Uses       []event.Use      `json:"uses"`
	StopReason event.StopReason `json:"stop_reason"`
}

// NewStateView is the state view of an exact snapshot, without its Turns
// (an empty list) and what only the state holds (see StateView.Read).
func NewStateView(snap *Snapshot) *StateView {
	v := &StateView{SessionID: snap.SessionID, Model: snap.Model, Demo: snap.Demo, Turn: snap.Turn, Limits: snap.Limits,
		Profile: snap.Profile, ContextWindow: snap.ContextWindow, Lifecycle: snap.Lifecycle, ProfileAgent: snap.ProfileAgent,
		Loaded: nonNil(snap.Loaded), Preloaded: nonNil(snap.Preloaded), Context: snap.Context, Window: snap.Window,
		Ledger: snap.Ledger, Tools: []ToolView{}, Turns: []TurnView{}, Stores: map[string]json.RawMessage{}}
	for _, t := range snap.Tools {
		if t.Gone {
			continue
		}
		v.Tools = append(v.Tools, ToolView{Name: t.Name, Version: t.Version, Source: t.Source, Skill: t.Skill, Approval: t.Approval, Pinned: t.Pinned})
	}
	return v
}

// Read fills in what the view takes from the state itself — the demo
// mark, the stores, the workspace and its changed files — and returns the
// finished turns' records, for Turns. The caller holds what guards st;
// the records are read after, as older ones are decoded from their pages.
func (v *StateView) Read(st *rulebook.State) paged.List[*event.TurnEnd] {
	v.Demo = st.Demo
	for _, name := range slices.Sorted(maps.Keys(st.Stores)) {
		v.Stores[name] = st.Stores[name]
	}
	v.Workspace = st.Workspace
	for _, p := range slices.Sorted(maps.Keys(st.Files)) {
		v.Files = append(v.Files, st.Files[p])
	}
	return st.Ends.View()
}

// Turns are the turn records of ends in order, each decoded from its page
// as it is reached: a long session's thousands of records are never all
// held.
func Turns(ends paged.List[*event.TurnEnd]) iter.Seq[TurnView] {
	return func(yield func(TurnView) bool) {
		for _, e := range ends.All() {
			if !yield(TurnView{Turn: e.Turn, Offered: nonNil(e.Offered), LeftOff: e.LeftOff, Delivered: nonNil(e.Delivered),
				Loaded: nonNil(e.Loaded), Uses: nonNil(e.Uses), StopReason: e.StopReason}) {
				return
			}
		}
	}
}

// nonNil makes a nil list an empty one, which JSON prints as [].
func nonNil[T any](l []T) []T {
	if l == nil {
		return []T{}
	}
	return l
}
