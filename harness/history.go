package harness

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"skillet/harness/journal"
	"slices"
	"strings"
	"sync"

	"skillet/harness/rulebook"
)

// checkEvery is how many model calls apart time travel's checkpoints are:
// the state at any call is at most this many calls' events folded from
// the checkpoint before it.
const checkEvery = 64

// History is the session as it was at each of its model calls, for
// stepping back through it (time travel): folded from the journal, not
// re-run. At gives the loaded set, preloads, limits, turn and left-off
// list of the state as a call went out; HistoryAt adds the instructions,
// <current_context>, tools and window of the request the model got, byte
// for byte. Neither the calls' states nor the journal's events are held:
// a state is folded on asking from the checkpoint before it (a copy of
// the fold without its transcript, one every checkEvery calls, taken as
// the session's turns ended, as it reopened, or as time travel first read
// that far).
type History struct {
	path  string
	calls []callMark
	// checks are the checkpoints at or before the last call listed, in
	// order.
	checks []*historyCheck
}

// callMark is a model call's turn and number in its turn.
type callMark struct{ turn, call int32 }

// historyCheck is the fold at a turn's boundary: at is where the next line
// starts (a turn_start, or the line after a turn_end), call how many model
// calls came before it, entries how many transcript entries, and leftOff
// the left-off list of the last model_call line before it (a model_call
// line may carry its list as a change from that one).
type historyCheck struct {
	at            int64
	call, entries int
	st            *rulebook.State
	leftOff       []string
	inlineLeftOff bool
}

// historyIndex keeps the checkpoints of a session's journal, extended as
// the journal grows. It has its own lock, taken after the session's when
// both are held.
type historyIndex struct {
	mu     sync.Mutex
	path   string
	calls  []callMark
	checks []*historyCheck
}

