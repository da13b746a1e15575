package ui

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"skillet/harness"
	"skillet/harness/demo"
)

// realSession starts a harness session over the sample skills with the
// offline demo model, its events going to sink; a journal reopens that
// session instead.
func realSession(t testing.TB, sink *Sink, dir, journal string) *harness.Session {
	t.Helper()
	opts := sampleOptions(t, sink, dir) // not marked demo, so /model switches
	var err error
	var s *harness.Session
	if journal == "" {
		s, err = harness.New(opts)
	} else {
		s, err = harness.Open(journal, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// items is the transcript pane's items as text: entries and marks in
// order, as the pane lays them out.
func items(d *driver) string {
	var b strings.Builder
	tr := d.m.tr
	for _, it := range tr.items {
		switch it.kind {
		case itemEntry:
			e := tr.entries.At(it.idx)
			fmt.Fprintf(&b, "entry %d %s %q\n", e.Index, e.Kind, firstLineOf(e.Text))
		case itemMark:
			fmt.Fprintf(&b, "mark %s\n", tr.marks[it.idx].text)
		}
	}
	return b.String()
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// A resumed session shows the same transcript items as the live one:
// marks hang on the entry index the engine supplies (R7 loads and
// unloads, settings and model changes included).
func TestResumedTranscriptShowsTheSameItems(t *testing.T) {
	dir := t.TempDir()
	sink := NewEventSink()
	s := realSession(t, sink, dir, "")
	d := driveEngine(t, s, sink, 160, 48)
	for _, msg := range []string{
		"review account ACC-1042 for anomalies",
		"write an incident report for yesterday's outage",
		"/set max_loaded_skills 2",
		"/model other-model",
		`capture meeting notes: we decided to ship on Friday, task="ship v1.4" owner=Ana`,
		"/unload meeting-notes",
		"run the release checks for v1.4.0",
		"/model " + demo.ModelName, // what the reopened session talks to
	} {
		d.send(msg)
	}
	// the first screen's word on the skills and the workspace is for an
	// empty transcript
	live := strings.Join(slices.DeleteFunc(strings.SplitAfter(items(d), "\n"), func(l string) bool {
		return strings.Contains(l, " skills found") || strings.Contains(l, "agent tools work in")
	}), "")
	journal := filepath.Join(s.Dir(), harness.JournalFile)
	d.stop()
	s.Close()

	sink2 := NewEventSink()
	re := realSession(t, sink2, dir, journal)
	defer re.Close()
	d2 := driveEngineWith(t, re, sink2, 160, 48, Options{Style: "dark", Resumed: journal})
	resumed := items(d2)
	if first := strings.SplitN(resumed, "\n", 2)[0]; first != "mark resumed from "+journal {
		t.Fatalf("the first line does not say where the session was resumed from: %q", first)
	}
	resumed = strings.SplitN(resumed, "\n", 2)[1]
	if live != resumed {
		t.Fatalf("the resumed transcript differs from the live one\nlive:\n%s\nresumed:\n%s", live, resumed)
	}
	for _, w := range []string{"mark loaded account-review", "mark unloaded meeting-notes (user)", "mark max_loaded_skills = 2", "mark model = other-model", "mark turn 4 ended"} {
		if !strings.Contains(live, w) {
			t.Errorf("the transcript lacks %q:\n%s", w, live)
		}
	}
	// a new mark shows once, and no event is held to tell apart any more
	d2.send("/set max_loaded_skills 3")
	if n := strings.Count(items(d2), "mark max_loaded_skills = 3"); n != 1 || d2.m.marked != nil {
		t.Fatalf("the new mark shows %d times; %d mark events held", n, len(d2.m.marked))
	}
}
