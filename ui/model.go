package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"skillet/harness/event"
	"skillet/harness/view"
	"skillet/ui/markdown"
)

// model is the root of the program. It routes each message to the part
// that owns it: the panes, the input, the overlays, the commands. Its
// state is what the engine last reported plus view state (focus, scroll,
// folding); it keeps no lifecycle of its own.
type model struct {
	eng  Engine
	opts Options
	base context.Context

	keys keyMap
	help help.Model
	th   *theme
	md   *markdown.Renderer
	spin spinner.Model

	w, h  int
	focus pane
	shown pane // the pane the narrow layout shows

	snap *view.Snapshot
	// seq counts events received; a refresh remembers the seq it was asked
	// at, so marks and pending text are placed against a transcript that
	// already holds what came before them.
	seq                      uint64
	refreshing, refreshAgain bool
	// marked tells apart the mark events that arrive both live and from
	// the engine's Marks, merged at the first refresh (what happened
	// before the program started): until then it holds those seen live;
	// after, those merged that may still be on their way (the engine holds
	// an event before it is delivered), until a live one is not among them.
	marked     map[event.Event]bool
	calibrated bool

	tr    *transcriptPane
	lru   *lruPane
	cx    *contextPane
	tools *toolsPane
	in    *inputBox

	running    bool
	turnCancel context.CancelFunc
	pendingSeq uint64
	activity   string
	spinning   bool

	flash      string
	flashIsErr bool
	flashID    int
	quitArmed  bool

	// awaitedTokens is set once the program waits for exact counts.
	awaitedTokens bool
	// travel is set while the side panes show a past model call.
	travel *travel

	overlay   overlay
	approvals []*approvalDialog

	// zoom is the pane shown over the whole body; paneInput when none is.
	zoom pane
	// queue holds messages typed while a turn ran, sent one per turn
	// after it.
	queue []string
	// find is the transcript search bar while open.
	find *finder
	// menuSel is the chosen line of the / command menu, for the input
	// text menuFor; -1 or another text: no choice.
	menuSel int
	menuFor string
	// paneMode makes plain letters the focused pane's keys (as with alt)
	// until esc; for terminals whose alt key types characters.
	paneMode bool
	// present is presenter mode: a clean chrome for an audience.
	present bool
	// seenBelow is what the transcript held when the view left its
	// bottom; more than that is new output below.
	seenBelow int
	newOutput bool
	// flashIn is the overlay open when the flash was set: it shows the
	// flash inside itself.
	flashIn overlay

	// opening is set while Options.Opening opens the engine (eng is nil
	// until then); openErr is why it failed.
	opening *opening
	openErr error

	// now is the clock the approval guard reads; tests set it.
	now func() time.Time

	// boxes (one per pane, the input's last) and status are what the last
	// frame drew, kept to draw again only what changed.
	boxes  [numPanes]boxMemo
	status statusMemo
	// sideJoin and bodyJoin join the boxes, screen is the whole frame,
	// hints the message line's key hints: each kept like the boxes.
	sideJoin, bodyJoin joinMemo
	pads               [numPanes]prefixMemo
	// panels are the body's panes as one interface (nil for the input),
	// set once by newModel.
	panels [numPanes]panel
	screen screenMemo
	hints  helpMemo
}

// Internal messages.
type (
	// estimatedMsg asks for a snapshot again, for exact token counts.
	estimatedMsg struct{}
	refreshMsg   struct {
		seq     uint64
		snap    *view.Snapshot
		entries view.Transcript
		// marks are the engine's marks, fetched at the first refresh
		marks *mergedMarks
	}
	turnDoneMsg struct {
		end *event.TurnEnd
		err error
	}
	flashExpiredMsg struct{ id int }
	quitDisarmMsg   struct{}
)

func newModel(ctx context.Context, eng Engine, opts Options) *model {
	if ctx == nil {
		ctx = context.Background()
	}
	style := opts.Style
	if style == "" {
		style = "dark"
	}
	th := newTheme(style != "light")
	md := markdown.New(style)
	m := &model{
		eng:     readOnlyFor(eng, opts),
		opts:    opts,
		base:    ctx,
		keys:    newKeyMap(),
		help:    help.New(),
		th:      th,
		md:      md,
		spin:    spinner.New(spinner.WithSpinner(spinner.Spinner{Frames: spinner.MiniDot.Frames, FPS: spinFrame})),
		focus:   paneInput,
		shown:   paneTranscript,
		tr:      newTranscriptPane(th, md),
		lru:     newLRUPane(th),
		cx:      newContextPane(th),
		tools:   newToolsPane(th),
		in:      newInputBox(th),
		now:     time.Now,
		zoom:    paneInput,
		menuSel: -1,
	}
	m.panels = newPanels(m)
	m.setTheme(th)
	if opts.Present {
		m.setPresent(true)
	}
	if opts.Resumed != "" {
		m.tr.addMark(mark{kind: markInfo, after: 0, text: "resumed from " + opts.Resumed})
	}
	if opts.ReadOnly != nil {
		// nothing typed here is sent; / commands that only look still work
		m.in.ta.Placeholder = "read-only: nothing is sent · / for commands · ? for keys"
	}
	return m
}

