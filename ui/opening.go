package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Opening is an engine that is still being opened, such as a session
// reopened from a long journal: the program draws at once, shows how far
// the opening got, and fills its panes when Open returns.
type Opening struct {
	// Label names what is opened (the journal's path); the progress line
	// says "reopening Label".
	Label string
	// Progress is how far the opening got: done of total bytes read (0
	// of 0 while unknown). It is called from the program's goroutine
	// while the opening runs in another.
	Progress func() (done, total int64)
	// Wait blocks until the engine is open and returns it. An error ends
	// the program, and Run returns that error as it is.
	Wait func() (Engine, error)
}

// opening is the model's state while Options.Opening runs.
type opening struct {
	label    string
	progress func() (done, total int64)
	// held are the engine's deliveries that arrived before the engine
	// did; they are taken in order once it is open, as the deliveries
	// queued before a program starts are.
	held eventsMsg
	// ticks counts the progress line's frames, which set its pace.
	ticks int
}

// Internal messages of the opening.
type (
	// openedMsg is the outcome of Opening.Open.
	openedMsg struct {
		eng Engine
		err error
	}
	// openTickMsg redraws the progress line.
	openTickMsg struct{}
)

// openTick is how often the progress line is drawn again: quickly at
// first, so even a short reopening shows how far it is, then seldom,
// since each frame draws the whole screen on the cores the fold needs (at
// 20 a second throughout, a tenth of a loaded machine's long reopening
// went to frames of the progress line).
func openTick(frames int) time.Duration {
	if frames < 10 {
		return 50 * time.Millisecond
	}
	return 250 * time.Millisecond
}

// startOpening runs Opening.Open and ticks the progress line until it
// returns.
func (m *model) startOpening(o *Opening) tea.Cmd {
	progress := o.Progress
	if progress == nil {
		progress = func() (int64, int64) { return 0, 0 }
	}
	m.opening = &opening{label: o.Label, progress: progress}
	m.activity = "reopening the session"
	open := func() tea.Msg {
		eng, err := o.Wait()
		return openedMsg{eng: eng, err: err}
	}
	return tea.Batch(open, openTickCmd(0))
}

func openTickCmd(frames int) tea.Cmd {
	return tea.Tick(openTick(frames), func(time.Time) tea.Msg { return openTickMsg{} })
}

// onOpenTick keeps the progress line moving while the engine opens.
func (m *model) onOpenTick() tea.Cmd {
	if m.opening == nil {
		return nil
	}
	m.activity = m.opening.short()
	m.opening.ticks++
	return openTickCmd(m.opening.ticks)
}

// onOpened takes the engine: the deliveries held so far, the first
// refresh, then the messages typed while it opened, in the order typed.
func (m *model) onOpened(msg openedMsg) tea.Cmd {
	st := m.opening
	m.opening = nil
	m.activity = ""
	if msg.err != nil {
		m.openErr = msg.err
		return tea.Quit
	}
	if msg.eng == nil {
		m.openErr = fmt.Errorf("open %s: no session", st.label)
		return tea.Quit
	}
	m.eng = readOnlyFor(msg.eng, m.opts)
	cmds := []tea.Cmd{m.requestRefresh()}
	if len(st.held) > 0 {
		cmds = append(cmds, m.onEvents(st.held))
	}
	if len(m.queue) > 0 {
		cmds = append(cmds, m.flashInfo(fmt.Sprintf("the session is open: sending the %d message(s) typed while it opened", len(m.queue))))
	}
	cmds = append(cmds, m.sendQueued())
	return tea.Batch(cmds...)
}

// line is the progress line: how much of the journal has been read.
func (st *opening) line() string {
	done, total := st.progress()
	switch {
	case total <= 0:
		return "reopening " + st.label + "…"
	case done >= total:
		return fmt.Sprintf("reopening %s: read %s, folding the events…", st.label, megabytes(total))
	}
	return fmt.Sprintf("reopening %s: %d %% (%s of %s)", st.label, done*100/total, megabytes(done), megabytes(total))
}

// short is the progress for the status bar.
func (st *opening) short() string {
	done, total := st.progress()
	switch {
	case total <= 0:
		return "reopening the session"
	case done >= total:
		return "reopening the session: folding"
	}
	return fmt.Sprintf("reopening the session: %d %%", done*100/total)
}

func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// openingLines fill the transcript pane while the engine opens.
func (m *model) openingLines(w int) []string {
	th := m.th
	out := []string{""}
	out = append(out, indentStyled(th.accent, "  ", m.opening.line(), w)...)
	out = append(out, "")
	out = append(out, indentStyled(th.faint, "  ", "The transcript and the side panes fill in once the session is open. A message typed now is queued and sent then; commands other than /help and /quit wait for the session.", w)...)
	return out
}

// openingKey refuses, while the engine opens, the keys that need it;
// ok says the key was taken.
func (m *model) openingKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.opening == nil {
		return nil, false
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Inspector), key.Matches(msg, k.HistoryBack), key.Matches(msg, k.HistoryOn),
		m.focus == paneTranscript && key.Matches(msg, k.Inspect):
		return m.flashErr(fmt.Errorf("%s works once the session is open (%s)", msg.String(), m.opening.line())), true
	}
	return nil, false
}

// refuseWhileOpening refuses a command that needs the engine while it
// opens, and puts the command back in the input to run later.
func (m *model) refuseWhileOpening(name, line string) (tea.Cmd, bool) {
	if m.opening == nil || name == "help" || name == "quit" {
		return nil, false
	}
	if strings.TrimSpace(m.in.value()) == "" {
		m.in.set("/" + line)
	}
	return m.flashErr(fmt.Errorf("/%s waits for the session: %s; the command stays in the input, enter runs it once the session is open", name, m.opening.line())), true
}
