package harness

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"path/filepath"

	"skillet/harness/event"
	"skillet/harness/paged"
	"skillet/harness/share"
	"skillet/harness/tokens"
	"skillet/harness/view"
)

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
	return view.WithRequest(snap, rec.Request, tokens.CountEstimate), nil
}

// checkAtTurnEnd returns what the journal at path tells of each turn_end
// line it writes (see view.Index.AtTurnEnd). The checkpoint is the state
// just after the turn_end, and is taken only when that is the state
// (nothing folded after it in the same step), which a fold from the next
// line then goes on from.
func (s *Session) checkAtTurnEnd(path string) func(e *event.TurnEnd, end int64, leftOff []string, inline bool) {
	return func(e *event.TurnEnd, end int64, leftOff []string, inline bool) {
		s.mu.Lock()
		st := s.st
		n := st.Marks.Len()
		if n == 0 || st.Marks.At(n-1) != event.Event(e) || st.Last != e || st.Running {
			s.mu.Unlock()
			return
		}
		s.hist.AtTurnEnd(path, st, end, leftOff, inline)
		var store func() error
		if end-s.snap.at >= snapshotEvery && end >= snapshotMin && filepath.Join(s.dir, JournalFile) == path {
			store, _ = s.snapshotLocked(end) // a snapshot is a cache: none is no harm
		}
		s.mu.Unlock()
		if store != nil {
			_ = store()
		}
	}
}

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
