package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"skillet/harness"
	"skillet/harness/event"
	"skillet/harness/harnesstest"
	"skillet/harness/rulebook"
	"skillet/harness/view"
)

func TestTurnShowsMessagesToolsAndMarks(t *testing.T) {
	d := newDriver(t, nil, 160, 70)
	d.typeText("please review account ACME-42")
	d.key("enter")
	d.waitApproval()
	if s := d.screen(); !strings.Contains(s, "Approval needed") || !strings.Contains(s, "Run run_checks?") {
		t.Fatalf("approval dialog not shown:\n%s", s)
	}
	d.key("s")
	d.settle()
	s := d.screen()
	for _, want := range []string{
		"❯ You · turn 1",
		"please review account ACME-42",
		`⚙ load_skill {"name":"account-review"}`,
		"▲ loaded account-review v2 · x-2", // x-1 is the preload's
		"contextChanged: loaded account-review",
		"✓ approved run_checks for the session",
		"Review of ACME-42",
		"turn 1 ended: done",
		"★ account-review v2",  // LRU pane
		"skill account-review", // context part
		"get_account_activity", // tools pane
		"window 8/60",          // status bar
		"loads 1/3",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}

func TestEnterSendsShiftEnterAddsLine(t *testing.T) {
	d := newDriver(t, harnesstest.New(harnesstest.Say("ok")), 120, 40)
	d.typeText("first line")
	d.key("shift+enter")
	d.typeText("second")
	d.key("alt+enter")
	d.typeText("third")
	if v := d.m.in.value(); v != "first line\nsecond\nthird" {
		t.Fatalf("input = %q, want three lines", v)
	}
	d.key("enter")
	d.settle()
	var got []string
	for _, e := range d.s.Transcript().Items() {
		if e.Kind == rulebook.EntryUser {
			got = append(got, e.Text)
		}
	}
	if len(got) != 1 || got[0] != "first line\nsecond\nthird" {
		t.Fatalf("turns = %q", got)
	}
	if sent, _ := harnesstest.SinceUser(d.script.Last()); sent != got[0] {
		t.Fatalf("the model was sent %q", sent)
	}
	if d.m.in.value() != "" {
		t.Fatalf("input not emptied after send: %q", d.m.in.value())
	}
	// history: ↑ brings the message back
	d.key("up")
	if d.m.in.value() != "first line\nsecond\nthird" {
		t.Fatalf("history up = %q", d.m.in.value())
	}
}

func TestR25_EscCancelsRunningTurn(t *testing.T) {
	started := make(chan struct{})
	d := newDriver(t, harnesstest.New(harnesstest.Block(started)), 120, 40)
	d.typeText("wait for me")
	d.key("enter")
	d.pump(func(m *model) bool { return m.running && m.pendingSeq > 0 })
	<-started
	if s := d.screen(); !strings.Contains(s, "esc cancels it") {
		t.Fatalf("running turn not shown:\n%s", s)
	}
	// a second message waits in the queue while the turn runs
	d.typeText("again")
	d.key("enter")
	if len(d.m.queue) != 1 || !strings.Contains(d.screen(), "⏸ queued again") {
		t.Fatalf("second message not queued: %q\n%s", d.m.queue, d.screen())
	}
	d.key("esc")
	d.settle()
	if d.m.running {
		t.Fatal("turn still running after esc")
	}
	// cancelling the turn sends nothing more: the queued text is back in
	// the input
	if !strings.HasPrefix(d.m.flash, "turn cancelled") || d.m.in.value() != "again" || len(d.m.queue) != 0 {
		t.Fatalf("flash = %q, input %q, queue %q", d.m.flash, d.m.in.value(), d.m.queue)
	}
	if last := d.s.Transcript().Items(); !last[len(last)-1].Interrupted {
		t.Fatalf("engine did not record the interruption: %+v", last[len(last)-1])
	}
	if !strings.Contains(d.screen(), "interrupted") {
		t.Fatalf("interrupted message not marked:\n%s", d.screen())
	}
}

func TestR15_ApprovalDialogKeys(t *testing.T) {
	for _, tc := range []struct {
		keys []string
		want event.Decision
	}{
		{[]string{"a"}, event.DecisionOnce},
		{[]string{"s"}, event.DecisionAll},
		{[]string{"d"}, event.DecisionDeny},
		{[]string{"esc"}, event.DecisionDeny},
		{[]string{"enter"}, event.DecisionDeny}, // deny is the default
		{[]string{"space"}, event.DecisionDeny},
		{[]string{"right", "enter"}, event.DecisionOnce},
		{[]string{"left", "enter"}, event.DecisionAll},
		{[]string{"left", "left", "enter"}, event.DecisionOnce},
	} {
		t.Run(strings.Join(tc.keys, "+"), func(t *testing.T) {
			d := newDriver(t, nil, 100, 30)
			got := make(chan event.Decision, 1)
			go func() {
				dec, _ := NewApprover(d.sink)(context.Background(), view.ApprovalRequest{Name: "run_checks", Arguments: `{"quick":true}`, Kind: "command"})
				got <- dec
			}()
			d.waitApproval()
			if s := d.screen(); !strings.Contains(s, `"quick": true`) {
				t.Fatalf("arguments not shown pretty:\n%s", s)
			}
			d.key(tc.keys...)
			if dec := <-got; dec != tc.want {
				t.Fatalf("decision = %q, want %q", dec, tc.want)
			}
			if len(d.m.approvals) != 0 {
				t.Fatal("dialog still open")
			}
		})
	}
}

func TestR15_ApprovalClosesWhenTurnCancelled(t *testing.T) {
	d := newDriver(t, nil, 100, 30)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := NewApprover(d.sink)(ctx, view.ApprovalRequest{Name: "run_checks"})
		errc <- err
	}()
	d.pump(func(m *model) bool { return len(m.approvals) == 1 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	d.pump(func(m *model) bool { return len(m.approvals) == 0 })
	if strings.Contains(d.screen(), "Approval needed") {
		t.Fatal("dialog still drawn")
	}
}

func TestApproverAfterProgramEndsDenies(t *testing.T) {
	s := NewEventSink()
	stop := s.attach(&driver{msgs: make(chan tea.Msg, 8)})
	stop()
	dec, err := NewApprover(s)(context.Background(), view.ApprovalRequest{Name: "x"})
	if dec != event.DecisionDeny || err == nil {
		t.Fatalf("got %q, %v; want deny with an error", dec, err)
	}
}

func TestCommandErrorsShowInMessageLine(t *testing.T) {
	d := newDriver(t, nil, 120, 40)
	for _, tc := range []struct{ line, want string }{
		{"/load nosuch", `load nosuch: no skill named "nosuch"`},
		{"/set max_loaded_skills zero", "want a whole number"},
		{"/set nokey 1", `unknown setting "nokey"`},
		{"/frobnicate", "unknown command /frobnicate"},
		{"/load", "/load needs a skill name"},
		{"/call nosuch", "not a tool of the next request"},
		{"/export", "/export needs a file name"},
	} {
		d.send(tc.line)
		if !d.m.flashIsErr || !strings.Contains(d.m.flash, tc.want) {
			t.Errorf("%s: message line = %q, want an error with %q", tc.line, d.m.flash, tc.want)
		}
		if !strings.Contains(d.screen(), tc.want) {
			t.Errorf("%s: error not on screen", tc.line)
		}
	}
}

func TestCommandsChangeTheSession(t *testing.T) {
	d := newDriver(t, nil, 160, 48)
	d.send("/load brand-voice")
	if got := d.m.snap.Loaded; len(got) != 1 || got[0].Name != "brand-voice" {
		t.Fatalf("loaded = %+v", got)
	}
	d.send("/set max_loaded_skills 1")
	if d.m.snap.Limits.MaxLoadedSkills != 1 {
		t.Fatal("/set did not apply")
	}
	d.send("/model gpt-4o")
	if d.m.snap.Model != "gpt-4o" || !strings.Contains(d.screen(), "model gpt-4o") {
		t.Fatalf("model not switched:\n%s", d.screen())
	}
	d.send("/unload brand-voice")
	if len(d.m.snap.Loaded) != 0 {
		t.Fatal("/unload did not apply")
	}
	path := filepath.Join(t.TempDir(), "out.md")
	d.send("/export " + path)
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "contextChanged: unloaded brand-voice") {
		t.Fatalf("export: %v %q", err, b)
	}
	d.send("/clear")
	// a new session: nothing but the first screen's word on the skills
	if d.m.tr.entries.Len() != 0 || len(d.m.tr.marks) > 1 || (len(d.m.tr.marks) == 1 && !strings.Contains(d.m.tr.marks[0].text, "skills found")) {
		t.Fatalf("/clear left %d entries, %d marks", d.m.tr.entries.Len(), len(d.m.tr.marks))
	}
}

func TestModelPickerListsAndPicks(t *testing.T) {
	d := newDriver(t, nil, 120, 40)
	d.send("/model")
	p, ok := d.m.overlay.(*picker)
	if !ok || p.loading {
		t.Fatalf("picker not open or still loading: %T", d.m.overlay)
	}
	d.typeText("o4")
	if ms := p.matches(); len(ms) != 1 || ms[0] != "o4-mini" {
		t.Fatalf("filter matches %q", ms)
	}
	d.key("enter")
	d.settle()
	if d.m.snap.Model != "o4-mini" {
		t.Fatalf("model = %q", d.m.snap.Model)
	}
}

func TestTabCompletesCommandsAndNames(t *testing.T) {
	d := newDriver(t, nil, 120, 40)
	for _, tc := range []struct{ typed, want string }{
		{"/lo", "/load "},
		{"/load acc", "/load account-review "},
		{"/set max_lo", "/set max_load"},
		{"/set max_loade", "/set max_loaded_skills "},
		{"/call get_we", "/call get_weather "},
		{"/re", "/reload "},
	} {
		d.m.in.set(tc.typed)
		d.key("tab")
		if got := d.m.in.value(); got != tc.want {
			t.Errorf("%q + tab = %q, want %q", tc.typed, got, tc.want)
		}
		if d.m.focus != paneInput {
			t.Errorf("%q + tab moved focus", tc.typed)
		}
	}
	// ambiguous: the common prefix, and the candidates shown
	d.m.in.set("/s")
	d.key("tab")
	if got := d.m.in.value(); got != "/s" || !strings.Contains(d.m.flash, "set") || !strings.Contains(d.m.flash, "skills") {
		t.Errorf("ambiguous completion: %q, flash %q", got, d.m.flash)
	}
	// plain text: tab moves focus
	d.m.in.set("hello")
	d.key("tab")
	if d.m.focus != paneTranscript {
		t.Errorf("tab with plain text: focus = %v", d.m.focus)
	}
}

func TestFocusCyclesAndNarrowTabs(t *testing.T) {
	d := newDriver(t, nil, 80, 24)
	want := []pane{paneTranscript, paneLRU, paneContext, paneTools, paneInput}
	for _, p := range want {
		d.key("tab")
		if d.m.focus != p {
			t.Fatalf("focus = %v, want %v", d.m.focus, p)
		}
		if p != paneInput && !strings.Contains(d.screen(), "["+p.shortTitle()+"]") {
			t.Fatalf("narrow tab bar does not show %s:\n%s", p.shortTitle(), d.screen())
		}
	}
	d.key("shift+tab")
	if d.m.focus != paneTools {
		t.Fatalf("shift+tab: focus = %v", d.m.focus)
	}
}

func TestCtrlCTwiceQuits(t *testing.T) {
	d := newDriver(t, nil, 100, 30)
	d.key("ctrl+c")
	d.settle()
	if d.quit || !strings.Contains(d.screen(), "press ctrl+c again to quit") {
		t.Fatalf("first ctrl+c: quit=%v\n%s", d.quit, d.screen())
	}
	d.key("ctrl+c")
	d.settle()
	if !d.quit {
		t.Fatal("second ctrl+c did not quit")
	}
}

func TestHelpShowsKeyMap(t *testing.T) {
	d := newDriver(t, nil, 120, 60)
	d.key("?")
	s := d.screen()
	for _, want := range []string{"Help", "/load NAME", "ctrl+o", "inspector", "shift/alt+enter"} {
		if !strings.Contains(s, want) {
			t.Errorf("help lacks %q:\n%s", want, s)
		}
	}
	d.key("esc")
	if d.m.overlay != nil {
		t.Fatal("esc did not close help")
	}
	// '?' typed into a message is text, not help
	d.typeText("why?")
	if d.m.overlay != nil || d.m.in.value() != "why?" {
		t.Fatalf("? in a message opened help: %q", d.m.in.value())
	}
}

func TestSkillsOverlayShowsErrorsAndShadowed(t *testing.T) {
	d := newDriver(t, nil, 120, 40)
	d.send("/skills")
	s := d.screen()
	for _, want := range []string{"7 skills", "1 invalid", "broken-skill", "✗ description: must not be empty", "shadowed by an earlier root", "preload"} {
		if !strings.Contains(s, want) {
			t.Errorf("/skills lacks %q:\n%s", want, s)
		}
	}
}

func TestInspectorShowsRequestReplyCopiesAndWrites(t *testing.T) {
	d := newDriver(t, nil, 160, 48)
	d.send("draft it in the brand voice")
	dir := t.TempDir()
	d.m.opts.ExportDir = dir
	d.key("ctrl+o")
	d.settle()
	in, ok := d.m.overlay.(*inspector)
	if !ok || len(in.calls) != 2 {
		t.Fatalf("inspector: %T with %d calls", d.m.overlay, len(in.calls))
	}
	// the request's parts first: instructions by part, messages, tools,
	// and what changed since the call before
	s := d.screen()
	for _, want := range []string{"call 2 of 2", "Instructions", "▸ prompt", "▸ <current_context> brand-voice", "Messages", "Tools", "Since the call before", "+ <current_context>: brand-voice"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the anatomy lacks %q:\n%s", want, s)
		}
	}
	d.key("a") // the raw JSON, one key away
	if s := d.screen(); !strings.Contains(s, `"messages": [`) || !strings.Contains(s, "<current_context>") {
		t.Fatalf("request not shown raw:\n%s", s)
	}
	d.key("a")
	d.key("left")
	if !strings.Contains(d.screen(), "call 1 of 2") {
		t.Fatal("left did not go to the previous call")
	}
	d.key("tab")
	if s := d.screen(); !strings.Contains(s, "Reply assembled from 1 chunk") {
		t.Fatalf("reply not assembled:\n%s", s)
	}
	d.key("a")
	if !strings.Contains(d.screen(), `"choices": [`) {
		t.Fatalf("raw reply not shown:\n%s", d.screen())
	}
	d.key("y")
	d.settle()
	if len(d.clipboard) != 1 || !strings.Contains(d.clipboard[0], `"choices"`) {
		t.Fatalf("clipboard = %q", d.clipboard)
	}
	d.key("w")
	d.settle()
	b, err := os.ReadFile(filepath.Join(dir, "skillet-turn1-call1-reply.json"))
	if err != nil || !strings.Contains(string(b), `"choices"`) {
		t.Fatalf("written reply: %v %q (flash %q)", err, b, d.m.flash)
	}
}

