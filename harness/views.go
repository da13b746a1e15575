// Code in this file hands out the session's read models (package view):
// each is copied under the lock and built, counted or read after it.

package harness

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"time"

	"skillet/harness/event"
	"skillet/harness/paged"
	"skillet/harness/rulebook"
	"skillet/harness/share"
	"skillet/harness/view"
)

// Snapshot returns what the UI shows: the loaded set, the exact
// instructions and tools of the next request, the window and this turn's
// use of each limit. It never starts a tool server.
//
// While the tokenizer's tables load, token counts are estimates and
// Snapshot.Estimated says so; a later snapshot has the exact ones.
func (s *Session) Snapshot() *view.Snapshot { return s.snapshot(false) }

// snapshot takes a snapshot; exact waits for the tokenizer's tables.
// What the state holds is copied under the lock; tokens are counted, the
// catalog's skills described and tool servers asked after releasing it.
func (s *Session) snapshot(exact bool) *view.Snapshot {
	locked := read(s, (*frame).snapLocked)
	var estimated bool
	count := func(text string) int {
		if exact {
			return s.tok.count(text)
		}
		return s.tok.countNow(text, &estimated)
	}
	snap := locked.snap
	view.Counted(snap, locked.c, count, s.opts.Tokenizer.Name(), locked.unsent, locked.reported)
	locked.cat.Chars = s.tok.skillChars
	snap.Skills = view.SkillStatuses(locked.cat)
	snap.MCP = mcpInfo(&s.opts)
	snap.Estimated = estimated
	return snap
}

// snapLocked is the part of a snapshot taken under the lock: the
// composition, the fields that need no counting, and what the counting
// and the skills' statuses need of the state, copied.
type snapLocked struct {
	c    *rulebook.Next
	snap *view.Snapshot
	cat  view.SkillSet
	// unsent are the notes waiting for the next user message; reported
	// the last call whose usage the endpoint reported.
	unsent   string
	reported *rulebook.CallRecord
}

func (f *frame) snapLocked() snapLocked {
	c := rulebook.ComposeNext(f.st, f.w.World)
	l := snapLocked{c: c, unsent: strings.Join(f.st.Unsent, "\n"),
		cat:  view.SkillSet{Catalog: f.opts.Catalog, Sel: f.w.Sel, Loaded: map[string]bool{}, Limits: f.st.Settings},
		snap: view.Live(f.st, f.w.World, c, view.Origin{BaseURL: f.opts.BaseURL, Demo: f.opts.Demo, Notices: f.w.notices})}
	for _, ls := range f.st.Loaded {
		l.cat.Loaded[ls.Name] = true
	}
	for i := len(f.st.Calls) - 1; i >= 0; i-- {
		if cr := f.st.Calls[i]; cr.Usage != nil {
			l.reported = &cr
			break
		}
	}
	return l
}

func mcpInfo(o *Options) []view.MCPServerInfo {
	var out []view.MCPServerInfo
	for _, st := range o.Runner.MCPStatuses() {
		info := view.MCPServerInfo{Name: st.Name, Target: st.Target, Log: st.Log, State: string(st.State), Why: st.Why, Tools: st.Tools, Launches: st.Launches}
		if !st.NextTry.IsZero() {
			info.NextTry = st.NextTry.UTC().Format(time.RFC3339)
		}
		out = append(out, info)
	}
	return out
}

// State returns the session's state view.
func (s *Session) State() *view.StateView {
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
func (s *Session) StateTurns() (*view.StateView, iter.Seq[view.TurnView]) {
	v := view.NewStateView(s.snapshot(true)) // the state is exact, whatever the tables
	ends := read(s, func(f *frame) paged.List[*event.TurnEnd] { return v.Read(f.st) })
	return v, view.Turns(ends)
}

// History returns the session's model calls, for stepping through them.
// It reads only what the journal gained since the last checkpoint.
func (s *Session) History() (*view.History, error) {
	path := s.journalPath()
	if path == "" {
		return nil, errors.New("history: this session keeps no journal")
	}
	return s.hist.History(path)
}

// HistoryAt returns the state as call i of History went out, whole: snap
// (History.At(i)) with the instructions, <current_context>, tools and
// window of the request it carried, read back from the journal.
func (s *Session) HistoryAt(snap *view.Snapshot, i int) (*view.Snapshot, error) {
	rec, err := s.ModelCall(i)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if rec.Turn != snap.Turn || rec.Call != snap.Call {
		return nil, fmt.Errorf("history: model call %d is turn %d call %d, not turn %d call %d", i+1, rec.Turn, rec.Call, snap.Turn, snap.Call)
	}
	return view.WithRequest(snap, rec.Request, CountEstimate), nil
}

// checkAtTurnEnd returns what the journal at path tells of each turn_end
// line it writes (see view.Index.AtTurnEnd). The checkpoint is the state
// just after the turn_end, and is taken only when that is the state
// (nothing folded after it in the same step), which a fold from the next
// line then goes on from.
func (s *Session) checkAtTurnEnd(path string) func(e *event.TurnEnd, end int64, leftOff []string, inline bool) {
	return func(e *event.TurnEnd, end int64, leftOff []string, inline bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		st := s.st
		n := st.Marks.Len()
		if n == 0 || st.Marks.At(n-1) != event.Event(e) || st.Last != e || st.Running {
			return
		}
		s.hist.AtTurnEnd(path, st, end, leftOff, inline)
	}
}

// EstimateTokens estimates the tokens of text without the tokenizer's
// tables, as the inspector counts a recorded request's parts.
func (s *Session) EstimateTokens(text string) int { return CountEstimate(text) }

// ExportMarkdown writes the session's transcript as Markdown (/export; see
// view.WriteMarkdown).
func (s *Session) ExportMarkdown(w io.Writer) error {
	x := read(s, func(f *frame) *view.Markdown { return view.MarkdownOf(f.st, f.opts.BaseURL, f.opts.Demo) })
	return view.WriteMarkdown(w, x)
}

// ExportCast writes the session as an asciicast v2 recording (see
// share.WriteCast), read from its journal as written so far.
func (s *Session) ExportCast(w io.Writer) error {
	sh, err := s.shared()
	if err != nil {
		return err
	}
	return share.WriteCast(w, sh)
}

// ExportHTML writes the session as a self-contained HTML replay with the
// panes at every model call (see share.WriteHTML).
func (s *Session) ExportHTML(w io.Writer) error {
	sh, err := s.shared()
	if err != nil {
		return err
	}
	return share.WriteHTML(w, sh)
}

// shared folds the session's own journal for sharing: the journal, not the
// live state, holds every event's time.
func (s *Session) shared() (*share.Session, error) {
	path := s.journalPath()
	if path == "" {
		return nil, errors.New("this session keeps no journal to export from")
	}
	return view.ShareJournal(path)
}
