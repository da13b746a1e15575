package ui

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"skillet/harness/event"
	"skillet/harness/harnesstest"
	"skillet/harness/rulebook"
	"skillet/harness/view"
)

// screenOf draws the model and returns the screen without colour.
func screenOf(m *model) string { return ansi.Strip(m.View().Content) }

// paneText draws the model and returns one pane's content lines without
// colour or borders.
func paneText(m *model, p pane) []string {
	m.View()
	var all []string
	switch p {
	case paneLRU:
		all = m.lru.lines
	case paneTools:
		all = m.tools.lines
	}
	if all != nil {
		var out []string
		for _, l := range all {
			out = append(out, ansi.Strip(l))
		}
		return out
	}
	r := m.layout().panes[p]
	var out []string
	for _, l := range m.paneBox(p, r)[1 : r.h-1] {
		out = append(out, ansi.Strip(ansi.Cut(l, 1, r.w-1)))
	}
	return out
}

// flat joins wrapped lines into one line of words, so assertions do not
// depend on where a pane wraps.
func flat(lines []string) string {
	s := strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
	return strings.ReplaceAll(s, "- ", "-")
}

func TestR9_OutOfWindowEntriesDimmed(t *testing.T) {
	st := newStatic(t, fakeEntries(80))
	st.snap.Window.FirstEntry = 20 // entries 0–19 left the window
	m := loadStatic(t, st, 160, 48)
	m.tr.home()
	m.View()
	raw := m.View().Content
	// the first entry is dimmed: drawn in the dim colour alone
	first := m.tr.linesAt(m.tr.pos[item{itemEntry, 0}], m.tr.w-1)
	for _, l := range first {
		if l != "" && l != m.th.dim.Render(ansi.Strip(l)) {
			t.Fatalf("entry 0 line not dimmed: %q", l)
		}
	}
	// an entry in the window keeps its own styles
	in := m.tr.linesAt(m.tr.pos[item{itemEntry, 20}], m.tr.w-1)
	if in[1] == m.th.dim.Render(ansi.Strip(in[1])) {
		t.Fatalf("entry 20 dimmed: %q", in[1])
	}
	if strings.Contains(ansi.Strip(raw), "window starts here") {
		t.Fatal("divider shown at the top while scrolled to the start")
	}
	m.tr.end()
	m.View()
	m.tr.reveal(m.tr.pos[item{itemDivider, 0}], true)
	if s := flat(paneText(m, paneTranscript)); !strings.Contains(s, "the model's window starts here") || !strings.Contains(s, "20 earlier message(s) above are out of it (R9)") {
		t.Fatalf("window divider missing:\n%s", s)
	}
}

func TestR9_CapExceededInStatusBar(t *testing.T) {
	st := newStatic(t, fakeEntries(8))
	st.snap.Window.CapExceeded = true
	m := loadStatic(t, st, 160, 48)
	if s := screenOf(m); !strings.Contains(s, "cap exceeded") {
		t.Fatalf("cap exceeded not in status bar:\n%s", s)
	}
}

func TestR2_LRUShowsLoadedMostRecentFirstWithMarks(t *testing.T) {
	st := newStatic(t, nil)
	st.snap.Loaded = []view.LoadedSkill{
		{Name: "brand-voice", Version: "1", ExecutionID: "x-3", Active: true, Tokens: 1200, By: "model", LoadedTurn: 3, Changed: true},
		{Name: "account-review", Version: "2", ExecutionID: "x-1", Tokens: 800, By: "user", LoadedTurn: 1, OutOfWindow: true,
			Tools: []string{"get_account_activity@1"}},
	}
	m := loadStatic(t, st, 120, 40)
	s := flat(paneText(m, paneLRU))
	i, j := strings.Index(s, "brand-voice v1"), strings.Index(s, "account-review v2")
	if i < 0 || j < 0 || i > j {
		t.Fatalf("LRU order wrong (brand-voice %d, account-review %d):\n%s", i, j, s)
	}
	for _, want := range []string{"Loaded 2/3", "★ brand-voice", "active · x-3", "1,200 tok", "changed on disk", "text out of window", "⚙ get_account_activity@1", "Preloaded 1", "house-style"} {
		if !strings.Contains(s, want) {
			t.Errorf("LRU lacks %q: %s", want, s)
		}
	}
}