func (m *model) Init() tea.Cmd {
	var cmds []tea.Cmd
	if o := m.opts.Opening; o != nil && m.eng == nil {
		cmds = append(cmds, m.startOpening(o))
	} else {
		cmds = append(cmds, m.requestRefresh())
	}
	if m.opts.Style == "" {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

// setTheme applies a theme to every part.
func (m *model) setTheme(th *theme) {
	th.present = m.present
	m.th = th
	m.tr.th, m.lru.th, m.cx.th, m.tools.th = th, th, th, th
	m.lru.dirty, m.cx.dirty, m.tools.dirty = true, true, true
	m.tr.invalidate()
	m.in.setTheme(th)
	m.help.Styles = help.DefaultStyles(th.dark)
	m.spin.Style = th.accent
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.in.setSize(max(1, m.w-2), m.h)
		if m.tr.live != nil {
			m.tr.live.dirty = true
			return m, m.tr.schedule()
		}
		return m, nil
	case tea.BackgroundColorMsg:
		if m.opts.Style == "" && msg.IsDark() != m.th.dark {
			style := "light"
			if msg.IsDark() {
				style = "dark"
			}
			m.md.SetStyle(style)
			m.setTheme(newTheme(msg.IsDark()))
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	case tea.MouseWheelMsg:
		m.onWheel(msg)
		return m, nil
	case tea.MouseClickMsg:
		return m, m.onClick(msg)
	case tea.PasteMsg:
		if m.overlay != nil || len(m.approvals) > 0 {
			return m, m.routeOverlay(msg)
		}
		cmd := m.setFocus(paneInput)
		return m, tea.Batch(cmd, m.in.update(msg))
	case eventsMsg:
		if m.opening != nil {
			m.opening.held = append(m.opening.held, msg...)
			return m, nil
		}
		return m, m.onEvents(msg)
	case openedMsg:
		return m, m.onOpened(msg)
	case openTickMsg:
		return m, m.onOpenTick()
	case refreshMsg:
		return m, m.onRefresh(msg)
	case estimatedMsg:
		return m, m.requestRefresh()
	case wholeMsg:
		return m, m.onWhole(msg)
	case historyMsg:
		return m, m.onHistory(msg)
	case turnDoneMsg:
		return m, m.onTurnDone(msg)
	case approvalArmedMsg:
		return m, nil // drawn again, the dialog's buttons light up
	case interruptMsg:
		return m, m.quit()
	case cmdDoneMsg:
		if !m.running {
			m.activity = ""
		}
		if msg.err != nil {
			return m, tea.Batch(m.flashErr(msg.err), m.requestRefresh())
		}
		return m, tea.Batch(m.flashInfo(msg.ok), m.requestRefresh())
	case clearedMsg:
		if msg.err != nil {
			return m, m.flashErr(fmt.Errorf("clear: %w", msg.err))
		}
		m.newSession()
		return m, tea.Batch(m.flashInfo("new session"), m.requestRefresh())
	case liveTickMsg:
		return m, m.tr.onTick(msg)
	case liveRenderedMsg:
		return m, m.tr.onRendered(msg)
	case spinner.TickMsg:
		if !m.running {
			m.spinning = false
			m.tr.setPaced(false)
			return m, nil
		}
		var cmd tea.Cmd
		m.spin.Spinner.FPS = m.tr.frame() // the next tick's
		m.spin, cmd = m.spin.Update(msg)
		m.tr.showHeld()
		return m, cmd
	case flashMsg:
		if msg.err {
			return m, m.flashErr(errors.New(msg.text))
		}
		return m, m.flashInfo(msg.text)
	case flashExpiredMsg:
		if msg.id == m.flashID {
			m.flash = ""
		}
		return m, nil
	case quitDisarmMsg:
		if m.quitArmed {
			m.quitArmed = false
			m.flash = ""
		}
		return m, nil
	case runCommandMsg:
		return m, m.runLine(msg.line)
	case copyMsg:
		return m, tea.Batch(tea.SetClipboard(msg.text), m.flashInfo(fmt.Sprintf("copied %s (%s bytes) to the clipboard", msg.what, thousands(len(msg.text)))))
	case benchMsg:
		return m, msg.apply(m)
	case openViewerMsg:
		m.overlay = newTextOverlay(m.th, msg.title, msg.text, nil, fileName("skillet", msg.title)+".txt", m.opts.ExportDir)
		return m, nil
	case callsMsg, callBodyMsg, modelsMsg, callResultMsg:
		cmd := m.routeOverlay(msg)
		if _, ok := msg.(callResultMsg); ok {
			if !m.running {
				m.activity = ""
			}
			cmd = tea.Batch(cmd, m.requestRefresh())
		}
		return m, cmd
	}
	if m.focus == paneInput && m.overlay == nil {
		return m, m.in.update(msg)
	}
	return m, nil
}

// routeOverlay hands a result to the open overlay that waits for it.
func (m *model) routeOverlay(msg tea.Msg) tea.Cmd {
	if o, ok := m.overlay.(asyncOverlay); ok {
		return o.handle(msg)
	}
	if p, ok := msg.(tea.PasteMsg); ok {
		if f, ok := m.overlay.(*callForm); ok {
			var cmd tea.Cmd
			f.fields[f.focus].in, cmd = f.fields[f.focus].in.Update(p)
			return cmd
		}
	}
	return nil
}

// newSession forgets what belonged to the previous session.
func (m *model) newSession() {
	m.tr.reset()
	m.tools.reset()
	m.marked = map[event.Event]bool{}
	m.calibrated = false
}

// requestRefresh fetches the snapshot and transcript in a command; while
// one is in flight, another is asked for when it lands.
func (m *model) requestRefresh() tea.Cmd {
	if m.eng == nil {
		return nil // the engine is still opening: its first refresh comes then
	}
	if m.refreshing {
		m.refreshAgain = true
		return nil
	}
	m.refreshing = true
	seq, eng, calibrated := m.seq, m.eng, m.calibrated
	return func() tea.Msg {
		msg := refreshMsg{seq: seq, snap: eng.Snapshot(), entries: eng.Transcript()}
		if !calibrated {
			msg.marks = collectMarks(eng.Marks())
		}
		return msg
	}
}

func (m *model) onRefresh(msg refreshMsg) tea.Cmd {
	m.refreshing = false
	if msg.snap != nil {
		if m.snap != nil && msg.snap.SessionID != m.snap.SessionID {
			m.newSession()
		}
		m.snap = msg.snap
	}
	first := 0
	if m.snap != nil {
		first = m.snap.Window.FirstEntry
	}
	m.tr.setEntries(msg.entries, first)
	if !m.calibrated {
		// what happened before the program saw an event (a resumed
		// session) is marked where it happened
		m.calibrated = true
		var marks []mark
		seen := m.marked
		m.marked = map[event.Event]bool{}
		if mm := msg.marks; mm != nil {
			marks = mm.older
			for i, ev := range mm.recent {
				if !seen[ev] {
					marks = append(marks, mm.marks[i])
					m.marked[ev] = true
				}
			}
		}
		m.tr.addMarks(marks) // a resumed session's, laid out once
		if sum, _ := msg.snap.SkillsSummary("/skills lists them, /why NAME explains one"); sum != "" && msg.entries.Len() == 0 {
			// the first screen says what was found and what cannot work
			m.tr.addMark(mark{kind: markInfo, after: 0, text: sum})
		}
		if ws := msg.snap.Workspace; ws != nil && msg.entries.Len() == 0 {
			m.tr.addMark(mark{kind: markInfo, after: 0, text: workspaceLine(ws)})
		}
	}
	if m.pendingSeq > 0 && msg.seq >= m.pendingSeq {
		m.tr.setPending("")
		m.pendingSeq = 0
	}
	m.tr.dropLive(msg.seq)
	if m.travel == nil { // while travelling the side panes show the past
		m.lru.setSnapshot(m.snap)
		m.cx.setSnapshot(m.snap)
		m.tools.setSnapshot(m.snap)
	}
	if m.refreshAgain {
		m.refreshAgain = false
		return m.requestRefresh()
	}
	if m.snap != nil && m.snap.Estimated && !m.awaitedTokens {
		// the exact counts come once the tokenizer's tables are loaded;
		// asked once, since tables that cannot load never will be
		m.awaitedTokens = true
		loaded := m.eng.TokensLoaded()
		return func() tea.Msg { <-loaded; return estimatedMsg{} }
	}
	return nil
}

// send starts a turn with the user's text; the engine runs it in a
// command and Esc cancels its context (R25).
func (m *model) send(text string) tea.Cmd {
	if cmd, refused := m.refuseSend(text); refused {
		return cmd
	}
	if m.opening != nil {
		return m.enqueue(text) // sent once the session is open
	}
	ctx, cancel := context.WithCancel(m.base)
	m.running, m.turnCancel = true, cancel
	m.activity = "starting the turn"
	m.pendingSeq = 0
	m.tr.setPending(text)
	m.tr.end()
	m.shown = paneTranscript // under 100 columns: show where the turn plays out
	m.flash = ""
	eng := m.eng
	turn := func() tea.Msg {
		end, err := eng.Turn(ctx, text)
		if err == nil && end != nil && end.StopReason == event.StopCancelled {
			// the engine records a cancel as how the turn ended, not as an
			// error; the program treats both alike
			err = context.Canceled
		}
		return turnDoneMsg{end: end, err: err}
	}
	return tea.Batch(turn, m.startSpinner(), m.requestRefresh())
}

func (m *model) startSpinner() tea.Cmd {
	if m.spinning {
		return nil
	}
	m.spinning = true
	m.tr.setPaced(true)
	return m.spin.Tick
}

func (m *model) onTurnDone(msg turnDoneMsg) tea.Cmd {
	m.running, m.activity = false, ""
	if m.turnCancel != nil {
		m.turnCancel()
		m.turnCancel = nil
	}
	m.tr.finishLive(m.seq)
	if m.pendingSeq == 0 {
		// the engine never recorded the message: the turn failed to start
		m.tr.setPending("")
	}
	var cmd tea.Cmd
	switch {
	case msg.err == nil:
		if next := m.sendQueued(); next != nil {
			return tea.Batch(next, m.requestRefresh())
		}
	case errors.Is(msg.err, context.Canceled):
		cmd = m.flashInfo("turn cancelled")
		if len(m.queue) > 0 {
			cmd = m.flashInfo("turn cancelled · the queued messages are back in the input")
		}
		m.restoreQueue()
	default:
		m.restoreQueue()
		cmd = m.flashErr(fmt.Errorf("turn: %w", msg.err))
	}
	return tea.Batch(cmd, m.requestRefresh())
}

// cancelTurn stops the running turn (R25): the engine answers every open
// tool call with "cancelled by user".
func (m *model) cancelTurn() tea.Cmd {
	if !m.running || m.turnCancel == nil {
		return nil
	}
	m.turnCancel()
	m.activity = "cancelling…"
	return m.flashInfo("cancelling the turn…")
}

func (m *model) quit() tea.Cmd {
	if m.turnCancel != nil {
		m.turnCancel()
	}
	for _, d := range m.approvals {
		d.answer(2)
	}
	m.approvals = nil
	if c, ok := m.overlay.(closer); ok {
		c.close()
	}
	return tea.Quit
}

const flashFor = 6 * time.Second

func (m *model) flashInfo(s string) tea.Cmd {
	m.flash, m.flashIsErr, m.quitArmed = s, false, false
	m.flashIn = m.overlay
	m.flashID++
	id := m.flashID
	return tea.Tick(flashFor, func(time.Time) tea.Msg { return flashExpiredMsg{id: id} })
}

// flashErr shows an error until the next one or the next action: errors
// are never lost to a timer.
func (m *model) flashErr(err error) tea.Cmd {
	m.flash, m.flashIsErr, m.quitArmed = err.Error(), true, false
	m.flashIn = m.overlay
	m.flashID++
	return nil
}

func (m *model) openInspector(turn int) tea.Cmd {
	in, cmd := newInspector(m.th, m.eng, m.opts.ExportDir, turn)
	m.overlay = in
	return cmd
}

// workspaceLine says on the first screen where the agent tools work and
// how their commands are confined.
func workspaceLine(ws *event.WorkspaceInfo) string {
	where := "an empty folder, " + ws.Root
	switch ws.Mode {
	case event.WorkspaceCopy:
		where = fmt.Sprintf("a copy of %s (%d files)", ws.Source, ws.Files)
	case event.WorkspaceInPlace:
		where = ws.Root + " ITSELF (in place: changes are real)"
	}
	box := ws.Sandbox
	if box == "" {
		box = "refused: no sandbox can start (--no-sandbox runs them unconfined)"
	}
	return fmt.Sprintf("agent tools work in %s · commands: %s · /files lists what they change", where, box)
}
