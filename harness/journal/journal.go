package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"skillet/harness/event"
	"sync"
)

// FileName is the journal's name inside a session's folder.
const FileName = "journal.jsonl"

// Writer appends events as JSON lines as they happen and syncs them to disk
// at each turn's end, so a crash loses at most the turn in flight.
type Writer struct {
	mu sync.Mutex
	f  *os.File
	// codec knows what earlier lines hold (see journalcodec.go).
	codec *Codec
	// buf gathers an event's lines for one write; it is reused.
	buf []byte
	// size is where the next line starts, -1 once a write failed (a line
	// may be torn there).
	size int64
	// TurnEnded, when set, is told of each turn_end line written, with
	// where the line after it starts and what the codec knows of the
	// left-off list there (see Session.checkAtTurnEnd).
	TurnEnded func(e *event.TurnEnd, end int64, leftOff []string, inline bool)
}

// OpenWriter opens a journal for appending; codec is what reading it
// learned, nil for a new one.
func OpenWriter(path string, codec *Codec) (*Writer, error) {
	if codec == nil {
		codec = NewCodec()
	}
	// what reading learned: only which blobs exist
	for _, hashes := range []iter.Seq[string]{maps.Keys(codec.blobs), maps.Keys(codec.raw)} {
		for h := range hashes {
			if k, ok := KeyOf(h); ok {
				codec.written[k] = struct{}{}
			}
		}
	}
	for k := range codec.rawAt {
		codec.written[k] = struct{}{}
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
	j := &Writer{f: f, codec: codec}
	if fi, err := f.Stat(); err == nil {
		j.size = fi.Size()
	}
	return j, nil
}

// Write appends one event as a line, encoded by the writer's codec.
func (j *Writer) Write(e event.Event) error {
	j.mu.Lock()
	if j.f == nil {
		j.mu.Unlock()
		return errors.New("journal is closed")
	}
	lines, err := j.codec.Encode(e)
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
	told, end := j.TurnEnded, j.size
	leftOff, inline := j.codec.lastLeftOff, j.codec.inlineLeftOff
	j.mu.Unlock()
	if te, ok := e.(*event.TurnEnd); ok && told != nil && end > 0 {
		told(te, end, leftOff, inline)
	}
	return nil
}

// Sync flushes the journal to disk; after Close it does nothing.
func (j *Writer) Sync() error {
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

// Close syncs and closes the journal; later writes fail.
func (j *Writer) Close() error {
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

// Read decodes a journal. A line that does not decode (a torn last
// line after a crash, say) is skipped and named in the returned problems;
// everything else is kept. A line longer than MaxLine is an error.
func Read(r io.Reader) ([]event.Event, []string, error) {
	events, problems, _, err := ReadAll(r)
	return events, problems, err
}

// StreamLite reads a journal as Read does, leaving out what says nothing
// of the rule book's decisions and makes most of a long session's bytes
// (model calls come without their request body, long raw replies without
// their text), and hands each event to each as it is decoded, so memory
// holds one at a time rather than a long session's hundreds of thousands;
// the blobs its events reference are read back from f at their offsets
// when needed. It returns the lines skipped, as Read does.
func StreamLite(f io.ReaderAt, each func(event.Event)) ([]string, error) {
	jr := NewReader(io.NewSectionReader(f, 0, 1<<62), true, f)
	for {
		e, err := jr.Next()
		if err == io.EOF {
			return jr.problems, nil
		}
		if err != nil {
			return jr.problems, err
		}
		switch e := e.(type) {
		case *event.ModelCall:
			e.Request, e.Ref = nil, nil
		case *event.Assistant:
			e.Raw, e.RawGzip = "", ""
		}
		each(e)
	}
}

// ReadAll reads a whole journal, every body put together, and returns
// the codec that read it (an appending writer starts from it).
func ReadAll(r io.Reader) ([]event.Event, []string, *Codec, error) {
	return readLines(r, false, nil)
}

func readLines(r io.Reader, lazy bool, src io.ReaderAt) ([]event.Event, []string, *Codec, error) {
	var events []event.Event
	jr := NewReader(r, lazy, src)
	for {
		e, err := jr.Next()
		if err == io.EOF {
			return events, jr.problems, jr.codec, nil
		}
		if err != nil {
			return events, jr.problems, jr.codec, err
		}
		events = append(events, e)
	}
}

// Reader streams a journal's events one at a time, so a reader
// that folds them as they come holds one line, not the whole journal.
type Reader struct {
	lr    *LineReader
	codec *Codec
	// line is the number of the last line read; at where the next starts,
	// and start where the last event's line started.
	line      int
	at, start int64
	// nl is how many of the lines read end with a newline: the lines
	// before At.
	nl int
	// problems name the lines skipped, as Read returns them.
	problems []string
	done     bool
	// err is a read error met after the line it returned.
	err error
}

// NewReader reads events from r a line at a time. lazy leaves long raw
// replies on their lines, to be read back from src when asked for.
func NewReader(r io.Reader, lazy bool, src io.ReaderAt) *Reader {
	codec := NewCodec()
	codec.lazy, codec.src = lazy, src
	return &Reader{lr: NewLineReader(r, 0), codec: codec}
}

// next returns the next event; io.EOF after the last. A line that does
// not decode is skipped and named in problems; a line longer than MaxLine
// or one that is refused whole (event.IsBadValue) ends the read with an
// error.
func (jr *Reader) Next() (event.Event, error) {
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
		if bytes.HasSuffix(raw, []byte("\n")) {
			jr.nl++
		}
		var e event.Event
		if b := bytes.TrimSpace(raw); len(b) > 0 {
			var derr error
			e, derr = c.Decode(b)
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

// Problems name the lines skipped so far, as Read returns them.
func (jr *Reader) Problems() []string { return jr.problems }

// Codec is what the reader has learned of the journal's earlier lines.
func (jr *Reader) Codec() *Codec { return jr.codec }

// Start is where the line of the last event returned starts; At where the
// next line starts.
func (jr *Reader) Start() int64 { return jr.start }

// At is where the next line starts.
func (jr *Reader) At() int64 { return jr.at }
