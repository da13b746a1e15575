package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"skillet/harness/event"
	"skillet/harness/rulebook"
	"sync"
)

// JournalFile is the journal's name inside a session's folder.
const JournalFile = "journal.jsonl"

// journal appends events as JSON lines as they happen and syncs them to disk
// at each turn's end, so a crash loses at most the turn in flight.
type journal struct {
	mu sync.Mutex
	f  *os.File
	// codec knows what earlier lines hold (see journalcodec.go).
	codec *journalCodec
	// buf gathers an event's lines for one write; it is reused.
	buf []byte
	// size is where the next line starts, -1 once a write failed (a line
	// may be torn there).
	size int64
	// turnEnded, when set, is told of each turn_end line written, with
	// where the line after it starts and what the codec knows of the
	// left-off list there (see Session.checkAtTurnEnd).
	turnEnded func(e *TurnEnd, end int64, leftOff []string, inline bool)
}

// openJournal opens a journal for appending; codec is what reading it
// learned, nil for a new one.
func openJournal(path string, codec *journalCodec) (*journal, error) {
	if codec == nil {
		codec = newJournalCodec()
	}
	// what reading learned: only which blobs exist
	for _, hashes := range []iter.Seq[string]{maps.Keys(codec.blobs), maps.Keys(codec.raw), maps.Keys(codec.rawAt)} {
		for h := range hashes {
			if k, ok := keyOf(h); ok {
				codec.written[k] = struct{}{}
			}
		}
	}
	codec.blobs, codec.raw, codec.rawAt, codec.src, codec.texts = map[string][]byte{}, nil, nil, nil, nil
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	if err := lockJournal(f); err != nil {
		f.Close()
		return nil, err
	}
	// a crash can leave a torn last line that does not read: it is cut
	// off, said once by the reopening that found it rather than at every
	// reopening after; a last line that read but lacks its newline gets one
	if codec.torn > 0 {
		if err := f.Truncate(codec.torn); err != nil {
			f.Close()
			return nil, fmt.Errorf("open journal: cut its torn last line: %w", err)
		}
	} else if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			if _, err := f.Write([]byte("\n")); err != nil {
				f.Close()
				return nil, fmt.Errorf("open journal: %w", err)
			}
		}
	}
	j := &journal{f: f, codec: codec}
	if fi, err := f.Stat(); err == nil {
		j.size = fi.Size()
	}
	return j, nil
}

func (j *journal) write(e Event) error {
	j.mu.Lock()
	if j.f == nil {
		j.mu.Unlock()
		return errors.New("journal is closed")
	}
	lines, err := j.codec.encode(e)
	if err != nil {
		j.mu.Unlock()
		return err
	}
	buf := j.buf[:0]
	for _, l := range lines {
		buf = append(append(buf, l...), '\n')
	}
	if cap(buf) <= 1<<20 {
		j.buf = buf
	}
	n, err := j.f.Write(buf)
	if j.size >= 0 {
		j.size += int64(n)
	}
	if err != nil {
		j.size = -1 // where lines start is unknown from here on
		j.mu.Unlock()
		return fmt.Errorf("write journal: %w", err)
	}
	told, end := j.turnEnded, j.size
	leftOff, inline := j.codec.lastLeftOff, j.codec.inlineLeftOff
	j.mu.Unlock()
	if te, ok := e.(*TurnEnd); ok && told != nil && end > 0 {
		told(te, end, leftOff, inline)
	}
	return nil
}

func (j *journal) sync() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("sync journal: %w", err)
	}
	return nil
}

func (j *journal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Sync()
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	j.f = nil
	return err
}

// ReadJournal decodes a journal. A line that does not decode (a torn last
// line after a crash, say) is skipped and named in the returned problems;
// everything else is kept. A line longer than MaxLine is an error.
func ReadJournal(r io.Reader) ([]Event, []string, error) {
	events, problems, _, err := readJournal(r)
	return events, problems, err
}

