package harness

import (
	"encoding/json"
	"errors"
	"os"
	"strings"

	"skillet/harness/chat"
	"skillet/harness/rulebook"
)

// History is the session as it was at each of its model calls, for
// stepping back through it (time travel): folded from the journal, not
// re-run. Each snapshot holds the loaded set, preloads, limits and turn of
// the state as the call went out, and the instructions, <current_context>,
// tools and window of the request the model got, byte for byte.
func (s *Session) History() ([]*Snapshot, error) {
	path := s.journalPath()
	if path == "" {
		return nil, errors.New("history: this session keeps no journal")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	events, _, err := ReadJournal(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	fold, _, _ := rulebook.Repair(events)
	st := rulebook.New("", "", DefaultSettings())
	var out []*Snapshot
	for _, e := range fold {
		st.Apply(e)
		if mc, ok := e.(*ModelCall); ok {
			out = append(out, snapshotAtCall(st, mc))
		}
	}
	return out, nil
}

// snapshotAtCall builds the snapshot of a model call from the state it
// went out in and its recorded request.
func snapshotAtCall(st *rulebook.State, mc *ModelCall) *Snapshot {
	snap := &Snapshot{SessionID: st.ID, Model: st.Model, Demo: st.Demo, Turn: mc.Turn, Limits: st.Settings, LastTurn: st.Last,
		LeftOff: mc.LeftOff, Call: mc.Call}
	if st.Cur != nil {
		snap.Usage = st.Cur.Usage
	}
	for i, ls := range st.Loaded {
		snap.Loaded = append(snap.Loaded, historyLoaded(ls, i == 0))
	}
	for _, ls := range st.Preloads {
		snap.Preloaded = append(snap.Preloaded, historyLoaded(ls, false))
	}
	var req chat.Request
	if json.Unmarshal(mc.Request, &req) == nil {
		msgs := req.Messages
		if len(msgs) > 0 && msgs[0].Role == chat.RoleSystem {
			snap.Instructions = msgs[0].Content
			msgs = msgs[1:]
		}
		if i := strings.Index(snap.Instructions, "<current_context>"); i >= 0 {
			snap.Context = snap.Instructions[i:]
		}
		for _, t := range req.Tools {
			if t.Function == nil {
				continue
			}
			params, _ := json.Marshal(t.Function.Parameters)
			src, skill := sourceAt(st, t.Function.Name)
			snap.Tools = append(snap.Tools, ToolInfo{Name: t.Function.Name, Description: t.Function.Description, Parameters: params, Source: src, Skill: skill})
		}
		snap.Window = WindowInfo{Messages: mc.Entry, InWindow: len(msgs), Cap: st.Settings.MaxTranscriptMessages}
	}
	snap.InstructionTokens = CountEstimate(snap.Instructions)
	snap.RequestTokens = CountEstimate(string(mc.Request))
	snap.Estimated = true
	return snap
}

func historyLoaded(ls *rulebook.Loaded, active bool) LoadedSkill {
	return LoadedSkill{Name: ls.Name, Version: ls.Version, ExecutionID: ls.ExecID, Active: active, Tokens: ls.Tokens, Changed: ls.Changed,
		By: ls.By, LoadedTurn: ls.LoadedTurn, Tools: append([]string{}, ls.Tools...), State: ls.State}
}

// sourceAt says where a tool of a recorded request came from: a loaded
// skill's, a built-in, else the agent's.
func sourceAt(st *rulebook.State, name string) (ToolSource, string) {
	for _, ls := range append(append([]*rulebook.Loaded{}, st.Loaded...), st.Preloads...) {
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
