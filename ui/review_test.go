package ui

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"skillet/harness"
	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/harnesstest"
	"skillet/harness/view"
)

// askApproval opens the approval dialog from the engine's side and returns
// where its decision arrives.
func askApproval(d *driver, name string) <-chan event.Decision {
	got := make(chan event.Decision, 1)
	go func() {
		dec, _ := NewApprover(d.sink)(context.Background(), view.ApprovalRequest{Name: name, Arguments: `{}`, Kind: "command"})
		got <- dec
	}()
	return got
}

func TestR15_ApprovalIgnoresKeysTypedAhead(t *testing.T) {
	d := newDriver(t, nil, 120, 40)
	got := askApproval(d, "run_checks")
	d.pump(func(m *model) bool { return len(m.approvals) == 1 })
	if strings.Contains(d.screen(), "[ d  deny ]") {
		t.Fatalf("a choice is highlighted before the dialog takes keys:\n%s", d.screen())
	}
	// keys typed as the dialog opens answer nothing
	d.key("a", "s", "enter")
	d.pass(approvalGuard - time.Millisecond)
	d.key("a")
	if len(d.m.approvals) != 1 {
		t.Fatal("a key within the guard answered the dialog")
	}
	d.pass(time.Millisecond)
	if s := d.screen(); !strings.Contains(s, "[ d  deny ]") {
		t.Fatalf("deny is not the highlighted default once keys work:\n%s", s)
	}
	d.key("enter")
	if dec := <-got; dec != event.DecisionDeny {
		t.Fatalf("enter decided %q, want deny", dec)
	}
}

func TestR15_NextApprovalHasItsOwnGuard(t *testing.T) {
	d := newDriver(t, nil, 120, 40)
	first := askApproval(d, "run_checks")
	d.pump(func(m *model) bool { return len(m.approvals) == 1 })
	second := askApproval(d, "deploy")
	d.pump(func(m *model) bool { return len(m.approvals) == 2 })
	d.pass(time.Hour) // the second dialog waited all this time behind the first
	d.key("a")
	if dec := <-first; dec != event.DecisionOnce {
		t.Fatalf("first = %q", dec)
	}
	d.key("a") // pressed on the heels of the first answer
	if len(d.m.approvals) != 1 {
		t.Fatal("the second dialog took a key the moment it showed")
	}
	d.pass(approvalGuard)
	d.key("s")
	if dec := <-second; dec != event.DecisionAll {
		t.Fatalf("second = %q", dec)
	}
}

func TestActivityClearsAfterManualCall(t *testing.T) {
	d := newDriver(t, nil, 160, 48)
	d.send(`/call get_weather {"city":"Oslo"}`)
	if d.m.activity != "" || strings.Contains(d.screen(), "running get_weather") {
		t.Fatalf("activity %q stays after /call:\n%s", d.m.activity, d.screen())
	}
	// and through the call form
	d.send("/call get_weather")
	if _, ok := d.m.overlay.(*callForm); !ok {
		t.Fatalf("overlay %T", d.m.overlay)
	}
	d.typeText("Bergen")
	d.key("ctrl+r")
	d.settle()
	if d.m.activity != "" {
		t.Fatalf("activity %q stays after the call form ran", d.m.activity)
	}
	d.key("esc")
	if strings.Contains(d.screen(), "running get_weather") {
		t.Fatalf("status bar still says running:\n%s", d.screen())
	}
}