// ReadJournalLite decodes a journal like ReadJournal but leaves out what
// says nothing of the rule book's decisions and makes most of a long
// session's bytes: model calls come without their request body, and long
// raw replies without their text.
func ReadJournalLite(r io.Reader) ([]Event, []string, error) {
	events, problems, _, err := readLines(r, true, nil)
	for _, e := range events {
		switch e := e.(type) {
		case *ModelCall:
			e.Request, e.Ref = nil, nil
		case *Assistant:
			e.Raw, e.RawGzip = "", ""
		}
	}
	return events, problems, err
}

// StreamJournalLite reads a journal as ReadJournalLite does but hands
// each event to each as it is decoded, so memory holds one at a time
// rather than a long session's hundreds of thousands; the blobs its events
// reference are read back from f at their offsets when needed. It returns
// the lines skipped, as ReadJournal does.
func StreamJournalLite(f io.ReaderAt, each func(Event)) ([]string, error) {
	jr := newJournalReader(io.NewSectionReader(f, 0, 1<<62), true, f)
	for {
		e, err := jr.next()
		if err == io.EOF {
			return jr.problems, nil
		}
		if err != nil {
			return jr.problems, err
		}
		switch e := e.(type) {
		case *ModelCall:
			e.Request, e.Ref = nil, nil
		case *Assistant:
			e.Raw, e.RawGzip = "", ""
		}
		each(e)
	}
}

// readJournal reads a whole journal, every body put together.
func readJournal(r io.Reader) ([]Event, []string, *journalCodec, error) {
	return readLines(r, false, nil)
}

func readLines(r io.Reader, lazy bool, src io.ReaderAt) ([]Event, []string, *journalCodec, error) {
	var events []Event
	jr := newJournalReader(r, lazy, src)
	for {
		e, err := jr.next()
		if err == io.EOF {
			return events, jr.problems, jr.codec, nil
		}
		if err != nil {
			return events, jr.problems, jr.codec, err
		}
		events = append(events, e)
	}
}

// journalReader streams a journal's events one at a time, so a reader
// that folds them as they come holds one line, not the whole journal.
type journalReader struct {
	lr    *LineReader
	codec *journalCodec
	// line is the number of the last line read; at where the next starts,
	// and start where the last event's line started.
	line      int
	at, start int64
	// problems name the lines skipped, as ReadJournal returns them.
	problems []string
	done     bool
	// err is a read error met after the line it returned.
	err error
}

func newJournalReader(r io.Reader, lazy bool, src io.ReaderAt) *journalReader {
	codec := newJournalCodec()
	codec.lazy, codec.src = lazy, src
	return &journalReader{lr: NewLineReader(r, 0), codec: codec}
}

