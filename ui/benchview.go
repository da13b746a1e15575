package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"charm.land/bubbles/v2/key"

	tea "charm.land/bubbletea/v2"

	"skillet/harness/event"
	"skillet/harness/termtext"
)

// BenchResult is what Options.Bench returns: the report as `skillet
// bench` prints it, and the runs it was made from, which the report's
// view opens read-only.
type BenchResult struct {
	Report string
	Runs   []BenchRun
}

// BenchRun is one run of a benchmark.
type BenchRun struct {
	// Label names the run: "report-style · eval 1 · with_skill · run 2".
	Label string
	// Outcome is how it was graded: "passed 2/2", "failed 1/2", "error: …".
	Outcome string
	// Session is the run's session folder (…/run-N/session).
	Session string
}

// OpenedRun is a bench run's session, folded read-only.
type OpenedRun struct {
	Engine Engine
	// Close releases the session once it is no longer shown; nil: nothing to release.
	Close func()
	// Why explains a skill's fate in the run, for its /why card; nil
	// leaves /why out.
	Why func(skill string) (string, error)
}

// ReadOnly shows a session that takes no turns: a bench run, or a session
// opened with skillet --view. Messages and every command that would change
// the session are refused with its Reason; a line under the interface
// says what is shown, and ctrl+q closes it.
type ReadOnly struct {
	// Reason is why: "a bench run".
	Reason string
	// Label says what is shown, on the line under the interface.
	Label string
	// Back says what ctrl+q does: "back to the live session", "quit".
	Back string
}

// ReadOnlyKey closes a read-only session.
const ReadOnlyKey = "ctrl+q"

// readOnlyHints is the hint line of a read-only session: nothing is sent,
// so the keys that write a message give way to the one that closes it.
func (k keyMap) readOnlyHints(b []key.Binding, ro *ReadOnly) []key.Binding {
	if ro == nil {
		return b
	}
	out := []key.Binding{key.NewBinding(key.WithKeys(ReadOnlyKey), key.WithHelp(ReadOnlyKey, ro.Back))}
	for _, kb := range b {
		if slices.Equal(kb.Keys(), k.Send.Keys()) || slices.Equal(kb.Keys(), k.Newline.Keys()) {
			continue
		}
		out = append(out, kb)
	}
	return out
}

// err is the line a refused action shows.
func (r *ReadOnly) err() error {
	return fmt.Errorf("read-only: %s · nothing is sent or changed · %s %s", r.Reason, ReadOnlyKey, r.Back)
}

// readOnlyEngine refuses whatever would change the session it shows.
type readOnlyEngine struct {
	Engine
	why error
}

// readOnlyFor wraps eng when opts say the session is read-only.
func readOnlyFor(eng Engine, opts Options) Engine {
	if eng == nil || opts.ReadOnly == nil {
		return eng
	}
	return readOnlyEngine{Engine: eng, why: opts.ReadOnly.err()}
}

func (e readOnlyEngine) Turn(context.Context, string) (*event.TurnEnd, error) { return nil, e.why }
func (e readOnlyEngine) LoadSkill(string) error                               { return e.why }
func (e readOnlyEngine) UnloadSkill(string) error                             { return e.why }
func (e readOnlyEngine) Reload() error                                        { return e.why }
func (e readOnlyEngine) Set(string, string) error                             { return e.why }
func (e readOnlyEngine) SetModel(string) error                                { return e.why }
func (e readOnlyEngine) Models(context.Context) ([]string, error)             { return nil, e.why }
func (e readOnlyEngine) Clear() error                                         { return e.why }
func (e readOnlyEngine) SwitchProfile(string) error                           { return e.why }
func (e readOnlyEngine) CallTool(context.Context, string, string) (*event.ToolResult, error) {
	return nil, e.why
}

// refuseSend keeps a message typed into a read-only session in the input
// and says why it is not sent; false when the session takes turns.
func (m *model) refuseSend(text string) (tea.Cmd, bool) {
	if m.opts.ReadOnly == nil {
		return nil, false
	}
	m.in.set(text)
	return m.flashErr(m.opts.ReadOnly.err()), true
}

// readOnlyProgram runs the interface over a read-only session: ctrl+q
// ends it, and a line of its own below the interface, which gets one line
// less, says what is shown.
type readOnlyProgram struct {
	m  *model
	ro ReadOnly
}

// program is the tea.Model Run drives for m.
func program(m *model, opts Options) tea.Model {
	if opts.ReadOnly != nil {
		return &readOnlyProgram{m: m, ro: *opts.ReadOnly}
	}
	return withDemo(m, opts.Demo)
}

func (p *readOnlyProgram) Init() tea.Cmd { return p.m.Init() }

func (p *readOnlyProgram) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		msg.Height = max(1, msg.Height-1) // the read-only line
		_, cmd := p.m.Update(msg)
		return p, cmd
	case tea.KeyPressMsg:
		if msg.String() == ReadOnlyKey {
			return p, p.m.quit()
		}
	}
	_, cmd := p.m.Update(msg)
	return p, cmd
}

func (p *readOnlyProgram) View() tea.View {
	v := p.m.View()
	if p.m.w <= 0 {
		return v
	}
	line := fmt.Sprintf(" read-only: %s · %s · %s %s", p.ro.Reason, p.ro.Label, ReadOnlyKey, p.ro.Back)
	v.Content += "\n" + termtext.Fit(p.m.th.accent.Render(termtext.Clip(termtext.Sanitize(line), p.m.w)), p.m.w)
	return v
}

// benchMsg is a message of the bench view: it applies itself to the model.
type benchMsg interface{ apply(m *model) tea.Cmd }