func TestR26_StateAndStoreOnExpand(t *testing.T) {
	st := newStatic(t, nil)
	st.snap.Loaded = []view.LoadedSkill{{Name: "account-review", Version: "2", ExecutionID: "x-1", Active: true,
		State: json.RawMessage(`{"page":3}`), Store: json.RawMessage(`{"n":["A"]}`)}}
	m := loadStatic(t, st, 200, 48)
	if s := flat(paneText(m, paneLRU)); !strings.Contains(s, `▸ state {"page":3} · store`) {
		t.Fatalf("folded state/store missing:\n%s", s)
	}
	m.Update(keyMsg("tab"))
	m.Update(keyMsg("tab")) // focus the LRU
	m.Update(keyMsg("enter"))
	s := flat(paneText(m, paneLRU))
	for _, want := range []string{"state (this load)", `"page": 3`, "store (session)", `"A"`} {
		if !strings.Contains(s, want) {
			t.Errorf("expanded LRU lacks %q:\n%s", want, s)
		}
	}
}

func TestR20_OfferedDeliveredLoadedAndR10_LeftOff(t *testing.T) {
	st := newStatic(t, nil)
	st.snap.LastTurn = &event.TurnEnd{Header: event.Header{Turn: 4}, StopReason: "done",
		Offered: []string{"account-review", "brand-voice", "pdf-tools"}, Delivered: []string{"house-style", "account-review"},
		Loaded: []string{"account-review"}, LeftOff: []string{"data-cleanup", "legal-check"},
		Uses: []event.Use{{Role: "TOOL", Name: "get_account_activity", Version: "1", ExecutionID: "t-9", Reused: true}}}
	m := loadStatic(t, st, 120, 40)
	lines := paneText(m, paneLRU)
	row := func(name string) string {
		for _, l := range lines {
			if f := strings.Fields(l); len(f) == 4 && f[0] == name {
				return strings.Join(f, " ")
			}
		}
		return ""
	}
	for name, want := range map[string]string{
		"account-review": "account-review O D L",
		"house-style":    "house-style · D ·",
		"brand-voice":    "brand-voice O · ·",
		"pdf-tools":      "pdf-tools O · ·",
	} {
		if got := row(name); got != want {
			t.Errorf("R20 row %q = %q, want %q", name, got, want)
		}
	}
	s := flat(lines)
	for _, want := range []string{"Last turn 4 · done", "tool get_account_activity v1 · t-9 · reused", "left off the list (R10): data-cleanup, legal-check"} {
		if !strings.Contains(s, want) {
			t.Errorf("LRU lacks %q:\n%s", want, s)
		}
	}
}

func TestContextPaneShowsInstructionsAndParts(t *testing.T) {
	sess, _ := sampleSession(t, NewEventSink(), nil)
	if err := sess.LoadSkill("account-review"); err != nil {
		t.Fatal(err)
	}
	st := &staticEngine{Engine: sess, snap: sess.Snapshot(), entries: sess.Transcript().Items()}
	m := loadStatic(t, st, 160, 48)
	s := screenOf(m)
	for _, want := range []string{"instructions", "skill account-review", "preload house-style", "<available_skills>"} {
		if !strings.Contains(s, want) {
			t.Errorf("context pane lacks %q", want)
		}
	}
	// alt+c jumps to <current_context>
	if strings.Contains(flat(paneText(m, paneContext)), "<current_context>") {
		t.Fatal("test needs <current_context> below the fold")
	}
	m.focus = paneContext
	m.Update(keyMsg("alt+c"))
	if s := flat(paneText(m, paneContext)); !strings.Contains(s, `<current_context> <skill name="account-review" version="2" execution="x-1" active="true">`) {
		t.Fatalf("after alt+c the current context is not in view:\n%s", s)
	}
}

