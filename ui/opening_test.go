package ui

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"skillet/harness"
	"skillet/harness/demo/demotest"
	"skillet/harness/event"
	"skillet/harness/rulebook"
)

// The program while a session reopens: a progress line at once, messages
// typed meanwhile queued and sent once it is open, commands that need the
// session refused and kept, and a reopen that fails ending the program
// with its error.

// sampleOptions are the harness options of a session over the sample
// skills with the offline demo model, its events going to sink.
func sampleOptions(t testing.TB, sink *Sink, dir string) harness.Options {
	t.Helper()
	p := demotest.Sample(t, "../sample-skills")
	return harness.Options{Config: p.Config, Catalog: p.Catalog, Model: p.Model, ModelName: p.ModelName, Dir: dir, OnEvent: sink.OnEvent, ApproveAll: true}
}

// journalOf runs turns in a new session and returns its journal.
func journalOf(t *testing.T, dir string, turns ...string) string {
	t.Helper()
	s, err := harness.New(sampleOptions(t, NewEventSink(), dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range turns {
		if _, err := s.Turn(context.Background(), text); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(s.Dir(), harness.JournalFile)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOpeningQueuesMessagesAndFillsThePanesOnceOpen(t *testing.T) {
	dir := t.TempDir()
	journal := journalOf(t, dir, "review account ACC-1042 for anomalies", "write an incident report for yesterday's outage")

	sink := NewEventSink()
	opts := sampleOptions(t, sink, dir)
	var done, total atomic.Int64
	read := make(chan struct{})
	release := make(chan struct{})
	opts.OnProgress = func(d, n int64) {
		done.Store(d)
		total.Store(n)
	}
	type opened struct {
		s   *harness.Session
		err error
	}
	result := make(chan opened, 1)
	go func() {
		s, err := harness.Open(journal, opts)
		close(read)
		<-release // the session is held back until the test has typed
		result <- opened{s, err}
	}()
	var sess *harness.Session
	t.Cleanup(func() {
		if sess != nil {
			sess.Close()
		}
	})
	r := driveModel(t, newModel(context.Background(), nil, Options{Style: "dark", Resumed: journal, Opening: &Opening{
		Label:    journal,
		Progress: func() (int64, int64) { return done.Load(), total.Load() },
		Wait: func() (Engine, error) {
			o := <-result
			sess = o.s
			return o.s, o.err
		},
	}}), sink, 160, 48)

	if scr := r.screen(); !strings.Contains(scr, "reopening") || !strings.Contains(scr, "journal.jsonl") || !strings.Contains(scr, "enter queues") {
		t.Fatalf("the first frame does not say the session is reopening:\n%s", scr)
	}
	<-read
	// the progress line reaches the end of the journal
	r.pump(func(*model) bool {
		return strings.Contains(r.m.opening.line(), "folding the events")
	})

	r.typeText("get account activity for ACC-1042")
	r.key("enter")
	if len(r.m.queue) != 1 || r.m.queue[0] != "get account activity for ACC-1042" || !strings.Contains(r.m.flash, "sent once the session is open") {
		t.Fatalf("a message typed while reopening is not queued: queue %q, flash %q", r.m.queue, r.m.flash)
	}
	r.typeText("/skills")
	r.key("enter")
	if !r.m.flashIsErr || !strings.Contains(r.m.flash, "/skills waits for the session") || r.m.in.value() != "/skills" {
		t.Fatalf("a command typed while reopening is not refused and kept: flash %q, input %q", r.m.flash, r.m.in.value())
	}
	r.key("ctrl+o")
	if r.m.overlay != nil || !strings.Contains(r.m.flash, "works once the session is open") {
		t.Fatalf("the inspector opened without a session: flash %q", r.m.flash)
	}
	if r.m.opening == nil || r.m.eng != nil {
		t.Fatal("the program took an engine before the reopen returned")
	}
	// what the engine says while it opens waits for it, as what it said
	// before a program started does
	sink.OnEvent(&event.Warning{Message: "said while reopening"})
	r.pump(func(*model) bool { return len(r.m.opening.held) == 1 })

	close(release)
	// the queued message is sent and answered
	r.pump(func(*model) bool {
		return r.m.opening == nil && !r.m.running && len(r.m.queue) == 0 && userTexts(r.m) == 3 && r.m.snap != nil && r.m.snap.Turn == 3
	})
	if scr := r.screen(); !strings.Contains(scr, "turn 3") || strings.Contains(scr, "reopening the session") {
		t.Fatalf("the panes did not fill in after the reopen:\n%s", scr)
	}
	if r.m.in.value() != "/skills" {
		t.Fatalf("the refused command left the input: %q", r.m.in.value())
	}
	held := false
	for _, mk := range r.m.tr.marks {
		held = held || mk.text == "said while reopening"
	}
	if !held {
		t.Fatal("the warning that arrived while reopening is not in the transcript")
	}
	var buf bytes.Buffer
	if err := sess.ExportMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "get account activity for ACC-1042") {
		t.Fatalf("the queued message never reached the session:\n%s", buf.String())
	}
}

// userTexts counts the user messages of the transcript the pane holds.
func userTexts(m *model) int {
	n := 0
	for _, e := range m.tr.entries.All() {
		if e.Kind == rulebook.EntryUser {
			n++
		}
	}
	return n
}

func TestOpeningThatFailsEndsTheProgramWithItsError(t *testing.T) {
	want := errors.New("reopen session /x/journal.jsonl: the journal is locked by another skillet")
	err := Run(context.Background(), nil, NewEventSink(), Options{
		Input:  strings.NewReader(""),
		Output: &bytes.Buffer{},
		Opening: &Opening{
			Label: "/x/journal.jsonl",
			Wait:  func() (Engine, error) { return nil, want },
		},
	})
	if !errors.Is(err, want) {
		t.Fatalf("Run returned %v, want the reopen's own error", err)
	}
}

func TestOpeningProgressLine(t *testing.T) {
	for _, tc := range []struct {
		done, total int64
		want        string
	}{
		{0, 0, "reopening J…"},
		{25_000_000, 100_000_000, "reopening J: 25 % (25.0 MB of 100.0 MB)"},
		{100_000_000, 100_000_000, "reopening J: read 100.0 MB, folding the events…"},
	} {
		st := &opening{label: "J", progress: func() (int64, int64) { return tc.done, tc.total }}
		if got := st.line(); got != tc.want {
			t.Errorf("%d of %d: %q, want %q", tc.done, tc.total, got, tc.want)
		}
	}
}
