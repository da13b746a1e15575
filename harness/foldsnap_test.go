package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"skillet/harness/view"
)

// storeEveryTurn makes every session of the test store its fold at each
// turn's end and at close, however short its journal.
func storeEveryTurn(t *testing.T) {
	t.Helper()
	every, closing, least := snapshotEvery, snapshotCloseEvery, snapshotMin
	snapshotEvery, snapshotCloseEvery, snapshotMin = 1, 1, 0
	t.Cleanup(func() { snapshotEvery, snapshotCloseEvery, snapshotMin = every, closing, least })
}

// TestSnapshotAndTailFoldIsTheFullFold drives random sessions (the
// generator of TestRandomSequencesKeepTheInvariants), keeps the snapshot
// each turn's end stored, and reopens the journal from each of them: the
// snapshot and the fold of the journal's lines after it must be the fold
// of the whole journal, as skillet show --json, the whole rule-book state,
// the UI's snapshot, the transcript, the marks and time travel see it.
// SKILLET_RANDOM_SEEDS runs a longer search.
func TestSnapshotAndTailFoldIsTheFullFold(t *testing.T) {
	storeEveryTurn(t)
	sequences := randomSeeds(t, 40, 15)
	w := newWorkspace(t)
	for _, name := range randomSkills {
		writeRandomSkill(w, name)
		w.tool(name+"_tool.yaml", fmt.Sprintf("name: %s_tool\nversion: 1\ndescription: Tool of %s.\nparameters:\n  type: object\n  properties:\n    q: {type: string}\nresponse: '{{setState \"last\" .q}}{{appendStore \"all\" .q}}%s:{{.q}}'\n", name, name, name))
	}
	w.responseTool("shared", 1, "shared {{.q}}")
	resumed := 0
	for seed := 0; seed < sequences; seed++ {
		var dir string
		var snaps [][]byte
		runRandomSequenceWith(t, w, int64(seed), func(s *Session) {
			dir = s.Dir()
			b, err := os.ReadFile(filepath.Join(dir, SnapshotFile))
			if err == nil && (len(snaps) == 0 || !bytes.Equal(b, snaps[len(snaps)-1])) {
				snaps = append(snaps, b)
			}
		})
		if t.Failed() {
			t.Fatalf("seed %d: the random session failed", seed)
		}
		if dir == "" {
			continue
		}
		// the reopened session closed last: its snapshot too
		if b, err := os.ReadFile(filepath.Join(dir, SnapshotFile)); err == nil {
			snaps = append(snaps, b)
		}
		if err := os.Remove(filepath.Join(dir, SnapshotFile)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		resumed += reopenFromEach(t, w, dir, snaps, fmt.Sprintf("seed %d, ", seed))
		os.Remove(filepath.Join(dir, SnapshotFile))
	}
	if resumed < sequences {
		t.Errorf("only %d reopenings from a snapshot in %d sessions", resumed, sequences)
	}
	t.Logf("%d reopenings from a snapshot", resumed)
}

// reopenFromEach puts each of snaps in place in turn and checks that
// reopening the journal in dir from it gives what the whole fold gives;
// it returns how many it checked.
func reopenFromEach(t *testing.T, w *workspace, dir string, snaps [][]byte, label string) int {
	t.Helper()
	want, _ := inspectedView(t, w, dir)
	for i, b := range snaps {
		if err := os.WriteFile(filepath.Join(dir, SnapshotFile), b, 0o600); err != nil {
			t.Fatal(err)
		}
		got, at := inspectedView(t, w, dir)
		if at == 0 {
			t.Fatalf("%ssnapshot %d was not used", label, i+1)
		}
		if !sameLines(t, fmt.Sprintf("%ssnapshot %d of %d (at %d): the fold", label, i+1, len(snaps), at), want, got) {
			t.FailNow()
		}
	}
	return len(snaps)
}

// inspectedView folds the journal in dir read-only (skillet show) and
// returns everything it is, as text, and the offset of the snapshot it
// started from (0 for none).
func inspectedView(t *testing.T, w *workspace, dir string) (string, int64) {
	t.Helper()
	// what reopening adds (a skill changed on disk) is stamped alike
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	in, skipped, err := Inspect(dir, Options{Catalog: w.catalog(), Model: &scripted{}, Now: now})
	if err != nil {
		t.Fatalf("inspect %s: %v", dir, err)
	}
	defer in.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "skipped: %q\n", skipped)
	b.WriteString(shownState(t, in))
	b.WriteString(foldedView(t, in))
	enc := func(what string, v any) {
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		fmt.Fprintf(&b, "\n%s: %s", what, j)
	}
	in.mu.Lock()
	st := in.st
	enc("entries", st.Entries.Items())
	enc("messages", st.Msgs.Items())
	enc("ends", st.Ends.Items())
	for i, m := range st.Marks.All() {
		enc(fmt.Sprintf("mark %d (%s)", i, m.EventType()), m)
	}
	in.mu.Unlock()
	h, err := in.History()
	if err != nil {
		t.Fatal(err)
	}
	// every call of a short session; of a long one, calls spread over it
	// and the last few, each folded from its checkpoint
	step := max(1, h.Len()/120)
	fmt.Fprintf(&b, "\ncalls: %d", h.Len())
	for i := range h.Len() {
		if i%step != 0 && i < h.Len()-3 {
			continue
		}
		snap, err := h.At(i)
		if err != nil {
			t.Fatalf("time travel to call %d: %v", i+1, err)
		}
		turn, call := h.Call(i)
		enc(fmt.Sprintf("call %d (turn %d call %d)", i, turn, call), snap)
	}
	return b.String(), in.snap.resumedAt
}

