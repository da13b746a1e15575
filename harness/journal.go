package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"skillet/harness/event"
	"skillet/harness/journal"
	"skillet/harness/rulebook"
	"skillet/harness/view"
	"slices"
)

// JournalFile is the journal's name inside a session's folder.
const JournalFile = journal.FileName

// Open reopens a session from its journal (a journal.jsonl file or the
// session's folder) with the same transcript, loaded skills, stores and
// counters; new events append to the same journal. Options are as for New;
// Options.Dir is ignored.
func Open(path string, opts Options) (*Session, error) {
	s, _, err := reopen(path, opts, false)
	return s, err
}

// Inspect folds a journal into a session that writes nothing — no journal
// line, no state or store file — for looking at it (skillet show). It
// returns the journal lines that were skipped, and why.
func Inspect(path string, opts Options) (*Session, []string, error) {
	return reopen(path, opts, true)
}

// reopen is fold, then repair what a crash left open, then sync with
// today's disk; readOnly keeps all of it in memory. The journal streams
// through the fold a line at a time: no event is held once folded.
func reopen(path string, opts Options, readOnly bool) (*Session, []string, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, JournalFile)
	}
	f, err := journal.OpenRegular(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reopen session: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if opts.OnProgress != nil {
		r = newProgressReader(f, 0, f, opts.OnProgress)
	}
	jr := journal.NewReader(r, true, f)
	first, err := jr.Next()
	switch {
	case err == io.EOF && len(jr.Problems()) > 0:
		return nil, jr.Problems(), fmt.Errorf("reopen session %s: no line of the journal is an event (%s)", path, jr.Problems()[0])
	case err == io.EOF:
		return nil, nil, fmt.Errorf("reopen session %s: the journal holds no events", path)
	case err != nil:
		return nil, jr.Problems(), fmt.Errorf("reopen session %s: %w", path, err)
	}
	start, ok := first.(*event.SessionStart)
	if !ok {
		return nil, jr.Problems(), fmt.Errorf("reopen session %s: the journal does not begin with session_start", path)
	}
	opts.CatalogOnly = opts.CatalogOnly || start.CatalogOnly // it selects as it did
	dir := filepath.Dir(path)
	// a new session (/clear) goes beside this one
	opts.Dir = filepath.Dir(dir)
	if readOnly {
		opts.Dir = ""
	}
	s, err := newSession(opts)
	if err != nil {
		return nil, jr.Problems(), err
	}
	s.mu.Lock()
	s.reset(start.SessionID)
	s.dir, s.readOnly = dir, readOnly
	fold := &reopenFold{st: s.st, codec: jr.Codec(), src: f}
	rep := &rulebook.Repairer{}
	var prior []string // the lines the snapshot's fold skipped
	if snap, err := loadSnapshot(dir, f, start.SessionID); err == nil {
		// the stored fold up to its offset; only the lines after it are read
		off := snap.key.Offset
		var tail io.Reader = io.NewSectionReader(f, off, 1<<62)
		if opts.OnProgress != nil {
			tail = newProgressReader(tail, off, f, opts.OnProgress)
		}
		s.st = snap.st
		jr = journal.ResumeReader(tail, off, snap.key.Lines, snap.body.Codec, snap.body.Index.Blobs, f)
		fold = &reopenFold{st: s.st, codec: jr.Codec(), src: f, positions: snap.body.Index.Calls, frames: snap.body.Index.Frames,
			calls: callMarks(s.st.Calls), checks: snap.checks}
		if n := len(snap.checks); n > 0 {
			fold.since = len(s.st.Calls) - snap.checks[n-1].Call
		}
		rep = rulebook.ResumeRepairer(snap.body.Repair)
		prior = snap.body.Problems
		s.snap.at, s.snap.resumedAt, s.snap.lines = off, off, foldLines{at: off, lines: snap.key.Lines}
		if first, err = jr.Next(); err != nil && err != io.EOF {
			s.mu.Unlock()
			return nil, append(prior, jr.Problems()...), fmt.Errorf("reopen session %s: %w", path, err)
		}
	}
	var buf []event.Event
	for e := first; e != nil; {
		buf = rep.Add(buf[:0], e)
		for _, x := range buf {
			fold.apply(x, jr)
		}
		if e, err = jr.Next(); err == io.EOF {
			break
		} else if err != nil {
			s.mu.Unlock()
			return nil, append(prior, jr.Problems()...), fmt.Errorf("reopen session %s: %w", path, err)
		}
	}
	repairs, tail := rep.End()
	skipped := append(prior, jr.Problems()...)
	problems := append(slices.Clip(skipped), fold.finish()...)
	f.Close()
	s.hist.Note(path, fold.calls, fold.checks)
	codec := jr.Codec()
	// what a snapshot taken later says again: the lines skipped before
	// the journal's end (a torn last line is cut off as the writer opens)
	if codec.Torn() > 0 && len(skipped) > 0 {
		skipped = skipped[:len(skipped)-1]
	}
	s.snap.problems, s.snap.notes = slices.Clip(skipped), slices.Clone(repairs)
	if codec.Torn() == 0 {
		// counted as read, so a snapshot need not count them again
		s.snap.lines = foldLines{at: jr.At(), lines: jr.Lines()}
	}
	if !readOnly {
		// where each call's lines are, for reading back what memory no
		// longer holds; the lines past what was read are indexed as asked
		end := jr.At()
		if codec.Torn() > 0 {
			end = codec.Torn()
		}
		s.calls.Seed(path, end, fold.positions, codec.RawAt(), fold.frames, codec.LastMsgs())
	}
	switchModel := s.opts.ModelName != "" && s.opts.ModelName != s.st.Model
	unfinished := s.st.Cur != nil && !s.st.Cur.Ended
	if !readOnly {
		j, err := journal.OpenWriter(path, codec)
		if err != nil {
			s.mu.Unlock()
			return nil, problems, err
		}
		j.TurnEnded = s.checkAtTurnEnd(path)
		s.journal = j
	}
	prevWS := s.st.Workspace
	agentOn := s.st.Settings.AgentTools && prevWS != nil && !s.opts.RoutingOnly
	s.mu.Unlock()
	if !readOnly {
		for _, why := range s.materialize() {
			s.warn(why)
		}
	}
	if !readOnly && agentOn {
		a, notices, err := s.openAgent(dir, prevWS)
		if err != nil {
			s.warn(fmt.Sprintf("the agent tools are off: %v", err))
		} else {
			s.with(func(f *frame) {
				f.w.agent = a
				f.w.notices = append(f.w.notices, notices...)
			})
		}
	}
	for _, p := range problems {
		s.warn("journal " + p + " was skipped")
	}
	for _, r := range repairs {
		s.warn("journal repaired: " + r)
	}
	// A turn cut short by a crash keeps a valid transcript: every call
	// gets a result (one that was running may have run), and the turn is
	// closed.
	for _, r := range tail {
		s.emit(r)
	}
	if unfinished {
		s.finishTurn(event.StopInterrupted)
	}
	// fold, then reconcile with today's disk: what changed is named
	s.syncSkills()
	if switchModel {
		// the model this skillet talks to, recorded so a replay agrees
		s.emit(&event.SettingChanged{Key: "model", Value: s.opts.ModelName})
	}
	return s, problems, s.syncJournal()
}

