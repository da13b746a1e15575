package ui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// onKey routes a key press: quitting first, then the approval dialog (the
// engine waits on it), an open overlay, the command menu and the search
// bar, the keys that work everywhere, then text — which always goes to
// the input — and last the focused pane's own keys.
func (m *model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if key.Matches(msg, k.Quit) {
		return m.quitKey()
	}
	if m.quitArmed {
		m.quitArmed, m.flash = false, ""
	}
	if cmd, ok := m.openingKey(msg); ok {
		return cmd
	}
	if len(m.approvals) > 0 {
		d := m.approvals[0]
		if !d.armed(m.now()) {
			return nil // typed before the dialog could be read
		}
		if d.key(msg) == "" {
			return nil
		}
		m.approvals = m.approvals[1:]
		m.activity = ""
		if m.running {
			m.activity = "running " + d.req.Name
		}
		if len(m.approvals) > 0 {
			return m.showApproval()
		}
		return nil
	}
	if m.overlay != nil {
		cmd, done := m.overlay.key(msg)
		if done {
			if c, ok := m.overlay.(closer); ok {
				c.close()
			}
			m.overlay = nil
		}
		return cmd
	}
	if m.find != nil {
		return m.findKey(msg)
	}
	if cmd, ok := m.menuKey(msg); ok {
		return cmd
	}
	if m.paneMode {
		if m.focus == paneInput {
			m.paneMode = false
		} else if key.Matches(msg, k.Cancel) {
			m.paneMode = false
			return nil
		} else if printable(msg) {
			// a letter is the pane's alt+letter
			return m.paneKey(tea.KeyPressMsg{Code: msg.Code, Mod: tea.ModAlt})
		}
	}
	switch {
	case key.Matches(msg, k.PaneMode):
		if m.focus == paneInput {
			m.setFocus(m.shown)
		}
		m.paneMode = true
		return nil
	case key.Matches(msg, k.HistoryBack):
		return m.stepHistory(-1)
	case key.Matches(msg, k.HistoryOn):
		return m.stepHistory(1)
	case key.Matches(msg, k.Cancel):
		switch {
		case m.travel != nil:
			m.leaveTravel()
			return nil
		case m.running:
			return m.cancelTurn()
		case m.zoom != paneInput:
			m.zoom = paneInput
			return nil
		case m.focus != paneInput:
			return m.setFocus(paneInput)
		}
		return nil
	case key.Matches(msg, k.FocusNext):
		if m.focus == paneInput {
			if text, cands := m.complete(m.in.value()); text != m.in.value() || cands != nil {
				m.in.set(text)
				if len(cands) > 1 {
					return m.flashInfo(strings.Join(cands, "  "))
				}
				return nil
			}
		}
		return m.setFocus(m.nextPane(1))
	case key.Matches(msg, k.FocusPrev):
		return m.setFocus(m.nextPane(-1))
	case key.Matches(msg, k.Files):
		return m.cmdFiles("")
	case key.Matches(msg, k.Inspector):
		return m.openInspector(m.tr.selectedTurn())
	case key.Matches(msg, k.Help):
		return m.cmdHelp("")
	case key.Matches(msg, k.Zoom):
		m.toggleZoom()
		return nil
	case key.Matches(msg, k.Search):
		return m.openFind()
	case key.Matches(msg, k.PrevTurn):
		m.jumpTurn(-1)
		return nil
	case key.Matches(msg, k.NextTurn):
		m.jumpTurn(1)
		return nil
	case key.Matches(msg, k.Present):
		m.setPresent(!m.present)
		return nil
	case key.Matches(msg, k.Suggest):
		return m.takeSuggestion(msg.String())
	case key.Matches(msg, k.Unqueue):
		return m.unqueue()
	}
	if printable(msg) {
		if msg.Text == "?" && m.in.value() == "" {
			return m.cmdHelp("")
		}
		cmd := m.setFocus(paneInput)
		return tea.Batch(cmd, m.in.update(msg))
	}
	if m.focus == paneInput {
		return m.inputKey(msg)
	}
	return m.paneKey(msg)
}

// quitKey quits on the second ctrl+c; the first only warns.
func (m *model) quitKey() tea.Cmd {
	if m.quitArmed {
		return m.quit()
	}
	m.flashID++
	m.quitArmed, m.flash, m.flashIsErr = true, "press ctrl+c again to quit", false
	return tea.Tick(3*time.Second, func(time.Time) tea.Msg { return quitDisarmMsg{} })
}

// submit does with text what enter does with the input: a line starting
// with / is a command, a message while a turn runs (or the session opens)
// waits in the queue, and any other is sent.
func (m *model) submit(text string) tea.Cmd {
	trimmed := strings.TrimSpace(text)
	switch {
	case trimmed == "":
		return nil
	case strings.HasPrefix(trimmed, "/"):
		return m.runLine(trimmed)
	case m.running || m.opening != nil:
		return m.enqueue(text)
	}
	return m.send(text)
}