func TestR14_GoneToolStruckThroughUntilNextTurnEnds(t *testing.T) {
	p := newToolsPane(newTheme(true))
	tool := func(n string) event.ToolInfo {
		return event.ToolInfo{Name: n, Source: "skill", Skill: "account-review"}
	}
	snap := func(turn int, running bool, ts ...event.ToolInfo) *view.Snapshot {
		return &view.Snapshot{Turn: turn, Running: running, Tools: ts}
	}
	names := func() (live, gone []string) {
		for _, t := range p.shown {
			if t.Gone {
				gone = append(gone, t.Name)
			} else {
				live = append(live, t.Name)
			}
		}
		return
	}
	p.setSnapshot(snap(1, true, tool("load_skill"), tool("run_checks")))
	p.setSnapshot(snap(1, true, tool("load_skill"))) // evicted during turn 1
	if _, gone := names(); len(gone) != 1 || gone[0] != "run_checks" {
		t.Fatalf("turn 1: gone = %v", gone)
	}
	p.setSnapshot(snap(1, false, tool("load_skill")))
	p.setSnapshot(snap(2, true, tool("load_skill")))
	if _, gone := names(); len(gone) != 1 {
		t.Fatalf("turn 2 running: gone = %v, want run_checks kept", gone)
	}
	p.setSnapshot(snap(2, false, tool("load_skill")))
	if _, gone := names(); len(gone) != 0 {
		t.Fatalf("after turn 2 ended: gone = %v", gone)
	}
	// the engine's own Gone flag shows too
	g := tool("tone_check")
	g.Gone = true
	p.setSnapshot(snap(3, false, tool("load_skill"), g))
	if _, gone := names(); len(gone) != 1 || gone[0] != "tone_check" {
		t.Fatalf("engine Gone: %v", gone)
	}
	p.build(40)
	s := ansi.Strip(strings.Join(p.lines, "\n"))
	if !strings.Contains(s, "tone_check · gone with account-review") {
		t.Fatalf("gone tool not labelled:\n%s", s)
	}
	if !strings.Contains(strings.Join(p.lines, "\n"), p.th.gone.Render("tone_check")) {
		t.Fatal("gone tool not struck through")
	}
}

func TestToolsPaneShowsSourceVersionPolicy(t *testing.T) {
	d := newDriver(t, nil, 160, 48)
	d.send("/load account-review")
	s := d.screen()
	for _, want := range []string{"load_skill", "built-in · never", "get_weather v1 pinned", "agent · never", "run_checks v2", "ask"} {
		if !strings.Contains(s, want) {
			t.Errorf("tools pane lacks %q", want)
		}
	}
	// alt+c on a selected tool opens the call form
	d.m.setFocus(paneTools)
	for i := 0; i < 4; i++ {
		d.key("down")
	}
	d.key("alt+c")
	d.settle()
	f, ok := d.m.overlay.(*callForm)
	if !ok || f.tool.Name != "run_checks" {
		t.Fatalf("overlay %T", d.m.overlay)
	}
}

func TestR6_RefusalAndR7_ContextChangedStyled(t *testing.T) {
	d := newDriver(t, nil, 160, 60)
	d.send("render the pdf")
	s := d.screen()
	if !strings.Contains(s, "⊘ render_pdf · refused") || !strings.Contains(s, "Unknown tool: render_pdf") {
		t.Fatalf("refusal not shown:\n%s", s)
	}
	d.send("/load brand-voice")
	var note rulebook.Entry
	for _, e := range d.m.tr.entries.All() {
		if e.NoteKind == rulebook.NoteContextChanged {
			note = e
		}
	}
	lines := d.m.tr.render(item{itemEntry, note.Index}, 60, false)
	if !strings.HasPrefix(ansi.Strip(lines[0]), iconContext+" contextChanged: loaded brand-voice") || lines[0] != d.m.th.context.Render(ansi.Strip(lines[0])) {
		t.Fatalf("contextChanged note not styled: %q", lines[0])
	}
}