// reopenFold folds a journal's events into a reopened session's state as
// they stream, puts together the bodies the state keeps (the first call's
// request, and the latest rulebook.KeepCallBodies calls' requests and raw
// replies) and takes time travel's checkpoints on the way.
type reopenFold struct {
	st    *rulebook.State
	codec *journal.Codec
	// src is the journal, for reading back what the fold left off
	src io.ReaderAt
	// recent are the latest calls, by their index in st.Calls, with the
	// compressed reply of each, to put together once the fold ends.
	recent   []recentCall
	problems []string
	calls    []view.CallMark
	checks   []*view.Checkpoint
	// since is how many calls were folded since the last checkpoint.
	since int
	// positions are where each call's lines start, and frames the
	// message blobs of every FrameEvery-th call, for the call index.
	positions []journal.CallPos
	frames    [][]journal.BlobKey
}

type recentCall struct {
	i     int
	mc    *event.ModelCall
	reply *event.Assistant
	// cut says the decode left the reply's raw field off its line, which
	// starts at rawAt: read back at the end for the few calls kept, rather
	// than copied for every call on the way
	cut   bool
	rawAt int64
}

func (rf *reopenFold) apply(e event.Event, jr *journal.Reader) {
	switch e := e.(type) {
	case *event.TurnStart:
		if len(rf.checks) == 0 || rf.since >= view.CheckEvery {
			// before the turn_start line: the fold from here needs what
			// the codec knows of the left-off list
			leftOff, inline := rf.codec.LeftOff()
			rf.checks = append(rf.checks, &view.Checkpoint{At: jr.Start(), Call: len(rf.st.Calls), Entries: rf.st.Entries.Len(), State: rf.st.Checkpoint(),
				LeftOff: leftOff, InlineLeftOff: inline})
			rf.since = 0
		}
	case *event.ModelCall:
		if len(rf.st.Calls) == 0 {
			// the first request: a journal from before prompt_frozen
			// freezes it
			if err := rf.codec.Resolve(e); err != nil {
				rf.problems = append(rf.problems, err.Error())
			}
		}
		rf.calls = append(rf.calls, view.CallMark{Turn: int32(e.Turn), Call: int32(e.Call)})
		rf.since++
	case *event.Assistant:
		if e.Manual {
			err := rf.codec.TakeRaw(e)
			if err == nil {
				err = journal.Unzip(e)
			}
			if err != nil {
				rf.problems = append(rf.problems, err.Error())
			}
		}
	}
	rf.st.Apply(e)
	switch e := e.(type) {
	case *event.ModelCall:
		if len(rf.positions)%journal.FrameEvery == 0 {
			rf.frames = append(rf.frames, journal.BlobKeys(rf.codec.LastMsgs()))
		}
		rf.positions = append(rf.positions, journal.CallPos{At: jr.Start(), Reply: -1})
		if len(rf.recent) == rulebook.KeepCallBodies {
			rf.recent = append(rf.recent[:0], rf.recent[1:]...)
		}
		rf.recent = append(rf.recent, recentCall{i: len(rf.st.Calls) - 1, mc: e})
	case *event.Assistant:
		if n := len(rf.positions); n > 0 && !e.Manual && rf.positions[n-1].Reply < 0 {
			rf.positions[n-1].Reply = jr.Start()
		}
		if n := len(rf.recent); n > 0 && !e.Manual && rf.recent[n-1].i == len(rf.st.Calls)-1 {
			rf.recent[n-1].reply = e
			if _, ok := rf.codec.PendingRaw(e); ok {
				rf.recent[n-1].cut, rf.recent[n-1].rawAt = true, jr.Start()
			}
		}
	}
}