// next returns the next event; io.EOF after the last. A line that does
// not decode is skipped and named in problems; a line longer than MaxLine
// or one that is refused whole (event.IsBadValue) ends the read with an
// error.
func (jr *journalReader) next() (Event, error) {
	for !jr.done {
		raw, err := jr.lr.View() // the codec keeps none of its bytes
		var tooLong *LineTooLongError
		if errors.As(err, &tooLong) {
			jr.done = true
			return nil, err
		}
		jr.line++
		c := jr.codec
		c.at = jr.at
		jr.at += int64(len(raw))
		var e Event
		if b := bytes.TrimSpace(raw); len(b) > 0 {
			var derr error
			e, derr = c.decode(b)
			switch {
			case event.IsBadValue(derr):
				// not damage to skip past: a journal made to write
				// elsewhere or run out of range is refused whole
				jr.done = true
				return nil, fmt.Errorf("line %d: %w", jr.line, derr)
			case derr != nil:
				jr.problems = append(jr.problems, fmt.Sprintf("line %d: %v", jr.line, derr))
				if err == io.EOF && !bytes.HasSuffix(raw, []byte("\n")) {
					// torn by a crash mid-write: appending cuts it off
					c.torn = c.at
				}
				e = nil
			}
		}
		if err != nil {
			jr.done = true
			if err != io.EOF {
				jr.err = fmt.Errorf("read journal: %w", err)
			}
		}
		if e != nil {
			jr.start = c.at
			return e, nil
		}
	}
	if jr.err != nil {
		return nil, jr.err
	}
	return nil, io.EOF
}

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
	f, err := OpenRegular(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reopen session: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if opts.OnProgress != nil {
		r = newProgressReader(f, opts.OnProgress)
	}
	jr := newJournalReader(r, true, f)
	first, err := jr.next()
	switch {
	case err == io.EOF && len(jr.problems) > 0:
		return nil, jr.problems, fmt.Errorf("reopen session %s: no line of the journal is an event (%s)", path, jr.problems[0])
	case err == io.EOF:
		return nil, nil, fmt.Errorf("reopen session %s: the journal holds no events", path)
	case err != nil:
		return nil, jr.problems, fmt.Errorf("reopen session %s: %w", path, err)
	}
	start, ok := first.(*SessionStart)
	if !ok {
		return nil, jr.problems, fmt.Errorf("reopen session %s: the journal does not begin with session_start", path)
	}
	dir := filepath.Dir(path)
	// a new session (/clear) goes beside this one
	opts.Dir = filepath.Dir(dir)
	if readOnly {
		opts.Dir = ""
	}
	s, err := newSession(opts)
	if err != nil {
		return nil, jr.problems, err
	}
	s.mu.Lock()
	s.reset(start.SessionID)
	s.dir, s.readOnly = dir, readOnly
	fold := &reopenFold{st: s.st, codec: jr.codec}
	var rep rulebook.Repairer
	var buf []Event
	for e := first; ; {
		buf = rep.Add(buf[:0], e)
		for _, x := range buf {
			fold.apply(x, jr)
		}
		if e, err = jr.next(); err == io.EOF {
			break
		} else if err != nil {
			s.mu.Unlock()
			return nil, jr.problems, fmt.Errorf("reopen session %s: %w", path, err)
		}
	}
	repairs, tail := rep.End()
	problems := append(jr.problems, fold.finish()...)
	f.Close()
	s.hist.note(path, fold.calls, fold.checks)
	codec := jr.codec
	if !readOnly {
		// where each call's lines are, for reading back what memory no
		// longer holds; the lines past what was read are indexed as asked
		end := jr.at
		if codec.torn > 0 {
			end = codec.torn
		}
		s.calls.seed(path, end, fold.positions, codec.rawAt, fold.frames, codec.lastMsgs)
	}
	switchModel := s.opts.ModelName != "" && s.opts.ModelName != s.st.Model
	unfinished := s.st.Cur != nil && !s.st.Cur.Ended
	if !readOnly {
		j, err := openJournal(path, codec)
		if err != nil {
			s.mu.Unlock()
			return nil, problems, err
		}
		j.turnEnded = s.checkAtTurnEnd(path)
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
		s.finishTurn(StopInterrupted)
	}
	// fold, then reconcile with today's disk: what changed is named
	s.syncSkills()
	if switchModel {
		// the model this skillet talks to, recorded so a replay agrees
		s.emit(&SettingChanged{Key: "model", Value: s.opts.ModelName})
	}
	return s, problems, s.syncJournal()
}

// reopenFold folds a journal's events into a reopened session's state as
// they stream, puts together the bodies the state keeps (the first call's
// request, and the latest rulebook.KeepCallBodies calls' requests and raw
// replies) and takes time travel's checkpoints on the way.
type reopenFold struct {
	st    *rulebook.State
	codec *journalCodec
	// recent are the latest calls, by their index in st.Calls, with the
	// compressed reply of each, to put together once the fold ends.
	recent   []recentCall
	problems []string
	calls    []callMark
	checks   []*historyCheck
	// since is how many calls were folded since the last checkpoint.
	since int
	// positions are where each call's lines start, and frames the
	// message blobs of every frameEvery-th call, for the call index.
	positions []callPos
	frames    [][]blobKey
}

type recentCall struct {
	i     int
	mc    *ModelCall
	reply *Assistant
	// raw is the reply's raw field as the line held it, when the decode
	// left it off
	raw []byte
}

