package ui

import (
	"skillet/harness/termtext"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// What a first session shows: a tool approved for the session says so, and
// a dialog leaves no stray letters of the pane beneath at its edges.

func TestSessionApprovalShowsInTheToolsPane(t *testing.T) {
	d := newDriver(t, nil, 140, 40)
	d.typeText("please review account ACME-42")
	d.key("enter")
	d.waitApproval()
	d.key("s")
	d.settle()
	lines := paneText(d.m, paneTools)
	if !strings.Contains(flat(lines), "1 approved for the session") {
		t.Fatalf("the tools pane's head does not count the session approval:\n%s", strings.Join(lines, "\n"))
	}
	for i, l := range lines {
		if strings.Contains(l, "run_checks") && i+1 < len(lines) {
			next := lines[i+1]
			if !strings.Contains(next, "✓ approved for the session") || strings.Contains(next, " ask") {
				t.Fatalf("run_checks, approved for the session, reads %q", next)
			}
			return
		}
	}
	t.Fatalf("run_checks is not in the tools pane:\n%s", strings.Join(lines, "\n"))
}

// isWordRune is what a cut word is made of: not blank, not a box border.
func isWordRune(r rune) bool { return r != ' ' && (r < 0x2500 || r > 0x259f) }

func TestApprovalDialogCutsNoWordAtItsEdges(t *testing.T) {
	for _, size := range [][2]int{{140, 40}, {120, 40}, {160, 48}, {200, 50}} {
		d := newDriver(t, nil, size[0], size[1])
		d.typeText("please review account ACME-42")
		d.key("enter")
		d.waitApproval()
		with := strings.Split(d.screen(), "\n")
		dlg := d.m.approvals[0]
		box, x, y := dlg.view(d.m.w, d.m.h, true)
		bw := termtext.Width(box[0])
		d.m.approvals = nil
		under := strings.Split(ansi.Strip(d.m.View().Content), "\n")
		d.m.approvals = []*approvalDialog{dlg}
		from, to := x-1, x+bw+1 // the dialog and its blank frame
		for row := max(0, y-1); row <= y+len(box) && row < len(with)-1; row++ {
			shown, bg := []rune(with[row]), []rune(under[row])
			for col, r := range shown {
				if (col >= from && col < to) || !isWordRune(r) {
					continue
				}
				// the word under this cell must lie wholly outside the dialog
				a, b := col, col
				for a > 0 && isWordRune(bg[a-1]) {
					a--
				}
				for b+1 < len(bg) && isWordRune(bg[b+1]) {
					b++
				}
				if a < to && b >= from {
					t.Fatalf("%dx%d: row %d shows %q, part of %q that the dialog cuts:\n%s", size[0], size[1], row, string(shown[col]), string(bg[a:b+1]), strings.Join(with, "\n"))
				}
			}
		}
	}
}

func TestInspectorEnterUnfoldsThePartsAndCountsToolCalls(t *testing.T) {
	d := newDriver(t, nil, 160, 200)
	d.send("draft it in the brand voice")
	d.key("ctrl+o")
	d.settle()
	if _, ok := d.m.overlay.(*inspector); !ok {
		t.Fatalf("ctrl+o opened %T", d.m.overlay)
	}
	s := d.screen()
	if !strings.Contains(s, "▸ list") || !strings.Contains(s, "more line(s) · enter unfolds") {
		t.Fatalf("the parts are not folded at first:\n%s", s)
	}
	// the assistant's message is one call of load_skill, and no text
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, ". assistant · ") && strings.Contains(l, "~0 tok") {
			t.Fatalf("a message of tool calls counts no tokens: %q", strings.TrimSpace(l))
		}
	}
	d.key("enter")
	s = d.screen()
	if strings.Contains(s, "more line(s)") || !strings.Contains(s, "▾ list") || !strings.Contains(s, "</available_skills>") {
		t.Fatalf("enter did not unfold the parts:\n%s", s)
	}
	d.key("enter")
	if s := d.screen(); !strings.Contains(s, "▸ list") || !strings.Contains(s, "more line(s) · enter unfolds") {
		t.Fatalf("enter again did not fold them:\n%s", s)
	}
}

// Time travel moves the transcript to the call viewed, and the Tools pane
// keeps each tool's policy.
func TestTimeTravelMovesTheTranscriptAndKeepsPolicies(t *testing.T) {
	sink := NewEventSink()
	s := realSession(t, sink, t.TempDir(), "")
	defer s.Close()
	d := driveEngine(t, s, sink, 160, 48)
	d.send("review account ACC-1042 for anomalies")
	d.send("write an incident report for yesterday's outage")
	d.send("run the release checks for v1.4.0")
	d.key("alt+[")
	d.settle()
	for d.m.travel != nil && d.m.travel.idx > 0 {
		d.key("alt+[")
	}
	d.pump(func(m *model) bool { return m.travel.whole[0] != nil })
	want := d.m.travel.whole[0].Window.Messages - 1
	if d.m.tr.sel != (item{kind: itemEntry, idx: want}) {
		t.Fatalf("the transcript selects %+v, not entry %d, the last the first call saw", d.m.tr.sel, want)
	}
	tr := flat(paneText(d.m, paneTranscript))
	if !strings.Contains(tr, "review account ACC-1042 for anomalies") || strings.Contains(tr, "run the release checks") {
		t.Fatalf("the transcript is not at the first call:\n%s", tr)
	}
	tools := paneText(d.m, paneTools)
	for i, l := range tools {
		if strings.Contains(l, "load_skill") && i+1 < len(tools) {
			if !strings.Contains(tools[i+1], "· never") {
				t.Fatalf("load_skill while travelling reads %q", tools[i+1])
			}
		}
	}
	d.key("esc")
	if !d.m.tr.follow {
		t.Fatal("back to live, the transcript does not follow the session again")
	}
}