// finish puts together the recent calls' bodies and returns what could not
// be read.
func (rf *reopenFold) finish() []string {
	for _, rc := range rf.recent {
		cr := &rf.st.Calls[rc.i]
		if rc.mc.Ref != nil {
			if err := rf.codec.Resolve(rc.mc); err != nil {
				rf.problems = append(rf.problems, err.Error())
			} else {
				cr.Request = rc.mc.Request
			}
		}
		if a := rc.reply; a != nil && (rc.cut || a.RawGzip != "") {
			var err error
			if rc.cut {
				err = rf.readRaw(a, rc.rawAt)
			}
			if err == nil {
				err = journal.Unzip(a)
			}
			if err != nil {
				rf.problems = append(rf.problems, err.Error())
			} else {
				cr.Reply = a.Raw
			}
		}
	}
	rf.recent = nil
	return rf.problems
}

// readRaw puts back the raw reply the decode left off a's line, which
// starts at at.
func (rf *reopenFold) readRaw(a *event.Assistant, at int64) error {
	line, err := journal.LineAt(rf.src, at)
	if err != nil {
		return fmt.Errorf("assistant reply of call %d: %w", a.Call, err)
	}
	e, err := event.Unmarshal(line)
	if err != nil {
		return fmt.Errorf("assistant reply of call %d: %w", a.Call, err)
	}
	full, ok := e.(*event.Assistant)
	if !ok || full.Call != a.Call {
		return fmt.Errorf("assistant reply of call %d: the journal changed while it was read", a.Call)
	}
	a.Raw, a.RawGzip = full.Raw, full.RawGzip
	return nil
}

