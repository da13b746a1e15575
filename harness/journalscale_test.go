package harness

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"skillet/harness/event"
	"skillet/harness/journal"
	"strings"
	"testing"
	"unsafe"

	"skillet/harness/chat"
	"skillet/harness/harnesstest"
	"skillet/harness/rulebook"
	"skillet/skills"
)

// corpusDir finds shared/real-corpus/skills in a folder above the package,
// "" when it is not there.
func corpusDir() string { return harnesstest.SharedPath("real-corpus", "skills") }

// changedBytes is how many bytes of body are new since prev: the messages
// and tool list prev did not carry, and what lies between them.
func changedBytes(prev, body []byte) int {
	sp, ok := journal.SplitRequest(body)
	if !ok {
		return len(body)
	}
	had := map[string]bool{}
	if pp, ok := journal.SplitRequest(prev); ok {
		for _, m := range pp.Msgs {
			had[string(m)] = true
		}
		had[string(pp.Tools)] = true
	}
	n := len(sp.Head) + len(sp.Mid) + len(sp.Tail)
	for _, m := range sp.Msgs {
		if !had[string(m)] {
			n += len(m)
		}
	}
	if !had[string(sp.Tools)] {
		n += len(sp.Tools)
	}
	return n
}

// With the 1,180 real skills, a long session's journal grows by about
// what changes from one request to the next, not by the whole request.
func TestJournalGrowsByWhatChanged(t *testing.T) {
	corpus := corpusDir()
	if corpus == "" {
		t.Skip("real corpus not present: no shared/real-corpus/skills above the package")
	}
	turns := 100
	if testing.Short() {
		turns = 25
	}
	cat := skills.NewCatalog([]skills.Root{{Dir: corpus, Label: "corpus"}}, nil)
	if _, err := cat.Refresh(); err != nil {
		t.Logf("reading the corpus: %v", err)
	}
	model := &scripted{}
	rec := &recorder{}
	dir := t.TempDir()
	s, err := New(Options{Catalog: cat, Model: model, ModelName: "m", Dir: dir, OnEvent: rec.on})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	topics := []string{"review this pull request", "write a changelog", "debug a flaky test", "design a database schema", "draft release notes", "profile a slow query"}
	for i := 0; i < turns; i++ {
		msg := fmt.Sprintf("%s for service %d", topics[i%len(topics)], i)
		if i%4 == 0 {
			model.add(func(req *chat.Request) (*chat.Reply, error) {
				names := regexp.MustCompile(`<name>([^<]*)</name>`).FindAllStringSubmatch(req.Messages[0].Content, 1)
				if len(names) == 0 {
					return say("nothing to load")(req)
				}
				return load(names[0][1])(req)
			})
		}
		model.add(say(strings.Repeat(fmt.Sprintf("Answer %d. ", i), 40)))
		if _, err := s.Turn(ctxBG(), msg); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	var changed, calls int
	var prev []byte
	for _, e := range rec.ofType(event.TypeModelCall) {
		mc := e.(*event.ModelCall)
		changed += changedBytes(prev, mc.Request)
		prev = mc.Request
		calls++
	}
	// what the replies and results add, which the next request carries
	for _, e := range rec.all() {
		switch e := e.(type) {
		case *event.Assistant:
			changed += len(e.Raw)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, s.ID(), JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	const perCall = 2048
	t.Logf("%d turns, %d model calls: journal %d bytes, %d bytes per call; changed %d bytes in all (%d per call); requests %d bytes per call",
		turns, calls, fi.Size(), fi.Size()/int64(calls), changed, changed/calls, len(prev))
	if limit := int64(2*changed + perCall*calls); fi.Size() > limit {
		t.Fatalf("journal %d bytes, over 2 × %d changed + %d per call = %d", fi.Size(), changed, perCall, limit)
	}
	// and it reads back to the exact requests
	raw, _ := os.ReadFile(filepath.Join(dir, s.ID(), JournalFile))
	if testing.Verbose() {
		sizes := map[string]int{}
		for _, l := range strings.Split(string(raw), "\n") {
			typ := l
			if i := strings.Index(l, `","`); i > 9 {
				typ = l[9:i]
			}
			sizes[typ] += len(l)
		}
		t.Logf("bytes by line type: %v", sizes)
	}
	events, problems, err := journal.Read(bytes.NewReader(raw))
	if err != nil || len(problems) > 0 {
		t.Fatalf("read back: %v %v", err, problems)
	}
	live := rec.ofType(event.TypeModelCall)
	k := 0
	for _, e := range events {
		if mc, ok := e.(*event.ModelCall); ok {
			if !bytes.Equal(mc.Request, live[k].(*event.ModelCall).Request) {
				t.Fatalf("request %d does not read back byte for byte", k+1)
			}
			k++
		}
	}
	if k != len(live) {
		t.Fatalf("read back %d requests of %d", k, len(live))
	}
}

// A journal whose blob line is gone names the blob; the rest reads.
func TestJournalMissingBlobIsNamed(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("one", load("alpha"), say("ok"))
	f.turn("two", say("ok"))
	dir := f.s.Dir()
	f.s.Close()
	path := filepath.Join(dir, JournalFile)
	raw, _ := os.ReadFile(path)
	var kept []string
	dropped := ""
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if dropped == "" && strings.HasPrefix(l, `{"type":"blob"`) {
			dropped = l
			continue
		}
		kept = append(kept, l)
	}
	if dropped == "" {
		t.Fatal("no blob line in the journal")
	}
	events, problems, err := journal.Read(strings.NewReader(strings.Join(kept, "\n")))
	if err != nil || len(events) == 0 {
		t.Fatalf("read: %v, %d events", err, len(events))
	}
	if len(problems) == 0 || !strings.Contains(strings.Join(problems, "\n"), "blob sha256:") || !strings.Contains(strings.Join(problems, "\n"), "is missing") {
		t.Fatalf("the missing blob is not named: %v", problems)
	}
}

// Memory keeps the bodies of the latest calls only; the inspector still
// gets every call's exact request and reply, read back from the journal.
func TestOlderCallBodiesComeFromTheJournal(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.model.Raw = true // replies carry their raw body, as an endpoint's do
	for i := 0; i < rulebookKeep()+6; i++ {
		f.turn(fmt.Sprintf("message %d", i), say(fmt.Sprintf("answer %d", i)))
	}
	f.s.mu.Lock()
	first := f.s.st.Calls[0].Request
	f.s.mu.Unlock()
	if first != nil {
		t.Fatal("the first call's body is still held in memory")
	}
	calls := f.s.ModelCalls()
	live := f.rec.ofType(event.TypeModelCall)
	replies := f.rec.ofType(event.TypeAssistant)
	if len(calls) != len(live) || calls[0].Request != nil {
		t.Fatalf("%d calls, %d model_call events; the first listed with %d bytes", len(calls), len(live), len(calls[0].Request))
	}
	check := func(i int) {
		t.Helper()
		c, err := f.s.ModelCall(i)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(c.Request, live[i].(*event.ModelCall).Request) {
			t.Fatalf("call %d does not come back whole (request %d bytes)", i+1, len(c.Request))
		}
		if c.Reply != replies[i].(*event.Assistant).Raw {
			t.Fatalf("call %d: reply %q, want %q", i+1, c.Reply, replies[i].(*event.Assistant).Raw)
		}
	}
	// the latest first, so the index is built before later calls' replies
	// are written; then out of order
	for _, i := range []int{len(calls) - 1, 5, 0, 1, journal.FrameEvery + 1} {
		if i < len(calls) {
			check(i)
		}
	}
	// calls made after the index was built are found too
	for i := 0; i < journal.FrameEvery+3; i++ {
		f.turn(fmt.Sprintf("more %d", i), say(fmt.Sprintf("answer %d", i)))
	}
	live = f.rec.ofType(event.TypeModelCall)
	replies = f.rec.ofType(event.TypeAssistant)
	for i := range live {
		check(i)
	}
	if _, err := f.s.ModelCall(len(live)); err == nil {
		t.Error("a call past the last one is found")
	}
	// a reopened session finds them all, and those it makes after
	dir := f.s.Dir()
	f.s.Close()
	s2, err := Open(dir, Options{Catalog: w.catalog(), Model: f.model, OnEvent: f.rec.on})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	f.s = s2
	for i := range live {
		check(i)
	}
	// the index the reopening fold made grows with the calls after it
	for i := 0; i < 3; i++ {
		f.turn(fmt.Sprintf("after reopening %d", i), say(fmt.Sprintf("answer %d", i)))
	}
	live = f.rec.ofType(event.TypeModelCall)
	replies = f.rec.ofType(event.TypeAssistant)
	for _, i := range []int{len(live) - 1, len(live) - 3, 0, journal.FrameEvery} {
		check(i)
	}
}

func rulebookKeep() int { return rulebook.KeepCallBodies }

// An older call whose blob line is gone from the journal says which blob
// is missing; the calls around it still come back.
func TestOlderCallWithAMissingBlobSaysSo(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	for i := 0; i < rulebookKeep()+4; i++ {
		f.turn(fmt.Sprintf("message number %d", i), say(fmt.Sprintf("answer %d", i)))
	}
	path := filepath.Join(f.s.Dir(), JournalFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// the blob of the first user message is used by the first call only
	var kept [][]byte
	gone := ""
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if gone == "" && bytes.Contains(line, []byte(`"type":"blob"`)) && bytes.Contains(line, []byte("message number 0")) {
			gone, _ = journal.BlobHashOf(bytes.TrimSpace(line))
			continue
		}
		kept = append(kept, line)
	}
	if gone == "" {
		t.Fatal("no blob line holds the first message")
	}
	if err := os.WriteFile(path, bytes.Join(kept, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.ModelCall(0); err == nil || !strings.Contains(err.Error(), gone+" is missing") {
		t.Fatalf("call 1 with its blob gone: %v", err)
	}
	if c, err := f.s.ModelCall(f.s.State().Turn - 1); err != nil || len(c.Request) == 0 {
		t.Fatalf("the last call: %v", err)
	}
}

// A call indexed while it ran (its reply not written yet) still comes
// back with its reply once memory lets go of it.
func TestACallIndexedWhileItRanKeepsItsReply(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.model.Raw = true // replies carry their raw body, as an endpoint's do
	for i := 0; i < rulebookKeep()+2; i++ {
		f.turn(fmt.Sprintf("message %d", i), say(fmt.Sprintf("answer %d", i)))
	}
	running := len(f.rec.ofType(event.TypeModelCall)) // the index of the next call
	var peek error
	f.turn("peek while the model answers", func(req *chat.Request) (*chat.Reply, error) {
		_, peek = f.s.ModelCall(0) // builds the index: this call's reply is not written yet
		return harnesstest.Text("the answer of the call that ran"), nil
	})
	if peek != nil {
		t.Fatal(peek)
	}
	for i := 0; i < rulebookKeep()+1; i++ {
		f.turn(fmt.Sprintf("later %d", i), say("later"))
	}
	c, err := f.s.ModelCall(running)
	if err != nil {
		t.Fatal(err)
	}
	if want := f.rec.ofType(event.TypeAssistant)[running].(*event.Assistant).Raw; c.Reply != want || want == "" {
		t.Fatalf("call %d: reply %q, want %q", running+1, c.Reply, want)
	}
}

// A skill text the journal holds once comes back as one string however
// many events name it: a long session's preloads repeat it every turn.
func TestReadSkillTextsAreShared(t *testing.T) {
	body := event.SkillBody{Text: strings.Repeat("Follow the house style. ", 40)}
	c := journal.NewCodec()
	var lines [][]byte
	for turn := 1; turn <= 3; turn++ {
		ls, err := c.Encode(&event.SkillPreload{Header: event.Header{Type: event.TypeSkillPreload, Turn: turn}, Skill: "house", Version: "1", ExecutionID: fmt.Sprintf("x-%d", turn), Body: body})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, ls...)
	}
	if len(lines) != 4 {
		t.Fatalf("%d lines, want one blob and three events", len(lines))
	}
	r := journal.NewCodec()
	var texts []string
	for _, l := range lines {
		e, err := r.Decode(l)
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := e.(*event.SkillPreload); ok {
			texts = append(texts, p.Body.Text)
		}
	}
	if len(texts) != 3 || texts[0] != body.Text {
		t.Fatalf("read back %d texts", len(texts))
	}
	if unsafe.StringData(texts[0]) != unsafe.StringData(texts[2]) {
		t.Error("each event holds its own copy of the skill's text")
	}
}
