package harness

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"skillet/harness/rulebook"
)

// History is the session as it was at each of its model calls, for
// stepping back through it (time travel): folded from the journal, not
// re-run. Each snapshot holds the loaded set, preloads, limits, turn and
// left-off list of the state as the call went out; HistoryAt adds the
// instructions, <current_context>, tools and window of the request the
// model got, byte for byte, one call at a time — a long session's
// requests are not all held.
func (s *Session) History() ([]*Snapshot, error) {
	path := s.journalPath()
	if path == "" {
		return nil, errors.New("history: this session keeps no journal")
	}
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	events, _, _, err := readJournal(f, true, f)
	if err != nil {
		return nil, err
	}
	fold, _, _ := rulebook.Repair(events)
	st := rulebook.New("", "", DefaultSettings())
	var out []*Snapshot
	for _, e := range fold {
		st.Apply(e)
		if mc, ok := e.(*ModelCall); ok {
			snap := stateAtCall(st, mc)
			if n := len(out); n > 0 && slices.Equal(out[n-1].LeftOff, snap.LeftOff) {
				snap.LeftOff = out[n-1].LeftOff // a long list, mostly the same from call to call
			}
			out = append(out, snap)
		}
	}
	return out, nil
}

// HistoryAt returns snapshot i of History whole: with the instructions,
// <current_context>, tools and window of the request model call i carried,
// read back from the journal.
func (s *Session) HistoryAt(snap *Snapshot, i int) (*Snapshot, error) {
	rec, err := s.ModelCall(i)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if rec.Turn != snap.Turn || rec.Call != snap.Call {
		return nil, fmt.Errorf("history: model call %d is turn %d call %d, not turn %d call %d", i+1, rec.Turn, rec.Call, snap.Turn, snap.Call)
	}
	full := *snap
	withRequest(&full, rec.Request)
	return &full, nil
}

// stateAtCall is the snapshot of a model call's state as it went out.
func stateAtCall(st *rulebook.State, mc *ModelCall) *Snapshot {
	snap := &Snapshot{SessionID: st.ID, Model: st.Model, Demo: st.Demo, Turn: mc.Turn, Limits: st.Settings, LastTurn: st.Last,
		LeftOff: mc.LeftOff, Call: mc.Call, Estimated: true}
	if st.Cur != nil {
		snap.Usage = st.Cur.Usage
	}
	for i, ls := range st.Loaded {
		snap.Loaded = append(snap.Loaded, historyLoaded(ls, i == 0))
	}
	for _, ls := range st.Preloads {
		snap.Preloaded = append(snap.Preloaded, historyLoaded(ls, false))
	}
	snap.Window = WindowInfo{Messages: mc.Entry, Cap: st.Settings.MaxTranscriptMessages}
	snap.Workspace = st.Workspace
	for _, p := range slices.Sorted(maps.Keys(st.Files)) {
		snap.Files = append(snap.Files, st.Files[p])
	}
	return snap
}

// withRequest puts a recorded request's parts in a call's snapshot.
func withRequest(snap *Snapshot, request []byte) {
	if req, ok := rulebook.ParseRequest(request); ok {
		snap.Instructions, snap.Context = req.Instructions, req.Context
		for _, t := range req.Declared() {
			src, skill := sourceAt(snap, t.Name)
			snap.Tools = append(snap.Tools, ToolInfo{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Source: src, Skill: skill})
		}
		snap.Window.InWindow = len(req.Messages)
	}
	snap.InstructionTokens = CountEstimate(snap.Instructions)
	snap.RequestTokens = CountEstimate(string(request))
}

func historyLoaded(ls *rulebook.Loaded, active bool) LoadedSkill {
	return LoadedSkill{Name: ls.Name, Version: ls.Version, ExecutionID: ls.ExecID, Active: active, Tokens: ls.Tokens, Changed: ls.Changed,
		By: ls.By, LoadedTurn: ls.LoadedTurn, Tools: append([]string{}, ls.Tools...), State: ls.State}
}

// sourceAt says where a tool of a recorded request came from: a loaded
// skill's, a built-in, else the agent's.
func sourceAt(snap *Snapshot, name string) (ToolSource, string) {
	for _, ls := range append(append([]LoadedSkill{}, snap.Loaded...), snap.Preloaded...) {
		for _, t := range ls.Tools {
			if n, _, _ := strings.Cut(t, "@"); n == name {
				return SourceSkill, ls.Name
			}
		}
	}
	if name == ToolLoadSkill || name == ToolReadResource {
		return SourceBuiltIn, ""
	}
	return SourceAgent, ""
}