// TestSnapshotIsNotTrustedWhenItDoesNotDescribeTheJournal damages, edits,
// truncates and swaps what a reopening reads: each time it folds the whole
// journal instead, shows the same session, and a writable reopening
// stores a fresh snapshot when it closes.
func TestSnapshotIsNotTrustedWhenItDoesNotDescribeTheJournal(t *testing.T) {
	storeEveryTurn(t)
	w := newWorkspace(t)
	w.skill("alpha", "alpha does alpha work.", "ALPHA text.", "")
	session := func() (dir string, snap []byte) {
		f := w.open("", nil)
		for i := range 4 {
			f.turn(fmt.Sprintf("message %d", i), load("alpha"), say("done"))
		}
		dir = f.s.Dir()
		if err := f.s.Close(); err != nil {
			t.Fatal(err)
		}
		snap, err := os.ReadFile(filepath.Join(dir, SnapshotFile))
		if err != nil {
			t.Fatalf("no snapshot after a clean close: %v", err)
		}
		return dir, snap
	}
	dir, good := session()
	_, foreign := session()
	journalPath := filepath.Join(dir, JournalFile)
	journalBytes, err := os.ReadFile(journalPath)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, SnapshotFile))
	full, _ := inspectedView(t, w, dir)

	put := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, SnapshotFile), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	put(good)
	if got, at := inspectedView(t, w, dir); at == 0 || got != full {
		t.Fatalf("the good snapshot: used at %d, same fold %v", at, got == full)
	}

	flip := bytes.Clone(good)
	flip[len(flip)/2] ^= 0x40
	cases := []struct {
		name    string
		snap    []byte
		journal func()
	}{
		{"garbage", []byte("not a snapshot at all, but long enough to look at"), nil},
		{"empty", nil, nil},
		{"truncated snapshot", good[:len(good)/2], nil},
		{"a flipped bit", flip, nil},
		{"another version", bytes.Replace(good, []byte(snapshotMagic), []byte("skillet fold snapshoT\n"), 1), nil},
		{"another session's", foreign, nil},
		{"a build whose state types differ", good, func() {
			was := stateLayout
			stateLayout[0] ^= 1
			t.Cleanup(func() { stateLayout = was })
		}},
		{"journal cut and written on", good, func() {
			// its last line cut off and written again, a byte longer
			cut := bytes.LastIndexByte(journalBytes[:len(journalBytes)-1], '\n') + 1
			b := append(bytes.Clone(journalBytes[:cut]), strings.Replace(string(journalBytes[cut:]), "{", "{ ", 1)...)
			writeInPlace(t, journalPath, b)
		}},
		{"journal edited near the end", good, func() {
			b := bytes.Clone(journalBytes)
			i := bytes.LastIndex(b, []byte(`"message 3"`))
			copy(b[i:], `"message 9"`)
			writeInPlace(t, journalPath, b)
		}},
		{"journal shorter than the snapshot", good, func() {
			cut := bytes.LastIndexByte(journalBytes[:len(journalBytes)-1], '\n') + 1
			if err := os.Truncate(journalPath, int64(cut)); err != nil {
				t.Fatal(err)
			}
		}},
		{"journal replaced by a copy", good, func() {
			tmp := journalPath + ".copy"
			if err := os.WriteFile(tmp, journalBytes, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, journalPath); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			writeInPlace(t, journalPath, journalBytes)
			want := full
			if c.journal != nil {
				c.journal()
				os.Remove(filepath.Join(dir, SnapshotFile))
				want, _ = inspectedView(t, w, dir)
			}
			put(c.snap)
			got, at := inspectedView(t, w, dir)
			if at != 0 {
				t.Fatalf("the snapshot was used (at %d)", at)
			}
			if !sameLines(t, "the fold", want, got) {
				return
			}
			// a writable reopening folds it whole and stores a fresh one
			s, err := Open(dir, Options{Catalog: w.catalog(), Model: &scripted{}})
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			if s.snap.resumedAt != 0 {
				t.Fatalf("the writable reopening used the snapshot (at %d)", s.snap.resumedAt)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			_, at = inspectedView(t, w, dir)
			if at == 0 {
				t.Fatalf("no fresh snapshot was stored, or it is not used")
			}
		})
	}
}

