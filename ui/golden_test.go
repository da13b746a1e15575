package ui

import (
	"context"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// probeMsg runs f on the program's goroutine, where the model lives.
type probeMsg struct {
	f    func(*model) bool
	done chan bool
}

// probed lets a test look into the running model without racing it.
type probed struct{ *model }

func (p probed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if pm, ok := msg.(probeMsg); ok {
		pm.done <- pm.f(p.model)
		return p, nil
	}
	_, cmd := p.model.Update(msg)
	return p, cmd
}

// waitFor asks the running program until cond holds.
func waitFor(t *testing.T, tm *teatest.TestModel, what string, cond func(*model) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		done := make(chan bool, 1)
		tm.Send(probeMsg{f: cond, done: done})
		select {
		case ok := <-done:
			if ok {
				return
			}
		case <-time.After(time.Second):
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// quiet says nothing is running, loading or streaming.
func quiet(sink *Sink) func(*model) bool {
	return func(m *model) bool {
		return !m.running && !m.refreshing && !m.refreshAgain && m.tr.live == nil && m.tr.pending == "" && sink.queued() == 0
	}
}

// TestGoldenScreens plays a scripted session in a real program (teatest)
// and compares the final screen, without colour, with testdata. Run with
// -update to rewrite the golden files.
func TestGoldenScreens(t *testing.T) {
	for _, sz := range [][2]int{{160, 48}, {120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			sink := NewEventSink()
			s, _ := sampleSession(t, sink, nil)
			m := newModel(context.Background(), s, Options{Style: "dark"})
			// a clock a minute on at every reading: the approval dialog's
			// keys work at once
			clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			m.now = func() time.Time { clock = clock.Add(time.Minute); return clock }
			tm := teatest.NewTestModel(t, probed{m}, teatest.WithInitialTermSize(sz[0], sz[1]),
				teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
			stop := sink.attach(tm)
			defer stop()
			idle := quiet(sink)
			enter := tea.KeyPressMsg{Code: tea.KeyEnter}

			waitFor(t, tm, "the first snapshot", func(m *model) bool { return m.snap != nil && idle(m) })
			tm.Type("please review account ACME-42")
			tm.Send(enter)
			waitFor(t, tm, "the approval dialog", func(m *model) bool { return len(m.approvals) > 0 })
			tm.Type("s")
			waitFor(t, tm, "turn 1", func(m *model) bool { return idle(m) && m.snap.LastTurn != nil })
			tm.Type("draft it in the brand voice")
			tm.Send(enter)
			waitFor(t, tm, "turn 2", func(m *model) bool {
				return idle(m) && m.snap.LastTurn != nil && m.snap.LastTurn.Header.Turn == 2
			})
			for _, name := range []string{"data-cleanup", "pdf-tools"} {
				tm.Type("/load " + name)
				tm.Send(enter)
				waitFor(t, tm, "/load "+name, func(m *model) bool {
					return idle(m) && len(m.snap.Loaded) > 0 && m.snap.Loaded[0].Name == name && m.flash == "loaded "+name
				})
			}
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(probed)
			screen := ansi.Strip(final.View().Content)
			golden.RequireEqual(t, []byte(screen))
		})
	}
}
