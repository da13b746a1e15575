package harness

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"skillet/harness/atomicfile"
	"skillet/harness/event"
	"skillet/harness/journal"
	"skillet/harness/rulebook"
	"skillet/harness/view"
)

// SnapshotFile is the name, inside a session's folder, of the stored fold
// of its journal up to an offset: reopening checks it still describes the
// journal, loads it and folds only the lines after that offset. It is a
// cache: deleting it only makes the next reopening fold the whole journal.
const SnapshotFile = "fold.snapshot"

// snapshotMagic opens a snapshot file; snapshotVersion is the layout of
// what follows, raised whenever it changes.
const (
	snapshotMagic   = "skillet fold snapshot\n"
	snapshotVersion = 1
)

// snapshotEvery is how many journal bytes a session writes past its last
// snapshot before a turn's end stores a new one. Folding this much again
// at a reopening costs about 50 ms of CPU, while writing the snapshot of a
// long session costs tens of milliseconds: a session stores one every few
// megabytes of journal, never at every turn.
var snapshotEvery int64 = 8 << 20

// snapshotCloseEvery is how many journal bytes past the last snapshot
// make a clean close store a new one: folding a tail shorter than this
// costs a reopening a few milliseconds, while storing the fold of a long
// session costs its close a tenth of a second and many megabytes written.
// A session with no usable snapshot stores one as it closes whatever it
// added.
var snapshotCloseEvery int64 = 1 << 20

// snapshotMin is the shortest journal a snapshot is stored for: one
// shorter folds whole in a few milliseconds.
var snapshotMin int64 = 1 << 20

// Bytes of the journal a snapshot's key hashes: its head (the
// session_start line and the first turn) and the window just before the
// offset it covers. Hashing the whole prefix would cost a 300 MB journal
// about a third of a second, a third of what reopening is allowed; the
// journal is appended to, never rewritten in place, so a journal that
// changed under a snapshot was truncated (offset past its end or a window
// that differs), replaced (another file: its identity differs) or is
// another session's (its id and head differ).
const (
	keyHead   = 64 << 10
	keyWindow = 1 << 20
)

// snapKey says which journal, and how much of it, a snapshot describes.
type snapKey struct {
	Version int
	// Layout is a hash of the Go types the state is made of, so another
	// build's snapshot is refused rather than read into other types.
	Layout    [32]byte
	SessionID string
	// Offset is where the first line the snapshot does not cover starts,
	// Lines how many lines come before it.
	Offset int64
	Lines  int
	// Dev and Ino are the journal file's identity (0 where the system has
	// none).
	Dev, Ino       uint64
	Head, Window   [32]byte
	HeadN, WindowN int64
}

// snapBody is what a reopening would otherwise rebuild from the lines the
// snapshot covers, besides the state.
type snapBody struct {
	Codec  journal.CodecState
	Index  journal.IndexState
	Repair rulebook.RepairState
	// Problems are the lines before Offset that were skipped.
	Problems []string
	Checks   int
}

// checkMeta is a time travel checkpoint without its state, which follows
// it.
type checkMeta struct {
	At, Call, Entries int
	LeftOff           []string
	InlineLeftOff     bool
}

// foldSnapshot is what a snapshot holds, read back.
type foldSnapshot struct {
	key    snapKey
	st     *rulebook.State
	body   snapBody
	checks []*view.Checkpoint
}

var stateLayout = sha256.Sum256([]byte(rulebook.StateLayout()))

// keyOf computes the key of the journal f for the fold up to offset
// (lines lines), or fails when f is shorter.
func keyOf(f *os.File, id string, offset int64, lines int) (snapKey, error) {
	k := snapKey{Version: snapshotVersion, Layout: stateLayout, SessionID: id, Offset: offset, Lines: lines}
	fi, err := f.Stat()
	if err != nil {
		return k, err
	}
	if fi.Size() < offset {
		return k, fmt.Errorf("the journal is %d bytes, shorter than the %d the snapshot covers", fi.Size(), offset)
	}
	var ok bool
	if k.Dev, k.Ino, ok = fileIdentity(fi); !ok {
		return k, errNoIdentity
	}
	hash := func(from, n int64) ([32]byte, error) {
		h := sha256.New()
		if _, err := io.Copy(h, io.NewSectionReader(f, from, n)); err != nil {
			return [32]byte{}, fmt.Errorf("read journal: %w", err)
		}
		return [32]byte(h.Sum(nil)), nil
	}
	k.HeadN = min(offset, keyHead)
	if k.Head, err = hash(0, k.HeadN); err != nil {
		return k, err
	}
	from := max(k.HeadN, offset-keyWindow)
	k.WindowN = offset - from
	if k.Window, err = hash(from, k.WindowN); err != nil {
		return k, err
	}
	return k, nil
}