func (m *model) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Send):
		if strings.TrimSpace(m.in.value()) == "" {
			return nil
		}
		return m.submit(m.in.take())
	case key.Matches(msg, k.History):
		up := msg.String() == "up"
		if up && m.in.value() == "" && len(m.queue) > 0 {
			// the last queued message comes back to be edited or dropped
			m.in.set(m.queue[len(m.queue)-1])
			m.queue = m.queue[:len(m.queue)-1]
			return nil
		}
		if m.in.browse(up) {
			return nil
		}
	case key.Matches(msg, k.ScrollUp):
		m.tr.pageUp()
		return nil
	case key.Matches(msg, k.ScrollDown):
		m.tr.pageDown()
		return nil
	}
	return m.in.update(msg)
}

// paneKey handles the focused pane's own keys; none of them is text.
func (m *model) paneKey(msg tea.KeyPressMsg) tea.Cmd {
	lay := m.layout()
	h := max(1, lay.panes[m.focus].h-2)
	if pl := m.panels[m.focus]; pl != nil {
		return pl.key(msg, h)
	}
	return nil
}

func (m *model) transcriptKey(msg tea.KeyPressMsg) tea.Cmd {
	t, k := m.tr, m.keys
	switch {
	case key.Matches(msg, k.Up):
		t.prev()
	case key.Matches(msg, k.Down):
		t.next()
	case key.Matches(msg, k.PageUp):
		t.pageUp()
	case key.Matches(msg, k.PageDown):
		t.pageDown()
	case key.Matches(msg, k.Top):
		t.home()
	case key.Matches(msg, k.Bottom):
		t.end()
		t.hasSel = false
	case key.Matches(msg, k.Fold):
		t.toggle()
	case key.Matches(msg, k.FoldAll):
		t.toggleAll()
	case key.Matches(msg, k.View):
		if title, text, ok := t.selectedText(); ok {
			return openViewer(title, text)
		}
		return m.flashInfo("select an item first (↑/↓)")
	case key.Matches(msg, k.Copy):
		if title, text, ok := t.selectedText(); ok {
			return copyText(text, title)
		}
		return m.flashInfo("select an item first (↑/↓)")
	case key.Matches(msg, k.Inspect):
		return m.openInspector(t.selectedTurn())
	}
	return nil
}

// nextPane is the pane d steps from the focused one, in the order input,
// transcript, LRU, context, tools.
func (m *model) nextPane(d int) pane {
	return pane((int(m.focus) + d + int(numPanes)) % int(numPanes))
}

func (m *model) setFocus(p pane) tea.Cmd {
	m.focus = p
	if p == paneInput {
		m.paneMode = false
	}
	if p != paneInput {
		m.shown = p
		if m.zoom != paneInput {
			m.zoom = p // tab moves the zoom from pane to pane
		}
		m.in.blur()
		return nil
	}
	return m.in.focus()
}

// toggleZoom gives the focused pane (or, from the input, the pane last
// shown) the whole body, or puts the layout back.
func (m *model) toggleZoom() {
	if m.zoom != paneInput {
		m.zoom = paneInput
		return
	}
	m.zoom = m.focus
	if m.zoom == paneInput {
		m.zoom = m.shown
	}
	if m.zoom == paneInput {
		m.zoom = paneTranscript
	}
}

// onWheel scrolls the pane (or overlay) under the pointer.
func (m *model) onWheel(msg tea.MouseWheelMsg) {
	ev := msg.Mouse()
	n := 0
	switch ev.Button {
	case tea.MouseWheelUp:
		n = -3
	case tea.MouseWheelDown:
		n = 3
	default:
		return
	}
	if len(m.approvals) > 0 {
		m.approvals[0].args.down(n, max(1, m.approvals[0].argH))
		return
	}
	if m.overlay != nil {
		m.overlay.wheel(n)
		return
	}
	lay := m.layout()
	p, ok := lay.paneAt(ev.X, ev.Y)
	if !ok {
		return
	}
	h := max(1, lay.panes[p].h-2)
	m.panels[p].wheel(n, h)
}

// onClick focuses the pane under the pointer; in the transcript it selects
// (and on a second click folds) the item; in the narrow layout's tab bar
// it switches panes.
func (m *model) onClick(msg tea.MouseClickMsg) tea.Cmd {
	ev := msg.Mouse()
	if ev.Button != tea.MouseLeft || m.overlay != nil || len(m.approvals) > 0 {
		return nil
	}
	lay := m.layout()
	if lay.tabs.contains(ev.X, ev.Y) {
		if p, ok := tabAt(ev.X); ok {
			return m.setFocus(p)
		}
		return nil
	}
	p, ok := lay.paneAt(ev.X, ev.Y)
	if !ok {
		return nil
	}
	cmd := m.setFocus(p)
	if p == paneTranscript {
		m.tr.click(ev.Y - lay.panes[p].y - 1)
	}
	return cmd
}
