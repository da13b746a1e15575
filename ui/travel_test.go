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
	d.pump(func(m *model) bool { return m.travel != nil }) // listed in the background
	d.settle()
	if d.m.travel == nil {
		t.Fatalf("alt+[ did not step back:\n%s", d.screen())
	}
	last := d.m.travel.hist.Len()
	// back to the first call: nothing loaded yet, only house-style preloaded
	for i := 0; i < last; i++ {
		d.key("alt+[")
	}
	scr := d.screen()
	if !strings.Contains(scr, "viewing call 1 of") || !strings.Contains(scr, "esc back to live") {
		t.Fatalf("no bar says which call is shown:\n%s", scr)
	}
	if first := d.m.travel.light; d.m.travel.idx != 0 || len(first.Loaded) != 0 || first.Turn != 1 {
		t.Fatalf("the first call's state: %d loaded, turn %d", len(first.Loaded), first.Turn)
	}
	// the call's request is read back from the journal, then shown
	d.pump(func(m *model) bool { return m.travel.whole[0] != nil })
	if !strings.Contains(d.m.cx.snap.Instructions, `<skill name="house-style"`) || strings.Contains(d.m.cx.snap.Instructions, `<skill name="account-review"`) {
		t.Fatalf("the context pane of call 1 does not show its request: %q", d.m.cx.snap.Instructions)
	}
	// the call after the first load has account-review in <current_context>
	d.key("alt+]")
	d.pump(func(m *model) bool { return m.travel.whole[1] != nil })
	if !strings.Contains(d.m.cx.snap.Context, `name="account-review"`) {
		t.Fatalf("call 2 should carry account-review: %q", d.m.cx.snap.Context)
	}
	if len(d.m.travel.whole) > wholeKept {
		t.Fatalf("time travel holds %d calls whole", len(d.m.travel.whole))
	}
	d.key("esc")
	if d.m.travel != nil || d.m.lru.snap != d.m.snap {
		t.Fatal("esc did not come back to the live session")
	}
	// /history 2 jumps to turn 2's first call
	d.send("/history 2")
	// the calls are listed in the background: a loaded machine may take
	// longer than settling does
	d.pump(func(m *model) bool { return m.travel != nil })
	if d.m.travel.light.Turn != 2 {
		t.Fatalf("/history 2: %+v", d.m.travel)
	}
}

// Enter in /skills picks a skill and opens its card, the record skillet
// why prints.
func TestSkillsViewOpensACard(t *testing.T) {
	dir := t.TempDir()
	sink := NewEventSink()
	s := realSession(t, sink, dir, "")
	defer s.Close()
	d := driveEngineWith(t, s, sink, 160, 48, Options{Style: "dark", Why: func(skill string) (string, error) { return "the card of " + skill, nil }})
	d.send("review account ACC-1042 for anomalies")
	d.send("/skills")
	if !strings.Contains(d.screen(), "enter a skill's card") {
		t.Fatalf("the Skills view does not say enter opens a card:\n%s", d.screen())
	}
	d.key("enter")
	d.settle()
	if _, ok := d.m.overlay.(*picker); !ok {
		t.Fatalf("enter did not open a skill picker: %T", d.m.overlay)
	}
	d.typeText("account")
	d.key("enter")
	d.settle()
	if !strings.Contains(d.screen(), "the card of account-review") {
		t.Fatalf("no card:\n%s", d.screen())
	}
}

// Enter on a row of the last turn's Offered / Delivered / Loaded table
// opens that skill's card.
func TestTheOfferedTableOpensACard(t *testing.T) {
	dir := t.TempDir()
	sink := NewEventSink()
	s := realSession(t, sink, dir, "")
	defer s.Close()
	d := driveEngineWith(t, s, sink, 160, 48, Options{Style: "dark", Why: func(skill string) (string, error) { return "the card of " + skill, nil }})
	d.send("review account ACC-1042 for anomalies")
	d.m.setFocus(paneLRU)
	names := d.m.lru.tableNames()
	if len(names) == 0 {
		t.Fatal("no table after a turn")
	}
	// past the loaded and preloaded skills to the table's last row
	for i := 0; i < len(d.m.lru.skills())+len(names)-1; i++ {
		d.key("down")
	}
	d.key("enter")
	d.settle()
	if want := "the card of " + names[len(names)-1]; !strings.Contains(d.screen(), want) {
		t.Fatalf("no card %q:\n%s", want, d.screen())
	}
}

// BenchmarkTimeTravelStep is one step back or on through a 20-turn
// session's model calls, with the screen drawn again.
func BenchmarkTimeTravelStep(b *testing.B) {
	sink := NewEventSink()
	s := realSession(b, sink, b.TempDir(), "")
	defer s.Close()
	d := driveEngine(b, s, sink, 160, 48)
	for i := 0; i < 20; i++ {
		d.send("review account ACC-1042 for anomalies")
	}
	d.key("alt+[")
	// the history is read from the journal in the background
	d.pump(func(m *model) bool { return m.travel != nil })
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d.m.travel.idx == 0 {
			d.m.travel.idx = d.m.travel.hist.Len() - 1
		}
		d.m.stepHistory(-1)
		_ = d.m.View()
	}
}