// The harness's own words in a turn are marked in the transcript: a
// harness.log line (a tool of a loaded skill left out), the window cut
// short of a turn longer than the cap (R9), the list leaving skills off
// (R10) and the model's error ending the turn.
func TestHarnessLogAndWarningsMarked(t *testing.T) {
	d := harnessLogDriver(t, harnesstest.Say("hello"), harnesstest.Load("weather-notes"), harnesstest.Fail(errors.New("model API said 500: boom")))
	d.send("hi")
	// the list's left-off set is said when it changes: at the first turn
	if s := flat(paneText(d.m, paneTranscript)); !strings.Contains(s, "⚠ the list holds 2 skills: left off brand-voice, data-cleanup, pdf-tools") {
		t.Errorf("transcript lacks the list's warning:\n%s", s)
	}
	d.send("go")
	s := flat(paneText(d.m, paneTranscript))
	for _, want := range []string{
		"⚠ harness.log: tool missing_tool of skill weather-notes is left out",
		"✂ window: 2 message(s) left out of call 2, 3 kept — this turn alone is longer than the cap (R9)",
		"✗ model API said 500: boom",
		"turn 2 ended: error",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("transcript lacks %q:\n%s", want, s)
		}
	}
	if strings.Count(s, "tool missing_tool of skill weather-notes is left out") != 1 {
		t.Error("a harness.log line is shown twice (note and warning)")
	}
}

func TestTranscriptFoldsReasoningAndLongResults(t *testing.T) {
	d := newDriver(t, nil, 160, 60)
	d.send("give me the long forecast")
	s := d.screen()
	if !strings.Contains(s, "more line(s) · enter unfolds") {
		t.Fatalf("long result not folded:\n%s", s)
	}
	d.m.setFocus(paneTranscript)
	// select the tool result and unfold it
	for i := 0; i < 10 && !(d.m.tr.hasSel && d.m.tr.sel.kind == itemEntry && d.m.tr.entries.At(d.m.tr.sel.idx).Kind == rulebook.EntryTool); i++ {
		d.key("up")
	}
	d.key("enter")
	r := d.m.tr.linesAt(d.m.tr.pos[d.m.tr.sel], d.m.tr.w-1)
	if len(r) < 300 {
		t.Fatalf("unfolded result has %d lines", len(r))
	}
	d.key("alt+v")
	d.settle()
	if _, ok := d.m.overlay.(*textOverlay); !ok {
		t.Fatalf("alt+v opened %T", d.m.overlay)
	}
}

func TestReasoningUnfolds(t *testing.T) {
	d := newDriver(t, nil, 160, 60)
	d.typeText("please review account ACME-42")
	d.key("enter")
	d.waitApproval()
	d.key("a")
	d.settle()
	if !strings.Contains(d.screen(), "∴ reasoning · 14 words · enter unfolds") {
		t.Fatalf("reasoning not folded:\n%s", d.screen())
	}
	d.m.setFocus(paneTranscript)
	d.key("alt+e") // unfold everything
	d.key("home")
	if s := flat(paneText(d.m, paneTranscript)); !strings.Contains(s, "The user asks for an account review. The account-review skill matches; load it first.") {
		t.Fatalf("reasoning not unfolded:\n%s", s)
	}
}

func TestTranscriptVirtualized(t *testing.T) {
	st := newStatic(t, fakeEntries(10000))
	m := loadStatic(t, st, 160, 48)
	m.View()
	if n := len(m.tr.cache); n > 40 {
		t.Fatalf("%d items rendered to draw one screen of 10,000", n)
	}
	m.tr.home()
	m.View()
	if n := len(m.tr.cache); n > 80 {
		t.Fatalf("%d items rendered after jumping to the top", n)
	}
	if s := screenOf(m); !strings.Contains(s, "Question 1:") {
		t.Fatalf("top not shown:\n%s", s)
	}
	// scrolling a page renders only what comes into view
	for i := 0; i < 5; i++ {
		m.tr.pageDown()
		m.View()
	}
	if n := len(m.tr.cache); n > 120 {
		t.Fatalf("%d items rendered after five pages", n)
	}
}

func TestTranscriptSelectionScrollsThroughTallItem(t *testing.T) {
	entries := fakeEntries(3)
	long := strings.Repeat("line of a long answer\n\n", 80)
	entries = append(entries, rulebook.Entry{Index: 3, Message: 3, Kind: rulebook.EntryAssistant, Turn: 1, Text: long})
	entries = append(entries, rulebook.Entry{Index: 4, Message: 4, Kind: rulebook.EntryUser, Turn: 2, Text: "after"})
	m := loadStatic(t, newStatic(t, entries), 100, 30)
	m.focus = paneTranscript
	m.View()
	m.Update(keyMsg("up")) // selects the last visible item
	m.View()
	if m.tr.sel != (item{itemEntry, 4}) {
		t.Fatalf("selected %+v", m.tr.sel)
	}
	m.Update(keyMsg("up")) // the tall answer: its end shows
	m.View()
	if m.tr.sel != (item{itemEntry, 3}) {
		t.Fatalf("selected %+v", m.tr.sel)
	}
	last := m.tr.rows[len(m.tr.rows)-1]
	if last.pos != m.tr.pos[m.tr.sel] {
		t.Fatalf("the tall item's end is not at the bottom: %+v", last)
	}
	// k again scrolls up through it before moving on
	top := m.tr.rows[0]
	m.Update(keyMsg("up"))
	m.View()
	if m.tr.sel != (item{itemEntry, 3}) || m.tr.rows[0] == top {
		t.Fatalf("k did not scroll through the tall item: sel %+v rows[0] %+v", m.tr.sel, m.tr.rows[0])
	}
}