// The calls are fetched again at every model call and reply: the shown
// call's anatomy is made again only when that call changed.
func TestInspectorKeepsTheAnatomyOfAnUnchangedCall(t *testing.T) {
	d := newDriver(t, nil, 160, 48)
	d.send("draft it in the brand voice")
	d.key("ctrl+o")
	d.settle()
	in := d.m.overlay.(*inspector)
	d.key("left")
	p := in.p
	d.key("r")
	d.settle()
	if in.p != p {
		t.Fatal("a refresh that left the shown call as it was made its anatomy again")
	}
	// the last call shown, a new turn's calls move it on and are shown
	d.key("right")
	last := in.p
	done := make(chan error, 1)
	go func() { _, err := d.s.Turn(context.Background(), "the brand voice once more"); done <- err }()
	d.until(func(*model) bool { return len(done) == 1 && in.idx == 3 })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if in.p == last || !strings.Contains(d.screen(), "call 4 of 4") {
		t.Fatalf("the new call is not shown:\n%s", d.screen())
	}
}

func TestReadableJSONKeepsEscapedBackslash(t *testing.T) {
	in := `{"a":"\u003cx\u003e \\u003c \u0026"}`
	want := `{"a":"<x> \\u003c &"}`
	if got := readableJSON(in); got != want {
		t.Fatalf("readableJSON = %s, want %s", got, want)
	}
}