// History returns the session's model calls, for stepping through them.
// It reads only what the journal gained since the last checkpoint.
func (s *Session) History() (*History, error) {
	path := s.journalPath()
	if path == "" {
		return nil, errors.New("history: this session keeps no journal")
	}
	ix := &s.hist
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.path != path {
		// a new journal (a cleared session), or one never indexed
		ix.path, ix.calls, ix.checks = path, nil, nil
	}
	if err := ix.extend(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return &History{path: path, calls: slices.Clip(ix.calls), checks: slices.Clip(ix.checks)}, nil
}

// Len is the number of model calls.
func (h *History) Len() int { return len(h.calls) }

// Call returns the turn of call i (0 is the session's first) and its
// number in that turn.
func (h *History) Call(i int) (turn, call int) {
	return int(h.calls[i].turn), int(h.calls[i].call)
}

// First returns the first call of a turn; ok is false when the turn made
// none.
func (h *History) First(turn int) (i int, ok bool) {
	i, found := slices.BinarySearchFunc(h.calls, int32(turn), func(c callMark, t int32) int { return int(c.turn - t) })
	return i, found
}

// At returns the state as call i went out, without its request (see
// Session.HistoryAt).
func (h *History) At(i int) (*Snapshot, error) {
	if i < 0 || i >= len(h.calls) {
		return nil, fmt.Errorf("history: call %d: the session has made %d", i+1, len(h.calls))
	}
	k, _ := slices.BinarySearchFunc(h.checks, i, func(c *historyCheck, i int) int { return c.call - i - 1 })
	if k == 0 {
		return nil, fmt.Errorf("history: call %d: no checkpoint before it", i+1)
	}
	var snap *Snapshot
	err := h.fold(h.checks[k-1], func(st *rulebook.State, mc *ModelCall, n int) bool {
		if n == i {
			snap = stateAtCall(st, mc)
		}
		return n < i
	})
	if err == nil && snap == nil {
		err = errors.New("the journal changed under the index")
	}
	if err != nil {
		return nil, fmt.Errorf("history: call %d: %w", i+1, err)
	}
	return snap, nil
}

// fold folds the journal from checkpoint c on, calling at after each
// model call with the state, the call and its index, until at returns
// false or the journal ends.
func (h *History) fold(c *historyCheck, at func(st *rulebook.State, mc *ModelCall, n int) bool) error {
	f, err := journal.OpenRegular(h.path)
	if err != nil {
		return err
	}
	defer f.Close()
	return foldFrom(f, c, func(st *rulebook.State, e Event, n int) bool {
		if mc, ok := e.(*ModelCall); ok {
			return at(st, mc, n)
		}
		return true
	}, nil)
}

// foldFrom folds the journal f from checkpoint c, on a copy of its state,
// calling each with every event folded (n is the index of the last model
// call) until it returns false; with check, it also takes a checkpoint before every turn_start
// checkEvery calls or more after the last, and folds on from it, so the
// transcript before it is not held.
func foldFrom(f io.ReaderAt, c *historyCheck, each func(st *rulebook.State, e Event, n int) bool, check func(*historyCheck)) error {
	jr := journal.NewReader(io.NewSectionReader(f, c.at, 1<<62), true, nil)
	jr.Codec().ForHistory(c.leftOff, c.inlineLeftOff)
	st, base, calls := c.st.Checkpoint(), c.entries, c.call
	var rep rulebook.Repairer
	var buf []Event
	for {
		e, err := jr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if _, ok := e.(*TurnStart); ok && check != nil && len(st.Calls) >= checkEvery {
			leftOff, inline := jr.Codec().LeftOff()
			next := &historyCheck{at: c.at + jr.Start(), call: calls + len(st.Calls), entries: base + st.Entries.Len(), st: st.Checkpoint(),
				leftOff: leftOff, inlineLeftOff: inline}
			check(next)
			st, base, calls = next.st.Checkpoint(), next.entries, next.call
		}
		buf = rep.Add(buf[:0], e)
		for _, x := range buf {
			st.Apply(x)
			// stamped as the whole fold would have: the state's last
			// turn_end carries its entry into later snapshots
			x.Head().Entry += base
			if !each(st, x, calls+len(st.Calls)-1) {
				return nil
			}
		}
	}
}

// extend folds what the journal gained since the last checkpoint, listing
// its calls and taking checkpoints.
func (ix *historyIndex) extend() error {
	f, err := journal.OpenRegular(ix.path)
	if err != nil {
		return err
	}
	defer f.Close()
	if len(ix.checks) == 0 {
		// the first checkpoint is an empty fold at the first line
		ix.checks = []*historyCheck{{st: rulebook.New("", "", DefaultSettings())}}
	}
	// the calls from the last checkpoint on are listed already up to a
	// point: only those past it are added, so a History handed out before
	// never sees its list change
	from := ix.checks[len(ix.checks)-1]
	return foldFrom(f, from, func(st *rulebook.State, e Event, n int) bool {
		if mc, ok := e.(*ModelCall); ok && n >= len(ix.calls) {
			ix.calls = append(ix.calls, callMark{turn: int32(mc.Turn), call: int32(mc.Call)})
		}
		return true
	}, func(c *historyCheck) { ix.checks = append(ix.checks, c) })
}

// checkAtTurnEnd returns what the journal at path tells of each turn_end
// line it writes: a live session takes time travel's checkpoints as it
// goes, so its first step back folds at most checkEvery calls however
// long it has run. The checkpoint is the state just after the turn_end,
// and is taken only when that is the state (nothing folded after it in
// the same step), which a fold from the next line then goes on from.
func (s *Session) checkAtTurnEnd(path string) func(e *TurnEnd, end int64, leftOff []string, inline bool) {
	return func(e *TurnEnd, end int64, leftOff []string, inline bool) {
		s.mu.Lock()
		st := s.st
		n := st.Marks.Len()
		if n == 0 || st.Marks.At(n-1) != Event(e) || st.Last != e || st.Running {
			s.mu.Unlock()
			return
		}
		ix := &s.hist
		ix.mu.Lock()
		defer ix.mu.Unlock()
		if ix.path != path {
			ix.path, ix.calls, ix.checks = path, nil, nil
		}
		if len(ix.checks) == 0 {
			ix.checks = []*historyCheck{{st: rulebook.New("", "", DefaultSettings())}}
		}
		last := ix.checks[len(ix.checks)-1]
		if len(st.Calls)-last.call < checkEvery || end <= last.at {
			s.mu.Unlock()
			return
		}
		c := &historyCheck{at: end, call: len(st.Calls), entries: st.Entries.Len(), st: st.Checkpoint(), leftOff: leftOff, inlineLeftOff: inline}
		for _, cr := range st.Calls[min(len(ix.calls), len(st.Calls)):] {
			ix.calls = append(ix.calls, callMark{turn: int32(cr.Turn), call: int32(cr.Call)})
		}
		s.mu.Unlock()
		ix.checks = append(ix.checks, c)
	}
}

// note keeps the calls and checkpoints a reopening fold of the journal at
// path listed and took, for time travel to start from.
func (ix *historyIndex) note(path string, calls []callMark, checks []*historyCheck) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.path, ix.calls, ix.checks = path, calls, checks
}

// HistoryAt returns the state as call i of History went out, whole: snap
// (History.At(i)) with the instructions, <current_context>, tools and
// window of the request it carried, read back from the journal.
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