func TestInfoOverlaysCopyAndWritePlainText(t *testing.T) {
	for _, tc := range []struct{ line, file, want string }{
		{"/help", "skillet-help.txt", "/load NAME"},
		{"/set", "skillet-settings.txt", "max_loaded_skills = 3"},
		{"/skills", "skillet-skills.txt", "broken  invalid"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			d := newDriver(t, nil, 160, 48)
			d.m.opts.ExportDir = t.TempDir()
			d.send(tc.line)
			if _, ok := d.m.overlay.(*textOverlay); !ok {
				t.Fatalf("overlay %T", d.m.overlay)
			}
			d.key("y")
			d.settle()
			if len(d.clipboard) != 1 || !strings.Contains(d.clipboard[0], tc.want) || strings.Contains(d.clipboard[0], "\x1b[") {
				t.Fatalf("clipboard = %q, want plain text with %q", d.clipboard, tc.want)
			}
			d.key("w")
			d.settle()
			b, err := os.ReadFile(filepath.Join(d.m.opts.ExportDir, tc.file))
			if err != nil {
				t.Fatalf("w wrote no %s: %v (message line %q)", tc.file, err, d.m.flash)
			}
			if !strings.Contains(string(b), tc.want) || strings.Contains(string(b), "\x1b[") {
				t.Fatalf("%s = %q", tc.file, b)
			}
		})
	}
}

func TestNarrowSendShowsTheTranscript(t *testing.T) {
	d := newDriver(t, nil, 90, 30)
	d.m.setFocus(paneTools)
	d.m.setFocus(paneInput)
	if d.m.shown != paneTools {
		t.Fatalf("shown = %v, want the tools tab before sending", d.m.shown)
	}
	d.send("draft it in the brand voice")
	if d.m.shown != paneTranscript {
		t.Fatalf("shown = %v after sending, want the transcript", d.m.shown)
	}
	if s := d.screen(); !strings.Contains(s, "draft it in the brand voice") {
		t.Fatalf("the message is not on screen:\n%s", s)
	}
}

func TestHarnessLogPrefixShownOnce(t *testing.T) {
	// the engine's note carries the prefix, as the model reads it
	d := harnessLogDriver(t, harnesstest.Load("weather-notes"), harnesstest.Say("done"))
	d.send("go")
	s := flat(paneText(d.m, paneTranscript))
	if !strings.Contains(s, "⚠ harness.log: tool missing_tool of skill weather-notes is left out") || strings.Contains(s, "harness.log: harness.log") {
		t.Fatalf("harness.log line:\n%s", s)
	}
}

func TestEngineErrorsKeepTheirOwnPrefix(t *testing.T) {
	sink := NewEventSink()
	s, _ := sampleSession(t, sink, nil)
	eng := &failingEngine{Session: s}
	d := driveEngine(t, eng, sink, 160, 48)
	for _, tc := range []struct{ line, want string }{
		{"/unload brand-voice", "unload brand-voice: it is not loaded"},
		{"/load nosuch", `load nosuch: no skill named "nosuch" (enabled: account-review, brand-voice, pdf-tools, data-cleanup)`},
		{"/set max_loaded_skills zero", `set max_loaded_skills: want a whole number, got "zero"`},
		{"/call load_skill {}", "call load_skill: use /load NAME to load a skill by hand"},
	} {
		d.send(tc.line)
		if !d.m.flashIsErr || d.m.flash != tc.want {
			t.Errorf("%s: message line %q, want %q", tc.line, d.m.flash, tc.want)
		}
	}
	// an engine error without the prefix gets it
	eng.failNext(errors.New("the engine is busy"))
	d.send("/load brand-voice")
	if d.m.flash != "load brand-voice: the engine is busy" {
		t.Errorf("message line %q", d.m.flash)
	}
}

