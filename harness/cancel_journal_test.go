package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"skillet/harness/event"
	"skillet/harness/journal"
	"skillet/harness/rulebook"
	"skillet/harness/view"
	"slices"
	"strings"
	"testing"
	"time"

	"skillet/harness/chat"
)

// blockingModel streams some text, then waits for cancellation.
type blockingModel struct{ started chan struct{} }

func (m *blockingModel) Complete(ctx context.Context, req *chat.Request, on func(chat.StreamEvent)) (*chat.Reply, error) {
	on(chat.StreamEvent{Kind: chat.EventText, Text: "partial ans"})
	close(m.started)
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestR25_CancelDuringModelStreamKeepsPartialReply(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	bm := &blockingModel{started: make(chan struct{})}
	f := w.open("", func(o *Options) { o.Model = bm })
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-bm.started; cancel() }()
	end, err := f.s.Turn(ctx, "hello")
	if err != nil {
		t.Fatal(err)
	}
	if end.StopReason != event.StopCancelled {
		t.Fatalf("stop = %s", end.StopReason)
	}
	tr := f.s.Transcript().Items()
	last := tr[len(tr)-1]
	if last.Kind != rulebook.EntryAssistant || last.Text != "partial ans" || !last.Interrupted || len(last.ToolCalls) != 0 {
		t.Fatalf("last entry %+v", last)
	}
}

func TestR25_CancelDuringToolRunAnswersEveryCall(t *testing.T) {
	w := newWorkspace(t)
	w.tool("slow.yaml", "name: slow\nversion: 1\ndescription: Slow.\ncommand: [\"/bin/sleep\", \"30\"]\n")
	w.skill("slowpoke", "Slow things.", "S", "tools:\n  - name: slow\n")
	started := make(chan struct{}, 1)
	f := w.open("[approval]\nslow = \"never\"\n", func(o *Options) {
		prev := o.OnEvent
		o.OnEvent = func(e event.Event) {
			prev(e)
			if e.EventType() == event.TypeToolStarted {
				started <- struct{}{}
			}
		}
	})
	f.model.add(load("slowpoke"), call("slow", `{}`, "slow", `{}`))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	begin := time.Now()
	end, err := f.s.Turn(ctx, "run it")
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(begin) > 20*time.Second {
		t.Fatal("cancel did not stop the tool in flight")
	}
	if end.StopReason != event.StopCancelled {
		t.Fatalf("stop = %s", end.StopReason)
	}
	res := f.results()
	if len(res) != 3 || !strings.Contains(res[1].Text, "cancelled by user") || res[2].Text != "cancelled by user" {
		t.Fatalf("every call needs a result: %+v", res)
	}
	// the results the cancel gave say so by their mark
	var cancelled []bool
	for _, e := range f.rec.ofType(event.TypeToolResult) {
		cancelled = append(cancelled, e.(*event.ToolResult).Cancelled)
	}
	if !slices.Equal(cancelled, []bool{false, true, true}) {
		t.Fatalf("cancelled marks %v, want the two slow calls'", cancelled)
	}
	// the next turn composes a valid request
	f.turn("again", say("ok"))
	checkCallsHaveResults(t, f.model.last().Messages)
}

