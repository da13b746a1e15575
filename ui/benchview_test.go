package ui

import (
	"errors"
	"strings"
	"testing"
)

// TestReadOnlyRefusesWhatChangesTheSession: in a read-only session a
// message stays in the input with the reason, and the commands that would
// change the session are refused; the model is never asked.
func TestReadOnlyRefusesWhatChangesTheSession(t *testing.T) {
	d := newDriverWith(t, nil, 160, 48, Options{Style: "dark", ReadOnly: &ReadOnly{Reason: "a bench run", Label: "eval 1", Back: "quits"}})
	d.settle()
	// the hint line offers the key that closes it, not sending
	if scr := d.screen(); !strings.Contains(scr, "ctrl+q quits") || strings.Contains(scr, "enter send") || !strings.Contains(scr, "read-only: nothing is sent") {
		t.Errorf("the hints and input do not say the session is read-only:\n%s", scr)
	}
	d.send("review account ACC-1042")
	d.settle()
	if !strings.Contains(d.screen(), "read-only: a bench run · nothing is sent or changed · ctrl+q quits") {
		t.Fatalf("the refusal is not shown:\n%s", d.screen())
	}
	if d.m.in.value() != "review account ACC-1042" {
		t.Errorf("the input holds %q, want the refused message", d.m.in.value())
	}
	d.m.in.take()
	for _, line := range []string{"/load account-review", "/set max_loaded_skills 1", "/model gpt-4o", "/clear", "/profile codex", "/reload"} {
		d.m.flash = ""
		d.send(line)
		d.settle()
		if !strings.Contains(d.m.flash, "read-only: a bench run") {
			t.Errorf("%s was not refused:\n%s", line, d.screen())
		}
	}
	if n := len(d.script.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
	if snap := d.m.eng.Snapshot(); len(snap.Loaded) != 0 {
		t.Errorf("loaded %v in a read-only session", snap.Loaded)
	}
}

// TestBenchReportOpensARun: the report's view lists the runs on enter,
// filtered as typed, and picking one opens its session read-only; a
// session that does not open is an error on the message line.
func TestBenchReportOpensARun(t *testing.T) {
	var opened []string
	res := &BenchResult{Report: "report-style: helps", Runs: []BenchRun{
		{Label: "report-style · eval 1 · with_skill · run 1", Outcome: "passed 2/2", Session: "/b/1/with/1"},
		{Label: "report-style · eval 1 · without_skill · run 1", Outcome: "failed 1/2", Session: "/b/1/without/1"},
	}}
	opts := Options{Style: "dark", Bench: func(string) (*BenchResult, error) { return res, nil },
		OpenRun: func(session string) (*OpenedRun, error) {
			opened = append(opened, session)
			return nil, errors.New("no such run")
		}}
	d := newDriverWith(t, nil, 160, 48, opts)
	d.send("/bench report-style")
	d.settle()
	if s := d.screen(); !strings.Contains(s, "report-style: helps") || !strings.Contains(s, "enter open a run read-only") {
		t.Fatalf("the report:\n%s", s)
	}
	d.key("enter")
	d.settle()
	if s := d.screen(); !strings.Contains(s, "Open which run?") || !strings.Contains(s, "enter open · esc report") || !strings.Contains(s, "without_skill · run 1 · failed 1/2") {
		t.Fatalf("the run list:\n%s", s)
	}
	d.typeText("without")
	d.key("enter")
	d.settle()
	if len(opened) != 1 || opened[0] != "/b/1/without/1" {
		t.Fatalf("opened %v, want the without_skill run", opened)
	}
	if s := d.screen(); !strings.Contains(s, "open report-style · eval 1 · without_skill · run 1: no such run") {
		t.Errorf("the failure is not shown:\n%s", s)
	}
}
