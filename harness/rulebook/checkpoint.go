// A checkpoint of the fold: what a reader that steps back through a long
// session needs, without the transcript.

package rulebook

import (
	"encoding/json"
	"maps"
	"slices"

	"skillet/harness/event"
)

// Checkpoint returns a copy of the state without its transcript, taken at
// a turn's boundary (before the next turn_start is applied), for a reader
// that wants the state at a later model call without folding, or holding,
// everything before it. Applying the events that follow to the copy gives
// the same loaded set, preloads, limits, stores, files, turn records and
// usage as applying them to st; only what points into the transcript
// differs: the copy's Entries, Msgs, Marks, Ends and Calls start empty, so
// an event's Header.Entry counts from st.Entries.Len(). Nothing the copy holds is
// shared with st in a way Apply changes.
func (st *State) Checkpoint() *State {
	cp := &State{
		ID: st.ID, Model: st.Model, Demo: st.Demo, Settings: st.Settings, Profile: st.Profile, ContextWindow: st.ContextWindow,
		ExecSeq: st.ExecSeq, Turn: st.Turn, Running: st.Running, Last: st.Last, Frozen: st.Frozen,
		Approvals: maps.Clone(st.Approvals), Approved: maps.Clone(st.Approved), CallIDs: map[string]bool{},
		Stores: maps.Clone(st.Stores), OutOfWindow: maps.Clone(st.OutOfWindow), Files: maps.Clone(st.Files),
		Gone: slices.Clone(st.Gone), LastDropped: 0, Unsent: slices.Clone(st.Unsent), Workspace: st.Workspace,
	}
	if cp.Approvals == nil {
		cp.Approvals = map[string]event.Decision{}
	}
	if cp.Approved == nil {
		cp.Approved = map[string]bool{}
	}
	if cp.Stores == nil {
		cp.Stores = map[string]json.RawMessage{}
	}
	if cp.OutOfWindow == nil {
		cp.OutOfWindow = map[string]bool{}
	}
	if cp.Files == nil {
		cp.Files = map[string]event.FileChange{}
	}
	copyLoaded := func(in []*Loaded) []*Loaded {
		if in == nil {
			return nil
		}
		out := make([]*Loaded, len(in))
		for i, ls := range in {
			c := *ls
			c.ResultMsg, c.JoinedMsg = -1, 0 // positions in a transcript the copy does not hold
			out[i] = &c
		}
		return out
	}
	cp.Loaded, cp.Preloads = copyLoaded(st.Loaded), copyLoaded(st.Preloads)
	if st.Cur != nil {
		// the ended turn's record: a turn_start replaces it, and until
		// then only its usage and warnings are read
		cur := NewTurnState()
		cur.Ended, cur.Usage, cur.LeftOff = st.Cur.Ended, st.Cur.Usage, st.Cur.LeftOff
		maps.Copy(cur.Warned, st.Cur.Warned)
		cp.Cur = cur
	}
	return cp
}