// encodeSnapshot writes a snapshot: the magic line, then a gob stream of
// its key, the state, the rest and the checkpoints, then the SHA-256 of
// all of it, so damage anywhere is found before any of it is trusted.
func encodeSnapshot(key snapKey, st *rulebook.State, body snapBody, checks []*view.Checkpoint) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(snapshotMagic)
	enc := gob.NewEncoder(&buf)
	body.Checks = len(checks)
	if err := enc.Encode(&key); err != nil {
		return nil, fmt.Errorf("store fold: %w", err)
	}
	if err := rulebook.EncodeState(enc, st, nil); err != nil {
		return nil, fmt.Errorf("store fold: %w", err)
	}
	if err := enc.Encode(&body); err != nil {
		return nil, fmt.Errorf("store fold: %w", err)
	}
	for _, c := range checks {
		if err := enc.Encode(&checkMeta{At: int(c.At), Call: c.Call, Entries: c.Entries, LeftOff: c.LeftOff, InlineLeftOff: c.InlineLeftOff}); err != nil {
			return nil, fmt.Errorf("store fold: %w", err)
		}
		if err := rulebook.EncodeState(enc, c.State, st); err != nil {
			return nil, fmt.Errorf("store fold: checkpoint at call %d: %w", c.Call, err)
		}
	}
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
	return buf.Bytes(), nil
}

// errNoIdentity is a system that gives a file no identity to read: a
// snapshot there could be one copied in with a journal from elsewhere, so
// none is written or read.
var errNoIdentity = errors.New("the system gives the journal no file identity")

// errStale is a snapshot that describes another journal, or this one as
// it no longer is.
var errStale = errors.New("the snapshot does not describe this journal")

// loadSnapshot reads the snapshot in dir and checks that it describes the
// journal f of session id; any failure says why it is not used.
func loadSnapshot(dir string, f *os.File, id string) (*foldSnapshot, error) {
	sf, err := os.Open(filepath.Join(dir, SnapshotFile))
	if err != nil {
		return nil, err
	}
	defer sf.Close()
	fi, err := sf.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size() - sha256.Size
	if !fi.Mode().IsRegular() || size < int64(len(snapshotMagic)) {
		return nil, fmt.Errorf("%s is not a snapshot", SnapshotFile)
	}
	// The sum is checked before anything is decoded: gob is not hardened
	// against damaged input, which could make it allocate at will.
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(sf, 0, size)); err != nil {
		return nil, fmt.Errorf("read %s: %w", SnapshotFile, err)
	}
	var sum [sha256.Size]byte
	if _, err := sf.ReadAt(sum[:], size); err != nil {
		return nil, fmt.Errorf("read %s: %w", SnapshotFile, err)
	}
	if !bytes.Equal(h.Sum(nil), sum[:]) {
		return nil, fmt.Errorf("%s is damaged: its checksum does not match", SnapshotFile)
	}
	r := bufio.NewReaderSize(io.NewSectionReader(sf, 0, size), 1<<16)
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != snapshotMagic {
		return nil, fmt.Errorf("%s is not a snapshot", SnapshotFile)
	}
	dec := gob.NewDecoder(r)
	snap := &foldSnapshot{}
	if err := dec.Decode(&snap.key); err != nil {
		return nil, fmt.Errorf("read %s: %w", SnapshotFile, err)
	}
	k := snap.key
	if k.Version != snapshotVersion || k.Layout != stateLayout {
		return nil, fmt.Errorf("%s was written by another version of skillet", SnapshotFile)
	}
	if k.SessionID != id {
		return nil, fmt.Errorf("%s is of session %q: %w", SnapshotFile, k.SessionID, errStale)
	}
	want, err := keyOf(f, id, k.Offset, k.Lines)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", SnapshotFile, errStale, err)
	}
	if want != k {
		return nil, fmt.Errorf("%s: %w", SnapshotFile, errStale)
	}
	if snap.st, err = rulebook.DecodeState(dec, nil); err != nil {
		return nil, fmt.Errorf("read %s: %w", SnapshotFile, err)
	}
	if err := dec.Decode(&snap.body); err != nil {
		return nil, fmt.Errorf("read %s: %w", SnapshotFile, err)
	}
	if snap.body.Checks < 0 || snap.body.Checks > len(snap.st.Calls)+1 {
		return nil, fmt.Errorf("read %s: %d checkpoints for %d calls", SnapshotFile, snap.body.Checks, len(snap.st.Calls))
	}
	for range snap.body.Checks {
		var m checkMeta
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("read %s: %w", SnapshotFile, err)
		}
		cst, err := rulebook.DecodeState(dec, snap.st)
		if err != nil {
			return nil, fmt.Errorf("read %s: checkpoint: %w", SnapshotFile, err)
		}
		snap.checks = append(snap.checks, &view.Checkpoint{At: int64(m.At), Call: m.Call, Entries: m.Entries, State: cst, LeftOff: m.LeftOff, InlineLeftOff: m.InlineLeftOff})
	}
	if err := snap.check(); err != nil {
		return nil, fmt.Errorf("read %s: %w", SnapshotFile, err)
	}
	return snap, nil
}

