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
	return &journal{f: f, codec: codec}, nil
}

func (j *journal) write(e Event) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errors.New("journal is closed")
	}
	lines, err := j.codec.encode(e)
	if err != nil {
		return err
	}
	buf := j.buf[:0]
	for _, l := range lines {
		buf = append(append(buf, l...), '\n')
	}
	if cap(buf) <= 1<<20 {
		j.buf = buf
	}
	if _, err := j.f.Write(buf); err != nil {
		return fmt.Errorf("write journal: %w", err)
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
	events, problems, _, err := readJournal(r, false, nil)
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

// readJournal reads a journal; lazy puts together the request bodies and
// raw replies of only the calls whose bodies the state keeps
// (rulebook.KeepCallBodies, and the first), which is what reopening needs.
// With src, the same journal read at offsets, a lazy read keeps where each
// blob line starts rather than the line.
func readJournal(r io.Reader, lazy bool, src io.ReaderAt) ([]Event, []string, *journalCodec, error) {
	events, problems, codec, err := readLines(r, lazy, src)
	if lazy {
		problems = append(problems, resolveRecent(events, codec)...)
	}
	return events, problems, codec, err
}

// resolveRecent puts together the bodies a fold keeps.
func resolveRecent(events []Event, codec *journalCodec) []string {
	var problems []string
	calls := 0
	for _, e := range events {
		if _, ok := e.(*ModelCall); ok {
			calls++
		}
	}
	k := 0
	for _, e := range events {
		switch e := e.(type) {
		case *ModelCall:
			k++
			if k == 1 || k > calls-rulebook.KeepCallBodies {
				if err := codec.resolve(e); err != nil {
					problems = append(problems, err.Error())
				}
			}
			e.Ref = nil
		case *Assistant:
			if k > calls-rulebook.KeepCallBodies || e.Manual {
				if err := unzip(e); err != nil {
					problems = append(problems, err.Error())
				}
			}
			e.RawGzip = ""
		}
	}
	return problems
}

func readLines(r io.Reader, lazy bool, src io.ReaderAt) ([]Event, []string, *journalCodec, error) {
	var events []Event
	var problems []string
	codec := newJournalCodec()
	codec.lazy, codec.src = lazy, src
	lr := NewLineReader(r, 0)
	var at int64
	for line := 1; ; line++ {
		raw, err := lr.Next()
		var tooLong *LineTooLongError
		if errors.As(err, &tooLong) {
			return events, problems, codec, err
		}
		codec.at = at
		at += int64(len(raw))
		if b := bytes.TrimSpace(raw); len(b) > 0 {
			e, derr := codec.decode(b)
			switch {
			case event.IsBadValue(derr):
				// not damage to skip past: a journal made to write
				// elsewhere or run out of range is refused whole
				return events, problems, codec, fmt.Errorf("line %d: %w", line, derr)
			case derr != nil:
				problems = append(problems, fmt.Sprintf("line %d: %v", line, derr))
				if err == io.EOF && !bytes.HasSuffix(raw, []byte("\n")) {
					// torn by a crash mid-write: appending cuts it off
					codec.torn = codec.at
				}
			case e != nil:
				events = append(events, e)
			}
		}
		if err == io.EOF {
			return events, problems, codec, nil
		}
		if err != nil {
			return events, problems, codec, fmt.Errorf("read journal: %w", err)
		}
	}
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
// today's disk; readOnly keeps all of it in memory.
func reopen(path string, opts Options, readOnly bool) (*Session, []string, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, JournalFile)
	}
	f, err := OpenRegular(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reopen session: %w", err)
	}
	var r io.Reader = f
	if opts.OnProgress != nil {
		r = newProgressReader(f, opts.OnProgress)
	}
	events, problems, codec, err := readJournal(r, true, f)
	f.Close()
	if err != nil {
		return nil, problems, fmt.Errorf("reopen session %s: %w", path, err)
	}
	if len(events) == 0 {
		if len(problems) > 0 {
			return nil, problems, fmt.Errorf("reopen session %s: no line of the journal is an event (%s)", path, problems[0])
		}
		return nil, nil, fmt.Errorf("reopen session %s: the journal holds no events", path)
	}
	start, ok := events[0].(*SessionStart)
	if !ok {
		return nil, problems, fmt.Errorf("reopen session %s: the journal does not begin with session_start", path)
	}
	dir := filepath.Dir(path)
	// a new session (/clear) goes beside this one
	opts.Dir = filepath.Dir(dir)
	if readOnly {
		opts.Dir = ""
	}
	s, err := newSession(opts)
	if err != nil {
		return nil, problems, err
	}
	events, repairs, tail := rulebook.Repair(events)
	s.mu.Lock()
	s.reset(start.SessionID)
	s.dir, s.readOnly = dir, readOnly
	for _, e := range events {
		s.st.Apply(e)
	}
	switchModel := s.opts.ModelName != "" && s.opts.ModelName != s.st.Model
	unfinished := s.st.Cur != nil && !s.st.Cur.Ended
	if !readOnly {
		j, err := openJournal(path, codec)
		if err != nil {
			s.mu.Unlock()
			return nil, problems, err
		}
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
