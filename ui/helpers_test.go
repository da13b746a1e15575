package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"skillet/harness"
	"skillet/harness/event"
	"skillet/harness/harnesstest"
	"skillet/harness/rulebook"
	"skillet/harness/view"
)

// driver runs a model the way a program does, on the test's goroutine:
// it applies messages, runs commands in goroutines and feeds their results
// back. Timers that outlive a test are dropped with it.
type driver struct {
	t testing.TB
	m *model
	// s is the session the program drives, script its model
	s      *harness.Session
	script *harnesstest.Model
	sink   *Sink
	msgs   chan tea.Msg
	quit   bool
	// clipboard and stop record what reached the terminal
	clipboard []string
	stop      func()
	// clock is the model's time; only pass moves it.
	clock time.Time
}

// pass moves the model's clock on by dt.
func (d *driver) pass(dt time.Duration) { d.clock = d.clock.Add(dt) }

// waitApproval waits for the approval dialog and for its keys to work.
func (d *driver) waitApproval() {
	d.t.Helper()
	d.pump(func(m *model) bool { return len(m.approvals) > 0 })
	d.pass(approvalGuard)
}

// Send lets the sink deliver to the driver as to a program.
func (d *driver) Send(msg tea.Msg) { d.msgs <- msg }

// newDriver starts the program over a real session of the sample
// workspace (sampleSession) answered by script; nil plays demoTurn.
func newDriver(t testing.TB, script *harnesstest.Model, w, h int) *driver {
	t.Helper()
	return newDriverWith(t, script, w, h, Options{Style: "dark"})
}

func newDriverWith(t testing.TB, script *harnesstest.Model, w, h int, opts Options) *driver {
	t.Helper()
	sink := NewEventSink()
	s, script := sampleSession(t, sink, script)
	d := driveEngineWith(t, s, sink, w, h, opts)
	d.s, d.script = s, script
	return d
}

// driveEngine starts the program over any engine whose events go to sink.
func driveEngine(t testing.TB, eng Engine, sink *Sink, w, h int) *driver {
	t.Helper()
	return driveEngineWith(t, eng, sink, w, h, Options{Style: "dark"})
}

func driveEngineWith(t testing.TB, eng Engine, sink *Sink, w, h int, opts Options) *driver {
	t.Helper()
	d := driveModel(t, newModel(context.Background(), eng, opts), sink, w, h)
	d.settle()
	return d
}

// driveModel starts the program over a model the test made, events going
// to sink, and sizes it without waiting for anything.
func driveModel(t testing.TB, m *model, sink *Sink, w, h int) *driver {
	d := &driver{t: t, m: m, sink: sink, msgs: make(chan tea.Msg, 4096)}
	d.clock = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d.m.now = func() time.Time { return d.clock }
	d.stop = d.sink.attach(d)
	t.Cleanup(d.stop)
	d.exec(d.m.Init())
	d.update(tea.WindowSizeMsg{Width: w, Height: h})
	return d
}

func (d *driver) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		if msg := cmd(); msg != nil {
			d.msgs <- msg
		}
	}()
}

func (d *driver) update(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.exec(c)
		}
		return
	case tea.QuitMsg:
		d.quit = true
		return
	}
	if s := fmt.Sprintf("%T", msg); s == "tea.setClipboardMsg" {
		d.clipboard = append(d.clipboard, fmt.Sprint(msg))
		return
	}
	_, cmd := d.m.Update(msg)
	d.m.View() // a program draws after every update; panes build lazily
	d.exec(cmd)
}

// settle applies messages until the program is quiet: no turn running, no
// refresh in flight, nothing streaming and nothing arriving for a moment.
func (d *driver) settle() { d.until(func(*model) bool { return true }) }

// until applies messages until cond holds and the program is quiet.
func (d *driver) until(cond func(m *model) bool) {
	d.t.Helper()
	deadline := time.After(10 * time.Second)
	quietFor := 0
	for {
		select {
		case msg := <-d.msgs:
			d.update(msg)
			quietFor = 0
			continue
		case <-deadline:
			d.t.Fatalf("the program did not settle; screen:\n%s", d.screen())
		case <-time.After(5 * time.Millisecond):
		}
		quiet := !d.m.running && !d.m.refreshing && d.m.tr.live == nil && d.sink.queued() == 0
		if quiet && cond(d.m) {
			quietFor++
			if quietFor >= 4 {
				return
			}
		}
	}
}