// writeInPlace rewrites a file's bytes keeping the file (its identity),
// as an edit in place would.
func writeInPlace(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotAtTurnEndOnlyPastTheThreshold checks a live session stores
// its fold at a turn's end only once the journal has grown past the
// threshold since the last one, and that a read-only look writes none.
func TestSnapshotAtTurnEndOnlyPastTheThreshold(t *testing.T) {
	storeEveryTurn(t)
	w := newWorkspace(t)
	w.skill("alpha", "alpha does alpha work.", "ALPHA text.", "")
	f := w.open("", nil)
	f.turn("first", say("done"))
	first := f.s.journal.Size()
	f.turn("second", say(strings.Repeat("words ", 20)))
	snapshotEvery = 3 * (f.s.journal.Size() - first) // a few turns' worth
	path := filepath.Join(f.s.Dir(), SnapshotFile)
	var stored []int64
	for i := range 12 {
		f.turn(fmt.Sprintf("message %d", i), say(strings.Repeat("words ", 20)))
		if at := f.s.snap.at; len(stored) == 0 || stored[len(stored)-1] != at {
			stored = append(stored, at)
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no snapshot after 12 turns: %v", err)
	}
	// 13 turns of about size bytes each, one every 3 or so
	if n := len(stored); n < 3 || n > 6 {
		t.Errorf("snapshots at %v: want one every few turns", stored)
	}
	for i := 1; i < len(stored); i++ {
		if stored[i]-stored[i-1] < snapshotEvery {
			t.Errorf("snapshots at %d and %d: closer than %d bytes", stored[i-1], stored[i], snapshotEvery)
		}
	}
	// a close that adds less than snapshotCloseEvery past the last one
	// leaves it as it is
	dir := f.s.Dir()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	snapshotCloseEvery = f.s.journal.Size() - f.s.snap.at + 1
	f.s.Close()
	if after, err := os.ReadFile(path); err != nil || !bytes.Equal(before, after) {
		t.Errorf("a close that added little to the journal stored another snapshot (%v)", err)
	}
	os.Remove(path)
	in, _, err := Inspect(dir, Options{Catalog: w.catalog(), Model: &scripted{}})
	if err != nil {
		t.Fatal(err)
	}
	in.Close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a read-only look stored a snapshot: %v", err)
	}
}

// TestSnapshotOfALongSession stores the fold of a session long enough to
// have sealed pages of transcript, messages, marks and turn records and
// several of time travel's checkpoints, at a few turn ends and at close,
// and reopens from each: the fold must be the whole journal's, read-only
// and writable.
func TestSnapshotOfALongSession(t *testing.T) {
	const turns = 600 // past two pages of marks, the fewest a turn adds
	storeEveryTurn(t)
	w := newWorkspace(t)
	w.skill("alpha", "alpha does alpha work.", "ALPHA text.", "tools:\n  - name: alpha_tool\n")
	w.tool("alpha_tool.yaml", "name: alpha_tool\nversion: 1\ndescription: Tool of alpha.\nparameters:\n  type: object\n  properties:\n    q: {type: string}\nresponse: '{{setState \"last\" .q}}alpha:{{.q}}'\n")
	f := w.open("[session]\nmax_transcript_messages = 12\n", nil)
	f.turn("first", load("alpha"), say("loaded"))
	snapshotEvery = 100 * f.s.journal.Size() / 2 // about one every hundred turns
	dir := f.s.Dir()
	var snaps [][]byte
	for i := range turns {
		f.turn(fmt.Sprintf("message %d", i), call("alpha_tool", fmt.Sprintf(`{"q":"%d"}`, i)), call("alpha_tool", `{"q":"again"}`), say(fmt.Sprintf("answer %d", i)))
		if b, err := os.ReadFile(filepath.Join(dir, SnapshotFile)); err == nil && (len(snaps) == 0 || !bytes.Equal(b, snaps[len(snaps)-1])) {
			snaps = append(snaps, b)
		}
	}
	st := f.s.st
	if st.Entries.Sealed() == 0 || st.Msgs.Sealed() == 0 || st.Marks.Sealed() == 0 {
		t.Fatalf("nothing sealed: entries %d, messages %d, marks %d", st.Entries.Sealed(), st.Msgs.Sealed(), st.Marks.Sealed())
	}
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, SnapshotFile))
	if err != nil {
		t.Fatalf("no snapshot after close: %v", err)
	}
	snaps = append(snaps, b)
	if len(snaps) < 3 {
		t.Fatalf("%d snapshots in %d turns", len(snaps), turns)
	}
	os.Remove(filepath.Join(dir, SnapshotFile))
	reopenFromEach(t, w, dir, snaps, "")
	// writable: every call's body reads back as from the whole fold
	bodies := func(s *Session) string {
		var out strings.Builder
		for i := range len(s.st.Calls) {
			rec, err := s.ModelCall(i)
			if err != nil {
				t.Fatalf("call %d: %v", i+1, err)
			}
			fmt.Fprintf(&out, "%d %s %q\n", i, rec.Request, rec.Reply)
		}
		return out.String()
	}
	open := func() (*Session, string) {
		s, err := Open(dir, Options{Catalog: w.catalog(), Model: &scripted{}})
		if err != nil {
			t.Fatal(err)
		}
		return s, bodies(s)
	}
	os.WriteFile(filepath.Join(dir, SnapshotFile), snaps[1], 0o600)
	s, fromSnap := open()
	if s.snap.resumedAt == 0 {
		t.Fatal("the writable reopening did not use the snapshot")
	}
	if n := s.hist.Checkpoints(); n < len(s.st.Calls)/view.CheckEvery {
		t.Errorf("%d checkpoints for %d calls", n, len(s.st.Calls))
	}
	s.Close()
	os.Remove(filepath.Join(dir, SnapshotFile))
	s, whole := open()
	s.Close()
	if !sameLines(t, "the calls' bodies", whole, fromSnap) {
		t.FailNow()
	}
}

