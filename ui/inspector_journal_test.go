package ui

import (
	"fmt"
	"strings"
	"testing"

	"skillet/harness/rulebook"
)

// In a session longer than memory keeps calls for, the inspector reads an
// older call back from the journal when it is shown, holds only a few of
// them, and shows the same request the model got.
func TestInspectorReadsOlderCallsFromTheJournal(t *testing.T) {
	sink := NewEventSink()
	s := realSession(t, sink, t.TempDir(), "")
	defer s.Close()
	d := driveEngine(t, s, sink, 160, 48)
	turns := rulebook.KeepCallBodies/2 + bodiesKept + 2
	for i := 0; i < turns; i++ {
		d.send(fmt.Sprintf("review account ACC-%d for anomalies", 1000+i))
	}
	d.key("ctrl+o")
	d.pump(func(m *model) bool {
		in, ok := m.overlay.(*inspector)
		return ok && !in.loading
	})
	in := d.m.overlay.(*inspector)
	if in.calls[0].Request != nil {
		t.Fatal("the first call's body came with the list: memory holds it")
	}
	// back to the first call, one key at a time
	for in.idx > 0 {
		d.key("left")
	}
	d.pump(func(m *model) bool { return in.calls[0].Request != nil })
	d.settle()
	want, err := s.ModelCall(0)
	if err != nil {
		t.Fatal(err)
	}
	if string(in.calls[0].Request) != string(want.Request) || !strings.Contains(string(want.Request), "ACC-1000") {
		t.Fatalf("call 1 shows %d bytes, the journal has %d", len(in.calls[0].Request), len(want.Request))
	}
	d.key("a")
	if sc := d.screen(); !strings.Contains(sc, "call 1 of") || !strings.Contains(sc, "ACC-1000") {
		t.Fatalf("the first call's request is not shown:\n%s", sc)
	}
	// a refresh (a new call, or r) keeps what was read back
	d.key("r")
	d.pump(func(m *model) bool { return !in.loading })
	d.settle()
	if in.calls[0].Request == nil || len(in.fetching) != 0 {
		t.Fatalf("a refresh dropped the call read back (fetching %v)", in.fetching)
	}
	held := 0
	for i, c := range in.calls {
		if c.Request != nil && i < len(in.calls)-rulebook.KeepCallBodies {
			held++
		}
	}
	if held > bodiesKept {
		t.Fatalf("the inspector holds %d older calls whole, want at most %d", held, bodiesKept)
	}
}