func TestBackgroundLightSwitchesStyle(t *testing.T) {
	s, _ := sampleSession(t, NewEventSink(), nil)
	m := newModel(context.Background(), s, Options{})
	m.Update(tea.BackgroundColorMsg{Color: ansi.White})
	if m.md.Style() != "light" || m.th.dark {
		t.Fatalf("style = %q dark=%v after a light background", m.md.Style(), m.th.dark)
	}
	// a fixed style is kept
	m = newModel(context.Background(), s, Options{Style: "dark"})
	m.Update(tea.BackgroundColorMsg{Color: ansi.White})
	if m.md.Style() != "dark" {
		t.Fatal("fixed style changed")
	}
}

func TestMouseWheelScrollsPaneUnderPointer(t *testing.T) {
	d := newDriver(t, nil, 160, 48)
	lay := d.m.layout()
	r := lay.panes[paneContext]
	before := d.m.cx.sc.off
	d.update(tea.MouseWheelMsg{X: r.x + 2, Y: r.y + 2, Button: tea.MouseWheelDown})
	if d.m.cx.sc.off != before+3 {
		t.Fatalf("context offset %d → %d, want +3", before, d.m.cx.sc.off)
	}
	if d.m.focus != paneInput {
		t.Fatal("wheel moved focus")
	}
	d.update(tea.MouseClickMsg{X: r.x + 2, Y: r.y + 2, Button: tea.MouseLeft})
	if d.m.focus != paneContext {
		t.Fatalf("click: focus = %v", d.m.focus)
	}
}