// TestSnapshotSaysWhatTheWholeFoldSkipped reopens a journal that lost a
// tool result and holds a line that does not read, well before the end:
// from the snapshot, the reopening names the same skipped line and makes
// the same repair as the fold of the whole journal.
func TestSnapshotSaysWhatTheWholeFoldSkipped(t *testing.T) {
	storeEveryTurn(t)
	w := newWorkspace(t)
	w.skill("alpha", "alpha does alpha work.", "ALPHA text.", "tools:\n  - name: alpha_tool\n")
	w.tool("alpha_tool.yaml", "name: alpha_tool\nversion: 1\ndescription: Tool of alpha.\nparameters:\n  type: object\n  properties:\n    q: {type: string}\nresponse: 'alpha:{{.q}}'\n")
	f := w.open("", nil)
	f.turn("first", load("alpha"), say("loaded"))
	f.turn("second", call("alpha_tool", `{"q":"x"}`), say("called"))
	for i := range 3 {
		f.turn(fmt.Sprintf("more %d", i), say("fine"))
	}
	dir := f.s.Dir()
	f.s.Close()
	path := filepath.Join(dir, JournalFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	dropped := false
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if !dropped && strings.Contains(line, `"type":"tool_result"`) && strings.Contains(line, "alpha:x") {
			dropped = true
			out = append(out, "{not a journal line\n")
			continue
		}
		out = append(out, line)
	}
	if !dropped {
		t.Fatal("no tool result to drop")
	}
	writeInPlace(t, path, []byte(strings.Join(out, "")))
	os.Remove(filepath.Join(dir, SnapshotFile))
	want, _ := inspectedView(t, w, dir)
	if !strings.Contains(want, "skipped: [\"line") {
		t.Fatalf("the whole fold skipped nothing:\n%s", want[:min(len(want), 400)])
	}
	// a writable reopening folds it whole, warns, and stores the fold
	s, err := Open(dir, Options{Catalog: w.catalog(), Model: &scripted{}})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	got, at := inspectedView(t, w, dir)
	if at == 0 {
		t.Fatal("the reopening stored no snapshot, or it is not used")
	}
	os.Remove(filepath.Join(dir, SnapshotFile))
	want, _ = inspectedView(t, w, dir)
	sameLines(t, "the fold of a damaged journal", want, got)
	if !strings.Contains(got, "journal repaired: tool call") {
		t.Errorf("the repair is not said:\n%s", got[:min(len(got), 600)])
	}
}