func (rf *reopenFold) apply(e Event, jr *journalReader) {
	switch e := e.(type) {
	case *TurnStart:
		if len(rf.checks) == 0 || rf.since >= checkEvery {
			// before the turn_start line: the fold from here needs what
			// the codec knows of the left-off list
			rf.checks = append(rf.checks, &historyCheck{at: jr.start, call: len(rf.st.Calls), entries: rf.st.Entries.Len(), st: rf.st.Checkpoint(),
				leftOff: rf.codec.lastLeftOff, inlineLeftOff: rf.codec.inlineLeftOff})
			rf.since = 0
		}
	case *ModelCall:
		if len(rf.st.Calls) == 0 {
			// the first request: a journal from before prompt_frozen
			// freezes it
			if err := rf.codec.resolve(e); err != nil {
				rf.problems = append(rf.problems, err.Error())
			}
		}
		rf.calls = append(rf.calls, callMark{turn: int32(e.Turn), call: int32(e.Call)})
		rf.since++
	case *Assistant:
		if e.Manual {
			err := rf.codec.takeRaw(e)
			if err == nil {
				err = unzip(e)
			}
			if err != nil {
				rf.problems = append(rf.problems, err.Error())
			}
		}
	}
	rf.st.Apply(e)
	switch e := e.(type) {
	case *ModelCall:
		if len(rf.positions)%frameEvery == 0 {
			rf.frames = append(rf.frames, blobKeys(rf.codec.lastMsgs))
		}
		rf.positions = append(rf.positions, callPos{at: jr.start, reply: -1})
		if len(rf.recent) == rulebook.KeepCallBodies {
			rf.recent = append(rf.recent[:0], rf.recent[1:]...)
		}
		rf.recent = append(rf.recent, recentCall{i: len(rf.st.Calls) - 1, mc: e})
	case *Assistant:
		if n := len(rf.positions); n > 0 && !e.Manual && rf.positions[n-1].reply < 0 {
			rf.positions[n-1].reply = jr.start
		}
		if n := len(rf.recent); n > 0 && !e.Manual && rf.recent[n-1].i == len(rf.st.Calls)-1 {
			rf.recent[n-1].reply = e
			if p := rf.codec.pending; p.of == Event(e) {
				rf.recent[n-1].raw = p.quoted
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
			if err := rf.codec.resolve(rc.mc); err != nil {
				rf.problems = append(rf.problems, err.Error())
			} else {
				cr.Request = rc.mc.Request
			}
		}
		if a := rc.reply; a != nil && (rc.raw != nil || a.RawGzip != "") {
			var err error
			if rc.raw != nil {
				err = restoreRaw(a, rc.raw)
			}
			if err == nil {
				err = unzip(a)
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

// progressReader tells how much of a file has been read as it is read.
type progressReader struct {
	r           io.Reader
	done, total int64
	report      func(done, total int64)
}

func newProgressReader(f *os.File, report func(done, total int64)) *progressReader {
	p := &progressReader{r: f, report: report}
	if fi, err := f.Stat(); err == nil {
		p.total = fi.Size()
	}
	report(0, p.total)
	return p
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
func PeekSession(path string) (*SessionStart, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, JournalFile)
	}
	f, err := OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", path, err)
	}
	defer f.Close()
	first, err := NewLineReader(f, 0).Next()
	var tooLong *LineTooLongError
	if errors.As(err, &tooLong) {
		return nil, fmt.Errorf("read session %s: %w", path, err)
	}
	if len(bytes.TrimSpace(first)) == 0 {
		return nil, fmt.Errorf("read session %s: the journal is empty", path)
	}
	e, err := UnmarshalEvent(bytes.TrimSpace(first))
	if err != nil {
		return nil, fmt.Errorf("read session %s: line 1: %w", path, err)
	}
	start, ok := e.(*SessionStart)
	if !ok {
		return nil, fmt.Errorf("read session %s: the journal does not begin with session_start", path)
	}
	return start, nil
}