func TestExportExpandsHomeAndDropsQuotes(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	work := t.TempDir()
	t.Chdir(work)
	d := newDriver(t, nil, 120, 40)
	d.send("/export ~/out.md")
	if _, err := os.Stat(filepath.Join(home, "out.md")); err != nil {
		t.Fatalf("~/out.md not written in HOME: %v (message line %q)", err, d.m.flash)
	}
	d.send(`/export "my file.md"`)
	if _, err := os.Stat(filepath.Join(work, "my file.md")); err != nil {
		t.Fatalf(`"my file.md" not written without its quotes: %v (message line %q)`, err, d.m.flash)
	}
	d.send(`/export 'single.md'`)
	if _, err := os.Stat(filepath.Join(work, "single.md")); err != nil {
		t.Fatalf("'single.md' not written: %v", err)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 2 {
		t.Fatalf("files in the working folder: %v", entries)
	}
}

func TestMarkdownStylesAreGlamours(t *testing.T) {
	names := MarkdownStyles()
	for _, want := range []string{"ascii", "dark", "dracula", "light", "notty", "pink", "tokyo-night"} {
		if !IsMarkdownStyle(want) || !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("%s missing from %v", want, names)
		}
	}
	if IsMarkdownStyle("bogus") {
		t.Error("bogus accepted")
	}
	s, _ := sampleSession(t, NewEventSink(), nil)
	err := Run(context.Background(), s, nil, Options{Style: "bogus", Input: strings.NewReader(""), Output: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "dracula") {
		t.Fatalf("Run with a bogus style: %v", err)
	}
}

// snapshotSignal tells when the program first asked the engine for a
// snapshot: it is running.
type snapshotSignal struct {
	*harness.Session
	once    sync.Once
	started chan struct{}
}

func (s *snapshotSignal) Snapshot() *view.Snapshot {
	s.once.Do(func() { close(s.started) })
	return s.Session.Snapshot()
}

// failingEngine is a real session whose next LoadSkill fails with the
// error given to failNext, as an engine error that names no command would.
type failingEngine struct {
	*harness.Session
	mu  sync.Mutex
	err error
}

func (f *failingEngine) failNext(err error) { f.mu.Lock(); f.err = err; f.mu.Unlock() }

func (f *failingEngine) LoadSkill(name string) error {
	f.mu.Lock()
	err := f.err
	f.err = nil
	f.mu.Unlock()
	if err != nil {
		return err
	}
	return f.Session.LoadSkill(name)
}

// SIGINT (kill -INT) ends the program as ctrl+c twice does: no error, the
// running turn cancelled.
func TestSIGINTQuitsCleanly(t *testing.T) {
	// our own handler first, so the signal can never end the test process
	ours := make(chan os.Signal, 1)
	signal.Notify(ours, syscall.SIGINT)
	defer signal.Stop(ours)

	turnCtx := make(chan context.Context, 1)
	script := harnesstest.New(func(ctx context.Context, _ *chat.Request, _ func(chat.StreamEvent)) (*chat.Reply, error) {
		turnCtx <- ctx
		<-ctx.Done()
		return nil, ctx.Err()
	})
	sink := NewEventSink()
	base, _ := sampleSession(t, sink, script)
	eng := &snapshotSignal{Session: base, started: make(chan struct{})}
	in, typing := io.Pipe()
	defer typing.Close()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), eng, sink, Options{Style: "dark", Input: in, Output: io.Discard})
	}()
	select {
	case <-eng.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the program did not start")
	}
	go typing.Write([]byte("hello\r"))
	var ctx context.Context
	select {
	case ctx = <-turnCtx:
	case <-time.After(10 * time.Second):
		t.Fatal("the turn did not start")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run after SIGINT: %v, want a clean end", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SIGINT did not end the program")
	}
	if ctx.Err() == nil {
		t.Fatal("the running turn was not cancelled")
	}
}

func TestInterruptMsgBecomesAQuit(t *testing.T) {
	if _, ok := quitOnInterrupt(nil, tea.InterruptMsg{}).(interruptMsg); !ok {
		t.Fatal("SIGINT is not handed to the model")
	}
	d := newDriver(t, nil, 120, 40)
	got := askApproval(d, "run_checks")
	d.pump(func(m *model) bool { return len(m.approvals) == 1 })
	d.update(interruptMsg{})
	deadline := time.After(10 * time.Second)
	for !d.quit {
		select {
		case msg := <-d.msgs:
			d.update(msg)
		case <-deadline:
			t.Fatal("the program did not quit")
		}
	}
	if dec := <-got; dec != event.DecisionDeny {
		t.Fatalf("the open approval got %q, want deny", dec)
	}
}