// TestSnapshotWithBadValuesIsRefused writes snapshots that match their
// journal and their checksum but hold what no fold of a journal could: a
// skill name that reaches outside the session's folder, a message past
// the transcript's end. Reopening refuses them and folds the journal.
func TestSnapshotWithBadValuesIsRefused(t *testing.T) {
	storeEveryTurn(t)
	w := newWorkspace(t)
	w.skill("alpha", "alpha does alpha work.", "ALPHA text.", "")
	f := w.open("", nil)
	f.turn("first", load("alpha"), say("loaded"))
	f.turn("second", say("fine"))
	dir := f.s.Dir()
	f.s.Close()
	jf, err := os.Open(filepath.Join(dir, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	defer jf.Close()
	good, err := loadSnapshot(dir, jf, "s1")
	if err != nil {
		t.Fatalf("the snapshot the close stored: %v", err)
	}
	os.Remove(filepath.Join(dir, SnapshotFile))
	want, _ := inspectedView(t, w, dir)
	for name, spoil := range map[string]func(s *foldSnapshot){
		"nothing spoiled":            nil,
		"a skill name with a path":   func(s *foldSnapshot) { s.st.Loaded[0].Name = "../../x" },
		"an execution id with a NUL": func(s *foldSnapshot) { s.st.Loaded[0].LoadExec = "x\x00" },
		"a message past the end":     func(s *foldSnapshot) { s.st.UserMsgs = append(s.st.UserMsgs, 1<<20) },
		"a store name of dots":       func(s *foldSnapshot) { s.st.Stores[".."] = []byte(`{}`) },
		"settings out of range":      func(s *foldSnapshot) { s.st.Settings.ListSize = -3 },
	} {
		t.Run(name, func(t *testing.T) {
			// a fresh copy to spoil: read it back from what was stored
			data, err := encodeSnapshot(good.key, good.st, good.body, good.checks)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, SnapshotFile), data, 0o600); err != nil {
				t.Fatal(err)
			}
			copyOf, err := loadSnapshot(dir, jf, "s1")
			if err != nil {
				t.Fatal(err)
			}
			if spoil != nil {
				spoil(copyOf)
			}
			data, err = encodeSnapshot(copyOf.key, copyOf.st, copyOf.body, copyOf.checks)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, SnapshotFile), data, 0o600); err != nil {
				t.Fatal(err)
			}
			got, at := inspectedView(t, w, dir)
			if spoil == nil && at == 0 {
				t.Fatal("the snapshot written again was not used")
			}
			if spoil != nil && at != 0 {
				t.Fatalf("the spoiled snapshot was used (at %d)", at)
			}
			sameLines(t, "the fold", want, got)
		})
	}
}