// pump applies whatever arrives for a short while, without waiting for
// quiet (a turn blocked on the approval dialog is never quiet).
func (d *driver) pump(cond func(m *model) bool) {
	d.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond(d.m) {
		select {
		case msg := <-d.msgs:
			d.update(msg)
		case <-deadline:
			d.t.Fatalf("condition not met; screen:\n%s", d.screen())
		}
	}
}

func (d *driver) key(keys ...string) {
	for _, k := range keys {
		d.update(keyMsg(k))
	}
}

// typeText types s into the program.
func (d *driver) typeText(s string) {
	for _, r := range s {
		d.update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// send types a line and presses enter, then waits for quiet.
func (d *driver) send(s string) {
	d.typeText(s)
	d.key("enter")
	d.settle()
}

// screen is the view without colour.
func (d *driver) screen() string { return ansi.Strip(d.m.View().Content) }

// keyMsg builds a key press from its name as Bubble Tea writes it.
func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "shift+enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModShift}
	case "alt+enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "f1":
		return tea.KeyPressMsg{Code: tea.KeyF1}
	case "f2":
		return tea.KeyPressMsg{Code: tea.KeyF2}
	}
	for prefix, mod := range map[string]tea.KeyMod{"ctrl+": tea.ModCtrl, "alt+": tea.ModAlt} {
		if c, ok := strings.CutPrefix(k, prefix); ok {
			msg := keyMsg(c)
			msg.Mod, msg.Text = mod, ""
			return msg
		}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// fakeEntries makes a transcript of n chat messages in turns of a user
// message, an assistant call, a tool result and an answer.
func fakeEntries(n int) []rulebook.Entry {
	es := make([]rulebook.Entry, 0, n)
	for i := 0; len(es) < n; i++ {
		turn := i + 1
		add := func(e rulebook.Entry) {
			if len(es) < n {
				e.Index, e.Message, e.Turn = len(es), len(es), turn
				es = append(es, e)
			}
		}
		add(rulebook.Entry{Kind: rulebook.EntryUser, Text: fmt.Sprintf("Question %d: what does the account show?", turn)})
		add(rulebook.Entry{Kind: rulebook.EntryAssistant, Reasoning: "Load the skill first.", ToolCalls: []event.ToolCallRecord{{ID: fmt.Sprintf("c%d", i), Name: "get_account_activity", Arguments: `{"account_id":"ACME-42","page":1}`}}})
		add(rulebook.Entry{Kind: rulebook.EntryTool, ToolCallID: fmt.Sprintf("c%d", i), ToolName: "get_account_activity", Text: `{"items":[{"id":1,"amount":12.5},{"id":2,"amount":-3}],"next":null}`})
		add(rulebook.Entry{Kind: rulebook.EntryAssistant, Text: fmt.Sprintf("## Turn %d\n\nThe account shows **two** items; one is a refund of `-3`.\n\n- first item\n- second item", turn)})
	}
	return es
}

// staticEngine serves a fixed snapshot and transcript, for benchmarks and
// tests that need no turn; everything else goes to a real session.
type staticEngine struct {
	Engine
	snap    *view.Snapshot
	entries []rulebook.Entry
}

func (s *staticEngine) Snapshot() *view.Snapshot    { return s.snap }
func (s *staticEngine) Transcript() view.Transcript { return view.TranscriptOf(s.entries) }

// newStatic serves entries beside the sample session's first snapshot,
// its window set as if the entries had been sent.
func newStatic(tb testing.TB, entries []rulebook.Entry) *staticEngine {
	tb.Helper()
	s, _ := sampleSession(tb, NewEventSink(), nil)
	snap := s.Snapshot()
	snap.Window.Messages = len(entries)
	snap.Window.Cap = 60
	snap.Window.InWindow = min(60, len(entries))
	if len(entries) > 60 {
		snap.Window.FirstEntry = len(entries) - 60
	}
	return &staticEngine{Engine: s, snap: snap, entries: entries}
}

// loadStatic makes a model over a static engine, sized and refreshed,
// without a program.
func loadStatic(tb testing.TB, st *staticEngine, w, h int) *model {
	tb.Helper()
	m := newModel(context.Background(), st, Options{Style: "dark"})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(refreshMsg{snap: st.snap, entries: st.Transcript()})
	m.View()
	return m
}
