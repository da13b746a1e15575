package view

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"skillet/harness/event"
	"skillet/harness/journal"
	"skillet/harness/rulebook"
)

// CheckEvery is how many model calls apart time travel's checkpoints are:
// the state at any call is at most this many calls' events folded from
// the checkpoint before it.
const CheckEvery = 64

// History is the session as it was at each of its model calls, for
// stepping back through it (time travel): folded from the journal, not
// re-run. At gives the loaded set, preloads, limits, turn and left-off
// list of the state as a call went out; WithRequest adds the
// instructions, <current_context>, tools and window of the request the
// model got, byte for byte. Neither the calls' states nor the journal's
// events are held: a state is folded on asking from the checkpoint before
// it (a copy of the fold without its transcript, one every CheckEvery
// calls, taken as the session's turns ended, as it reopened, or as time
// travel first read that far).
type History struct {
	path  string
	calls []CallMark
	// checks are the checkpoints at or before the last call listed, in
	// order.
	checks []*Checkpoint
}

// CallMark is a model call's turn and number in its turn.
type CallMark struct{ Turn, Call int32 }

// Checkpoint is the fold at a turn's boundary: At is where the next line
// starts (a turn_start, or the line after a turn_end), Call how many model
// calls came before it, Entries how many transcript entries, and LeftOff
// the left-off list of the last model_call line before it, InlineLeftOff
// whether that line carried it whole (a model_call line may carry its list
// as a change from the one before; see journal.Codec.LeftOff).
type Checkpoint struct {
	At            int64
	Call, Entries int
	State         *rulebook.State
	LeftOff       []string
	InlineLeftOff bool
}

// Index keeps the checkpoints of a session's journal, extended as the
// journal grows. It has its own lock, taken after the session's when both
// are held. The zero Index is empty.
type Index struct {
	mu     sync.Mutex
	path   string
	calls  []CallMark
	checks []*Checkpoint
}

// History returns the model calls of the journal at path, for stepping
// through them. It reads only what the journal gained since the last
// checkpoint; a path other than the one indexed starts the index again.
func (ix *Index) History(path string) (*History, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.reset(path)
	if err := ix.extend(); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return &History{path: path, calls: slices.Clip(ix.calls), checks: slices.Clip(ix.checks)}, nil
}

// reset starts the index again for a journal it has not indexed (a new
// one, of a cleared session), with the empty fold at its first line.
func (ix *Index) reset(path string) {
	if ix.path != path {
		ix.path, ix.calls, ix.checks = path, nil, nil
	}
	if len(ix.checks) == 0 {
		ix.checks = []*Checkpoint{{State: rulebook.New("", "", event.DefaultSettings())}}
	}
}

// Note keeps the calls and checkpoints a fold of the journal at path (a
// session reopening) listed and took, for time travel to start from.
func (ix *Index) Note(path string, calls []CallMark, checks []*Checkpoint) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.path, ix.calls, ix.checks = path, calls, checks
}

// AtTurnEnd takes a checkpoint of st, the state just after a turn_end
// line of the journal at path that ends at end, with the left-off list
// the journal's codec holds there: a live session takes time travel's
// checkpoints as it goes, so its first step back folds at most CheckEvery
// calls however long it has run. It takes none until CheckEvery calls
// past the last. The caller holds what guards st.
func (ix *Index) AtTurnEnd(path string, st *rulebook.State, end int64, leftOff []string, inline bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.reset(path)
	last := ix.checks[len(ix.checks)-1]
	if len(st.Calls)-last.Call < CheckEvery || end <= last.At {
		return
	}
	c := &Checkpoint{At: end, Call: len(st.Calls), Entries: st.Entries.Len(), State: st.Checkpoint(), LeftOff: leftOff, InlineLeftOff: inline}
	for _, cr := range st.Calls[min(len(ix.calls), len(st.Calls)):] {
		ix.calls = append(ix.calls, CallMark{Turn: int32(cr.Turn), Call: int32(cr.Call)})
	}
	ix.checks = append(ix.checks, c)
}

// Checkpoints is how many checkpoints the index holds.
func (ix *Index) Checkpoints() int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return len(ix.checks)
}

// Len is the number of model calls.
func (h *History) Len() int { return len(h.calls) }

// Checkpoints is how many checkpoints the history folds from.
func (h *History) Checkpoints() int { return len(h.checks) }

// Call returns the turn of call i (0 is the session's first) and its
// number in that turn.
func (h *History) Call(i int) (turn, call int) {
	return int(h.calls[i].Turn), int(h.calls[i].Call)
}

// First returns the first call of a turn; ok is false when the turn made
// none.
func (h *History) First(turn int) (i int, ok bool) {
	i, found := slices.BinarySearchFunc(h.calls, int32(turn), func(c CallMark, t int32) int { return int(c.Turn - t) })
	return i, found
}

