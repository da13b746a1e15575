package ui

import (
	"strings"
	"testing"
)

// Stepping back shows the side panes as each model call went out, folded
// from the journal; esc comes back to the live session.
func TestTimeTravelShowsThePanesAsEachCallWentOut(t *testing.T) {
	dir := t.TempDir()
	sink := NewEventSink()
	s := realSession(t, sink, dir, "")
	defer s.Close()
	d := driveEngine(t, s, sink, 160, 48)
	d.send("review account ACC-1042 for anomalies")
	d.send("write an incident report for yesterday's outage")
	if got := d.m.snap.Loaded; len(got) != 2 {
		t.Fatalf("live: %d loaded", len(got))
	}
	d.key("alt+[")
	d.settle()
	if d.m.travel == nil {
		t.Fatalf("alt+[ did not step back:\n%s", d.screen())
	}
	last := len(d.m.travel.snaps)
	// back to the first call: nothing loaded yet, only house-style preloaded
	for i := 0; i < last; i++ {
		d.key("alt+[")
	}
	scr := d.screen()
	if !strings.Contains(scr, "viewing call 1 of") || !strings.Contains(scr, "esc back to live") {
		t.Fatalf("no bar says which call is shown:\n%s", scr)
	}
	if first := d.m.travel.snaps[0]; len(first.Loaded) != 0 || first.Turn != 1 {
		t.Fatalf("the first call's state: %d loaded, turn %d", len(first.Loaded), first.Turn)
	}
	if strings.Contains(d.m.cx.snap.Instructions, `<skill name="account-review"`) {
		t.Fatal("the context pane shows a skill loaded later")
	}
	// the call after the first load has account-review in <current_context>
	d.key("alt+]")
	if !strings.Contains(d.m.cx.snap.Context, `name="account-review"`) {
		t.Fatalf("call 2 should carry account-review: %q", d.m.cx.snap.Context)
	}
	d.key("esc")
	if d.m.travel != nil || d.m.lru.snap != d.m.snap {
		t.Fatal("esc did not come back to the live session")
	}
	// /history 2 jumps to turn 2's first call
	d.send("/history 2")
	if d.m.travel == nil || d.m.travel.snaps[d.m.travel.idx].Turn != 2 {
		t.Fatalf("/history 2: %+v", d.m.travel)
	}
}