// /model on the offline demo model says the name is ignored, as --model
// does, and changes nothing.
func TestModelCommandOnTheDemoModelIsIgnored(t *testing.T) {
	sink := NewEventSink()
	s, _ := sampleSessionWith(t, sink, nil, func(o *harness.Options) { o.Demo = true })
	d := driveEngine(t, s, sink, 120, 40)
	if !d.m.snap.Demo {
		t.Fatal("the session is not marked as the demo model's")
	}
	before := d.m.snap.Model
	d.send("/model gpt-4o")
	if !strings.Contains(d.screen(), "is ignored: the offline demo model answers") {
		t.Fatalf("no message that the name is ignored:\n%s", d.screen())
	}
	if d.m.snap.Model != before {
		t.Fatalf("the model changed to %q", d.m.snap.Model)
	}
}

// A streamed reply is shown assembled: text, tool calls, finish reason and
// the usage the endpoint reported.
func TestReplyAnatomyAssemblesTheStream(t *testing.T) {
	raw := "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"lo\",\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"load_skill\",\"arguments\":\"{\\\"na\"}}]}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"me\\\":\\\"x\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n" +
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n"
	got := replyAnatomy(raw)
	for _, want := range []string{"4 chunk(s)", "finish reason tool_calls", "12 prompt + 3 completion", "  Hello", `⚙ load_skill (c1) {"name":"x"}`} {
		if !strings.Contains(got, want) {
			t.Errorf("anatomy lacks %q:\n%s", want, got)
		}
	}
}