// At returns the state as call i went out, without its request (see
// WithRequest).
func (h *History) At(i int) (*Snapshot, error) {
	if i < 0 || i >= len(h.calls) {
		return nil, fmt.Errorf("history: call %d: the session has made %d", i+1, len(h.calls))
	}
	k, _ := slices.BinarySearchFunc(h.checks, i, func(c *Checkpoint, i int) int { return c.Call - i - 1 })
	if k == 0 {
		return nil, fmt.Errorf("history: call %d: no checkpoint before it", i+1)
	}
	var snap *Snapshot
	err := h.fold(h.checks[k-1], func(st *rulebook.State, mc *event.ModelCall, n int) bool {
		if n == i {
			snap = AtCall(st, mc)
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
func (h *History) fold(c *Checkpoint, at func(st *rulebook.State, mc *event.ModelCall, n int) bool) error {
	f, err := journal.OpenRegular(h.path)
	if err != nil {
		return err
	}
	defer f.Close()
	return foldFrom(f, c, func(st *rulebook.State, e event.Event, n int) bool {
		if mc, ok := e.(*event.ModelCall); ok {
			return at(st, mc, n)
		}
		return true
	}, nil)
}

// foldFrom folds the journal f from checkpoint c, on a copy of its state,
// calling each with every event folded (n is the index of the last model
// call) until it returns false; with check, it also takes a checkpoint
// before every turn_start CheckEvery calls or more after the last, and
// folds on from it, so the transcript before it is not held.
func foldFrom(f io.ReaderAt, c *Checkpoint, each func(st *rulebook.State, e event.Event, n int) bool, check func(*Checkpoint)) error {
	jr := journal.NewReader(io.NewSectionReader(f, c.At, 1<<62), true, nil)
	jr.Codec().ForHistory(c.LeftOff, c.InlineLeftOff)
	st, base, calls := c.State.Checkpoint(), c.Entries, c.Call
	var rep rulebook.Repairer
	var buf []event.Event
	for {
		e, err := jr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if _, ok := e.(*event.TurnStart); ok && check != nil && len(st.Calls) >= CheckEvery {
			leftOff, inline := jr.Codec().LeftOff()
			next := &Checkpoint{At: c.At + jr.Start(), Call: calls + len(st.Calls), Entries: base + st.Entries.Len(), State: st.Checkpoint(),
				LeftOff: leftOff, InlineLeftOff: inline}
			check(next)
			st, base, calls = next.State.Checkpoint(), next.Entries, next.Call
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
func (ix *Index) extend() error {
	f, err := journal.OpenRegular(ix.path)
	if err != nil {
		return err
	}
	defer f.Close()
	// the calls from the last checkpoint on are listed already up to a
	// point: only those past it are added, so a History handed out before
	// never sees its list change
	from := ix.checks[len(ix.checks)-1]
	return foldFrom(f, from, func(st *rulebook.State, e event.Event, n int) bool {
		if mc, ok := e.(*event.ModelCall); ok && n >= len(ix.calls) {
			ix.calls = append(ix.calls, CallMark{Turn: int32(mc.Turn), Call: int32(mc.Call)})
		}
		return true
	}, func(c *Checkpoint) { ix.checks = append(ix.checks, c) })
}

// AtCall is the snapshot of a model call's state as it went out, st being
// the fold just after its model_call event.
func AtCall(st *rulebook.State, mc *event.ModelCall) *Snapshot {
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

// WithRequest is snap, a call's state from History.At, with the
// instructions, <current_context>, tools and window of the request it
// carried as recorded, and their tokens estimated with estimate.
func WithRequest(snap *Snapshot, request []byte, estimate func(string) int) *Snapshot {
	full := *snap
	if req, ok := rulebook.ParseRequest(request); ok {
		full.Instructions, full.Context = req.Instructions, req.Context
		for _, t := range req.Declared() {
			src, skill := sourceAt(&full, t.Name)
			full.Tools = append(full.Tools, event.ToolInfo{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Source: src, Skill: skill})
		}
		full.Window.InWindow = len(req.Messages)
	}
	full.InstructionTokens = estimate(full.Instructions)
	full.RequestTokens = estimate(string(request))
	return &full
}

func historyLoaded(ls *rulebook.Loaded, active bool) LoadedSkill {
	return LoadedSkill{Name: ls.Name, Version: ls.Version, ExecutionID: ls.ExecID, Active: active, Tokens: ls.Tokens, Changed: ls.Changed,
		By: ls.By, LoadedTurn: ls.LoadedTurn, Tools: append([]string{}, ls.Tools...), State: ls.State}
}

// sourceAt says where a tool of a recorded request came from: a loaded
// skill's, a built-in, else the agent's.
func sourceAt(snap *Snapshot, name string) (event.ToolSource, string) {
	for _, ls := range append(append([]LoadedSkill{}, snap.Loaded...), snap.Preloaded...) {
		for _, t := range ls.Tools {
			if n, _, _ := strings.Cut(t, "@"); n == name {
				return event.SourceSkill, ls.Name
			}
		}
	}
	if name == rulebook.ToolLoadSkill || name == rulebook.ToolReadResource {
		return event.SourceBuiltIn, ""
	}
	return event.SourceAgent, ""
}

// Checks returns the checkpoints the index holds of the journal at path
// up to offset end, for storing with the fold; nil when it indexes
// another journal.
func (ix *Index) Checks(path string, end int64) []*Checkpoint {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.path != path {
		return nil
	}
	var out []*Checkpoint
	for _, c := range ix.checks {
		if c.At <= end {
			out = append(out, c)
		}
	}
	return out
}