// check refuses a snapshot whose parts do not agree, which a checksum that
// matches should rule out, but a reopening must never index out of range.
func (snap *foldSnapshot) check() error {
	if err := snap.st.CheckStored(); err != nil {
		return err
	}
	for _, c := range snap.checks {
		if err := c.State.CheckStored(); err != nil {
			return fmt.Errorf("checkpoint at call %d: %w", c.Call, err)
		}
	}
	ix, n := snap.body.Index, len(snap.st.Calls)
	if len(ix.Calls) != n {
		return fmt.Errorf("the call index lists %d calls, the state %d", len(ix.Calls), n)
	}
	if want := (n + journal.FrameEvery - 1) / journal.FrameEvery; len(ix.Frames) != want {
		return fmt.Errorf("the call index keeps %d frames for %d calls", len(ix.Frames), n)
	}
	if len(snap.checks) == 0 || snap.checks[0].Call != 0 {
		return fmt.Errorf("time travel's checkpoints do not start at the first call")
	}
	for _, c := range snap.checks {
		if c.Call > n || c.At > snap.key.Offset {
			return fmt.Errorf("a checkpoint lies past the fold")
		}
	}
	return nil
}

// writeSnapshot stores the fold of the session's journal as it is now,
// which must be at a turn's boundary, covering the journal up to end.
// Called with s.mu held; the file is written after unlock by the
// returned function (nil when there is nothing to write).
func (s *Session) snapshotLocked(end int64) (func() error, error) {
	if s.readOnly || s.journal == nil || s.dir == "" || s.tempDir {
		return nil, nil
	}
	st := s.st
	if st.Running || (st.Cur != nil && !st.Cur.Ended) {
		return nil, nil
	}
	path := filepath.Join(s.dir, JournalFile)
	f, err := journal.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ix, err := s.calls.Export(path, end)
	if err != nil {
		return nil, err
	}
	lines, err := countLines(f, end, s.snap.lines)
	if err != nil {
		return nil, err
	}
	key, err := keyOf(f, st.ID, end, lines)
	if err != nil {
		return nil, err
	}
	body := snapBody{Codec: s.journal.CodecState(), Index: ix, Repair: rulebook.RepairState{Turn: st.Turn, Notes: s.snap.notes},
		Problems: s.snap.problems}
	checks := s.hist.Checks(path, end)
	if len(checks) == 0 {
		// time travel folds from the first line, as it would have
		checks = []*view.Checkpoint{{State: rulebook.New("", "", event.DefaultSettings())}}
	}
	data, err := encodeSnapshot(key, st, body, checks)
	if err != nil {
		return nil, err
	}
	s.snap.at, s.snap.lines = end, foldLines{at: end, lines: lines}
	dest := filepath.Join(s.dir, SnapshotFile)
	return func() error { return atomicfile.Write(dest, data, 0o600) }, nil
}

// snapState is what a session knows of its snapshots.
type snapState struct {
	// at is the journal offset the last snapshot covers, 0 when there is
	// none; resumedAt the offset of the one the session reopened from, 0
	// when it folded its whole journal.
	at, resumedAt int64
	// lines counts the journal's lines up to an offset, so the next
	// snapshot counts on from there.
	lines foldLines
	// notes and problems are what reopening repaired and skipped before
	// the journal's end, for a snapshot to say again.
	notes, problems []string
}

// foldLines is how many lines the journal holds before an offset, so
// counting them again starts there.
type foldLines struct {
	at    int64
	lines int
}

// countLines is the number of lines of f before offset end, counted on
// from a known count before it.
func countLines(f *os.File, end int64, from foldLines) (int, error) {
	if from.at > end {
		from = foldLines{}
	}
	n := from.lines
	buf := make([]byte, 1<<16)
	for at := from.at; at < end; {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), end-at)], at)
		n += bytes.Count(buf[:k], []byte{'\n'})
		at += int64(k)
		if err != nil && at < end {
			return 0, fmt.Errorf("read journal: %w", err)
		}
	}
	return n, nil
}