func TestJournalReopensSessionWithTranscriptLRUAndStores(t *testing.T) {
	w := newWorkspace(t)
	w.skill("notes", "Notes keeps meeting notes.", "N", "tools:\n  - name: remember\n")
	w.skill("other", "Other.", "O", "")
	w.tool("remember.yaml", "name: remember\nversion: 1\ndescription: Remember.\nparameters:\n  type: object\n  properties:\n    fact: {type: string}\nresponse: '{{appendStore \"facts\" .fact}}ok'\n")
	os.Setenv("OPENAI_API_KEY", "sk-secret-test-key")
	defer os.Unsetenv("OPENAI_API_KEY")
	f := w.open("", func(o *Options) { o.BaseURL = "https://user:pw@example.test/v1?key=sk-query-secret" })
	f.turn("take notes", load("notes"), call("remember", `{"fact":"f1"}`), say("noted"))
	f.turn("other", load("other"), say("ok"))
	before := f.s.Snapshot()
	dir := f.s.Dir()
	trBefore := f.s.Transcript().Items()
	f.s.Close()

	raw, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("sk-secret-test-key")) || bytes.Contains(raw, []byte("user:pw")) || bytes.Contains(raw, []byte("sk-query-secret")) {
		t.Fatal("a secret reached the journal")
	}
	for i, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil || m["type"] == nil || (m["turn"] == nil && (m["type"] != "blob" || m["hash"] == nil)) {
			t.Fatalf("journal line %d is neither an event nor a blob: %s", i+1, line)
		}
	}

	s2, err := Open(dir, Options{Catalog: w.catalog(), Model: &scripted{}, ModelName: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	after := s2.Snapshot()
	if len(s2.Transcript().Items()) != len(trBefore) {
		t.Fatalf("transcript %d entries, want %d", len(s2.Transcript().Items()), len(trBefore))
	}
	for i, e := range s2.Transcript().Items() {
		if e.Text != trBefore[i].Text || e.Kind != trBefore[i].Kind {
			t.Fatalf("entry %d differs: %+v vs %+v", i, e, trBefore[i])
		}
	}
	if strings.Join(loadedNames(s2), ",") != "other,notes" || after.Loaded[1].ExecutionID != before.Loaded[1].ExecutionID {
		t.Fatalf("LRU after reopen %+v, before %+v", after.Loaded, before.Loaded)
	}
	if !strings.Contains(string(after.Loaded[1].Store), "f1") {
		t.Fatalf("store after reopen %s", after.Loaded[1].Store)
	}
	if after.Turn != 2 || after.Instructions != before.Instructions {
		t.Fatalf("turn %d, instructions equal %v", after.Turn, after.Instructions == before.Instructions)
	}
	// the reopened session goes on with fresh execution ids
	m := s2.opts.Model.(*scripted)
	m.add(load("notes"), say("ok"))
	if _, err := s2.Turn(context.Background(), "three"); err != nil {
		t.Fatal(err)
	}
	if id := s2.Snapshot().Loaded[0].ExecutionID; id == before.Loaded[1].ExecutionID || id == before.Loaded[0].ExecutionID {
		t.Fatalf("execution id %s reused after reopen", id)
	}
}

func TestJournalReopenRepairsATurnCutShort(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("one", load("alpha"), say("ok"))
	dir := f.s.Dir()
	f.s.Close()
	// a crash after the model asked for a tool, and a torn last line
	jf, _ := os.OpenFile(filepath.Join(dir, JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	jf.WriteString(`{"type":"turn_start","turn":2,"text":"two"}` + "\n")
	jf.WriteString(`{"type":"assistant","turn":2,"call":1,"text":"","tool_calls":[{"id":"z1","name":"alpha_tool","arguments":"{}"}],"finish_reason":"tool_calls","interrupted":false}` + "\n")
	jf.WriteString(`{"type":"tool_res`)
	jf.Close()
	rec := &recorder{}
	s2, err := Open(dir, Options{Catalog: w.catalog(), Model: &scripted{}, OnEvent: rec.on})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	tr := s2.Transcript().Items()
	last := tr[len(tr)-1]
	if last.Kind != rulebook.EntryTool || last.ToolCallID != "z1" {
		t.Fatalf("the unanswered call should get a result: %+v", last)
	}
	if !strings.Contains(rec.warnings(), "decode event") || !strings.Contains(rec.warnings(), "skipped") {
		t.Fatalf("the torn line should be named: %q", rec.warnings())
	}
	if s2.Snapshot().LastTurn.StopReason != event.StopInterrupted {
		t.Fatal("the cut turn should be closed as interrupted")
	}
	// the torn line is cut off: everything after it reads, and the next
	// reopening warns of nothing
	raw, _ := os.ReadFile(filepath.Join(dir, JournalFile))
	events, problems, _ := journal.Read(bytes.NewReader(raw))
	if len(problems) != 0 || events[len(events)-1].EventType() != event.TypeTurnEnd {
		t.Fatalf("after repair: %d problems %v, last event %s", len(problems), problems, events[len(events)-1].EventType())
	}
	s2.Close()
	rec3 := &recorder{}
	s3, err := Open(dir, Options{Catalog: w.catalog(), Model: &scripted{}, OnEvent: rec3.on})
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	if strings.Contains(rec3.warnings(), "skipped") {
		t.Fatalf("the torn line warned again on the next reopening: %q", rec3.warnings())
	}
}

func TestJournalIsLockedAndClearAfterReopenKeepsJournaling(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("one", say("ok"))
	dir := f.s.Dir()
	if _, err := Open(dir, Options{Catalog: w.catalog(), Model: &scripted{}}); err == nil || !strings.Contains(err.Error(), "another skillet") {
		t.Fatalf("a second skillet must not append to an open session: %v", err)
	}
	f.s.Close()
	s2, err := Open(dir, Options{Catalog: w.catalog(), Model: &scripted{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if err := s2.Clear(); err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(s2.Dir()) != filepath.Dir(dir) {
		t.Fatalf("the new session went to %s, not beside %s", s2.Dir(), dir)
	}
	if _, err := os.Stat(filepath.Join(s2.Dir(), JournalFile)); err != nil {
		t.Fatalf("the new session has no journal: %v", err)
	}
}

func TestExportMarkdownHoldsTheSessionInOrder(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[approval]\nalpha_tool = \"ask\"\n", func(o *Options) {
		o.Approver = func(context.Context, view.ApprovalRequest) (event.Decision, error) { return event.DecisionOnce, nil }
	})
	f.turn("review", load("alpha"), call("alpha_tool", `{"q":"x"}`), say("all **good**"))
	if err := f.s.LoadSkill("beta"); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := f.s.ExportMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	order := []string{"## Turn 1", "**User:**", "load_skill", "contextChanged: loaded alpha", "alpha_tool", "approved once by the user", "alpha says x", "all **good**", "_Turn 1 ended: done", "contextChanged: loaded beta"}
	at := 0
	for _, want := range order {
		i := strings.Index(md[at:], want)
		if i < 0 {
			t.Fatalf("export lacks %q after position %d:\n%s", want, at, md)
		}
		at += i
	}
}