// Descriptions edited on disk between two turns change two <description>
// lines of the list: the inspector names them, as skillet replay diff
// does, beside the new messages.
func TestInspectorNamesEditedDescriptions(t *testing.T) {
	w, older := sampleWorkspace(t)
	sink := NewEventSink()
	s, _ := openSession(t, w, sink, harnesstest.New(harnesstest.Say("first answer"), harnesstest.Say("second answer")), nil, older)
	d := driveEngine(t, s, sink, 160, 60)
	d.send("hello there")
	w.Skill("pdf-tools", "Fill, read and merge PDF forms.", "# PDF tools\nUse the form fields as given.", "metadata:\n  version: \"3\"\n")
	w.Skill("data-cleanup", "Normalise and dedupe CSV exports before analysis.", "# Data cleanup\nTrim, dedupe, then sort.", "metadata:\n  version: \"1\"\n")
	d.send("and again")
	d.key("ctrl+o")
	d.settle()
	s2 := d.screen()
	for _, want := range []string{"call 2 of 2", "Since the call before", "~ list: pdf-tools, data-cleanup <description> edited", "+ 2 new message(s)"} {
		if !strings.Contains(s2, want) {
			t.Fatalf("the anatomy lacks %q:\n%s", want, s2)
		}
	}
	if strings.Contains(s2, "instructions edited") || strings.Contains(s2, "left the window") {
		t.Errorf("the diff says more than changed:\n%s", s2)
	}
}

// The hint line under a focused pane is built from that pane's own keys
// and the global ones: each pane's bindings reach the screen, and another
// pane's do not.
func TestHintLineShowsTheFocusedPanesKeys(t *testing.T) {
	d := newDriver(t, nil, 160, 40)
	for p := paneTranscript; p < numPanes; p++ {
		d.key("tab")
		if d.m.focus != p {
			t.Fatalf("focus = %v, want %v", d.m.focus, p)
		}
		screen := d.screen()
		own := d.m.panels[p].bindings(d.m.keys)
		if len(own) == 0 {
			t.Fatalf("%s has no keys of its own", p.title())
		}
		for _, b := range own {
			if h := b.Help(); !strings.Contains(screen, h.Desc) {
				t.Errorf("focused %s: the hint line lacks %q (%s):\n%s", p.title(), h.Desc, h.Key, screen)
			}
		}
		if !strings.Contains(screen, "pane keys") {
			t.Errorf("focused %s: the global keys are missing from the hint line:\n%s", p.title(), screen)
		}
	}
	d.key("tab") // back to the input: its own hint line
	if d.m.focus != paneInput || d.m.paneBindings() != nil {
		t.Fatalf("focus = %v with pane keys %v", d.m.focus, d.m.paneBindings())
	}
	if screen := d.screen(); strings.Contains(screen, "call by hand") || strings.Contains(screen, "state & store") {
		t.Errorf("the input's hint line shows a pane's keys:\n%s", screen)
	}
}