// progressReader tells how much of a file has been read as it is read.
type progressReader struct {
	r           io.Reader
	done, total int64
	report      func(done, total int64)
}

// newProgressReader reports the reading of r, which yields f's bytes from
// offset done on.
func newProgressReader(r io.Reader, done int64, f *os.File, report func(done, total int64)) *progressReader {
	p := &progressReader{r: r, done: done, report: report}
	if fi, err := f.Stat(); err == nil {
		p.total = fi.Size()
	}
	report(done, p.total)
	return p
}

// callMarks are the turn and number of each call, as time travel lists
// them.
func callMarks(calls []rulebook.CallRecord) []view.CallMark {
	out := make([]view.CallMark, len(calls))
	for i, c := range calls {
		out[i] = view.CallMark{Turn: int32(c.Turn), Call: int32(c.Call)}
	}
	return out
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	// a journal that grew since the stat is still a whole one
	p.total = max(p.total, p.done)
	p.report(p.done, p.total)
	return n, err
}

// PeekSession reads the session_start event of a journal (a journal.jsonl
// file or a session's folder), to learn where its skills came from before
// reopening it.
func PeekSession(path string) (*event.SessionStart, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, JournalFile)
	}
	f, err := journal.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", path, err)
	}
	defer f.Close()
	first, err := journal.NewLineReader(f, 0).Next()
	var tooLong *journal.LineTooLongError
	if errors.As(err, &tooLong) {
		return nil, fmt.Errorf("read session %s: %w", path, err)
	}
	if len(bytes.TrimSpace(first)) == 0 {
		return nil, fmt.Errorf("read session %s: the journal is empty", path)
	}
	e, err := event.Unmarshal(bytes.TrimSpace(first))
	if err != nil {
		return nil, fmt.Errorf("read session %s: line 1: %w", path, err)
	}
	start, ok := e.(*event.SessionStart)
	if !ok {
		return nil, fmt.Errorf("read session %s: the journal does not begin with session_start", path)
	}
	return start, nil
}

// ModelCall returns model call i (0 is the session's first) with its exact
// request and raw reply, reading them from the journal when memory no
// longer holds them.
func (s *Session) ModelCall(i int) (rulebook.CallRecord, error) {
	var n int
	rec := read(s, func(f *frame) rulebook.CallRecord {
		n = len(f.st.Calls)
		if i >= 0 && i < n {
			return f.st.Calls[i]
		}
		return rulebook.CallRecord{}
	})
	switch {
	case i < 0 || i >= n:
		return rulebook.CallRecord{}, fmt.Errorf("model call %d: the session has made %d", i+1, n)
	case rec.Request != nil:
		return rec, nil
	}
	path := s.journalPath()
	if path == "" {
		return rec, fmt.Errorf("model call %d: its request is not kept and the session keeps no journal", i+1)
	}
	req, reply, err := s.calls.Body(path, i)
	if err != nil {
		return rec, fmt.Errorf("model call %d: %w", i+1, err)
	}
	rec.Request = req
	if rec.Reply == "" {
		rec.Reply = reply
	}
	return rec, nil
}