func TestStreamingThrottled(t *testing.T) {
	m := loadStatic(t, newStatic(t, fakeEntries(4)), 120, 40)
	var cmds int
	for i := 0; i < 200; i++ {
		_, cmd := m.Update(eventsMsg{&event.TextDelta{Header: event.Header{Turn: 2}, Call: 1, Text: "word "}})
		if cmd != nil {
			cmds++
		}
	}
	if !m.tr.live.ticking || m.tr.live.rendering {
		t.Fatalf("live ticking=%v rendering=%v", m.tr.live.ticking, m.tr.live.rendering)
	}
	// only the first delta schedules a render tick; the rest wait for it
	if m.tr.live.lines != nil {
		t.Fatal("deltas rendered Markdown inside Update")
	}
	if s := screenOf(m); !strings.Contains(s, "word word word") || !strings.Contains(s, "writing…") {
		t.Fatalf("streaming text not shown:\n%s", s)
	}
	cmd := m.tr.onTick(liveTickMsg{gen: m.tr.live.gen})
	if cmd == nil || !m.tr.live.rendering {
		t.Fatal("tick did not start a render")
	}
	m.Update(cmd())
	if m.tr.live.lines == nil || m.tr.live.rendering {
		t.Fatal("render result not kept")
	}
	_ = cmds
}

func TestSinkCoalescesDeltasAndKeepsOrder(t *testing.T) {
	s := NewEventSink()
	h := event.Header{Turn: 1}
	s.OnEvent(&event.ModelCall{Header: h, Call: 1})
	for i := 0; i < 100; i++ {
		s.OnEvent(&event.TextDelta{Header: h, Call: 1, Text: "a"})
	}
	s.OnEvent(&event.ReasoningDelta{Header: h, Call: 1, Text: "r"})
	s.OnEvent(&event.TextDelta{Header: h, Call: 1, Text: "b"})
	s.OnEvent(&event.Assistant{Header: h, Call: 1, Text: "done"})
	got := s.take()
	var kinds []string
	for _, it := range got {
		kinds = append(kinds, it.(event.Event).EventType())
	}
	want := "model_call text_delta reasoning_delta text_delta assistant"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("order = %v, want %s", kinds, want)
	}
	if d := got[1].(*event.TextDelta); d.Text != strings.Repeat("a", 100) || d.Call != 1 || event.TurnOf(d) != 1 {
		t.Fatalf("coalesced delta = %+v", d)
	}
}

func TestSinkDeliversEventsQueuedBeforeStart(t *testing.T) {
	s := NewEventSink()
	s.OnEvent(&event.SessionStart{SessionID: "s"})
	d := &driver{msgs: make(chan tea.Msg, 8)}
	stop := s.attach(d)
	defer stop()
	msg := <-d.msgs
	if b, ok := msg.(eventsMsg); !ok || len(b) != 1 {
		t.Fatalf("got %#v", msg)
	}
}

// Hard-wrapped prose in a skill re-flows at the pane's width; lists,
// headings and code keep their lines.
func TestContextPaneReflowsHardWrappedProse(t *testing.T) {
	in := []string{"# Title", "Write a postmortem that a reader who was", "not there can follow.", "", "- one item", "- two", "```", "code line one", "code line two", "```", "1. first", "After."}
	got := reflow(in)
	want := []string{"# Title", "Write a postmortem that a reader who was not there can follow.", "", "- one item", "- two", "```", "code line one", "code line two", "```", "1. first", "After."}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("reflow:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