// benchDoneMsg is a background /bench that returned.
type benchDoneMsg struct {
	skill string
	res   *BenchResult
	err   error
}

func (b benchDoneMsg) apply(m *model) tea.Cmd {
	text := ""
	if b.res != nil {
		text = b.res.Report
	}
	if b.err != nil {
		text = fmt.Sprintf("bench %s: %v\n\n%s", b.skill, b.err, text)
	}
	m.overlay = m.benchReport("bench "+b.skill, text, b.res, "")
	return nil
}

// benchReport is the report's view; with runs to open, enter lists them.
func (m *model) benchReport(title, text string, res *BenchResult, current string) overlay {
	o := newTextOverlay(m.th, title, text, nil, fileName("skillet", title)+".txt", m.opts.ExportDir)
	if res == nil || len(res.Runs) == 0 || m.opts.OpenRun == nil {
		return o
	}
	o.hint = "enter open a run read-only (panes, time travel) · ↑/↓ scroll · y copy · w write · esc close"
	o.enter = func() tea.Cmd {
		m.overlay = m.benchRuns(title, text, res, current)
		return nil
	}
	return o
}

// runPicker lists a benchmark's runs; esc goes back to the report.
type runPicker struct {
	*picker
	back func()
}

func (p *runPicker) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if msg.String() == "esc" {
		p.back()
		return nil, false
	}
	return p.picker.key(msg)
}

// benchRuns is the list of a benchmark's runs, filtered as you type
// (an eval, a configuration, "failed"); enter opens one read-only.
func (m *model) benchRuns(title, text string, res *BenchResult, current string) overlay {
	items := make([]string, len(res.Runs))
	byItem := map[string]BenchRun{}
	cur := ""
	for i, r := range res.Runs {
		items[i] = r.Label + " · " + r.Outcome
		byItem[items[i]] = r
		if r.Session == current {
			cur = items[i]
		}
	}
	pick := func(item string) tea.Cmd {
		r, ok := byItem[item]
		if !ok {
			return m.flashErr(fmt.Errorf("no run of this benchmark is %q", item))
		}
		return m.openBenchRun(title, text, res, r)
	}
	p := &runPicker{picker: newPicker(m.th, "Open which run? (read-only)", items, cur, pick)}
	p.hint = "type to filter · ↑/↓ choose · enter open · esc report"
	p.back = func() { m.overlay = m.benchReport(title, text, res, current) }
	return p
}

// benchRunOpenedMsg is a run's session, folded off the program's path.
type benchRunOpenedMsg struct {
	run         BenchRun
	opened      *OpenedRun
	title, text string
	res         *BenchResult
}

func (b benchRunOpenedMsg) apply(m *model) tea.Cmd {
	v := &runView{eng: b.opened.Engine, ctx: m.base, opts: Options{Style: m.styleName(), ExportDir: m.opts.ExportDir, Present: m.present,
		Why:      b.opened.Why,
		ReadOnly: &ReadOnly{Reason: "a bench run", Label: b.run.Label + " · " + b.run.Outcome, Back: "back to the live session"}}}
	return tea.Exec(v, func(err error) tea.Msg {
		if b.opened.Close != nil {
			b.opened.Close()
		}
		return benchRunClosedMsg{run: b.run, err: err, title: b.title, text: b.text, res: b.res}
	})
}

// benchRunErrMsg is a run whose session would not open.
type benchRunErrMsg struct{ err error }

func (b benchRunErrMsg) apply(m *model) tea.Cmd { return m.flashErr(b.err) }

// benchRunClosedMsg is the live session back after a run was shown: the
// report's view is open again on the run list.
type benchRunClosedMsg struct {
	run         BenchRun
	err         error
	title, text string
	res         *BenchResult
}

func (b benchRunClosedMsg) apply(m *model) tea.Cmd {
	m.overlay = m.benchRuns(b.title, b.text, b.res, b.run.Session)
	if b.err != nil {
		return m.flashErr(fmt.Errorf("bench run %s: %w", b.run.Label, b.err))
	}
	return m.flashInfo("back to the live session from " + b.run.Label)
}

// openBenchRun folds the run's journal read-only, then shows it.
func (m *model) openBenchRun(title, text string, res *BenchResult, r BenchRun) tea.Cmd {
	open := m.opts.OpenRun
	return func() tea.Msg {
		opened, err := open(r.Session)
		if err != nil {
			return benchRunErrMsg{fmt.Errorf("open %s: %w", r.Label, err)}
		}
		if opened == nil || opened.Engine == nil {
			return benchRunErrMsg{fmt.Errorf("open %s: no session", r.Label)}
		}
		return benchRunOpenedMsg{run: r, opened: opened, title: title, text: text, res: res}
	}
}

// styleName is the Markdown style in use, for a program shown over this
// one: the same look without asking the terminal again.
func (m *model) styleName() string {
	if m.opts.Style != "" {
		return m.opts.Style
	}
	if m.th.dark {
		return "dark"
	}
	return "light"
}

// runView shows a read-only session as a program of its own on the
// terminal the live one released (tea.Exec), until ctrl+q.
type runView struct {
	eng  Engine
	ctx  context.Context
	opts Options
}

func (v *runView) SetStdin(r io.Reader)  { v.opts.Input = r }
func (v *runView) SetStdout(w io.Writer) { v.opts.Output = w }
func (v *runView) SetStderr(io.Writer)   {}

// Run shows the session until it is closed.
func (v *runView) Run() error {
	err := Run(v.ctx, v.eng, nil, v.opts)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
