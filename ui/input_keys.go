package ui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// onKey routes a key press: quitting first, then the approval dialog (the
// engine waits on it), an open overlay, the keys that work everywhere, and
// last the focused pane or the input.
func (m *model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	s := msg.String()
	if s == "ctrl+c" {
		return m.quitKey()
	}
	if m.quitArmed {
		m.quitArmed, m.flash = false, ""
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
	switch s {
	case "esc":
		if m.running {
			return m.cancelTurn()
		}
		if m.focus != paneInput {
			return m.setFocus(paneInput)
		}
		return nil
	case "tab":
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
	case "shift+tab":
		return m.setFocus(m.nextPane(-1))
	case "ctrl+o":
		return m.openInspector(m.tr.selectedTurn())
	case "f1":
		return m.cmdHelp("")
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

func (m *model) inputKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		text := m.in.value()
		trimmed := strings.TrimSpace(text)
		switch {
		case trimmed == "":
			return nil
		case strings.HasPrefix(trimmed, "/"):
			m.in.take()
			return m.runLine(trimmed)
		case m.running:
			return m.flashErr(errTurnRunning)
		}
		m.in.take()
		return m.send(text)
	case "up":
		if m.in.browse(true) {
			return nil
		}
	case "down":
		if m.in.browse(false) {
			return nil
		}
	case "pgup":
		m.tr.pageUp()
		return nil
	case "pgdown":
		m.tr.pageDown()
		return nil
	case "?":
		if m.in.value() == "" {
			return m.cmdHelp("")
		}
	}
	return m.in.update(msg)
}

// paneKey handles keys for the focused pane.
func (m *model) paneKey(msg tea.KeyPressMsg) tea.Cmd {
	s := msg.String()
	switch s {
	case "?":
		return m.cmdHelp("")
	case "/":
		cmd := m.setFocus(paneInput)
		m.in.set(m.in.value() + "/")
		return cmd
	}
	lay := m.layout()
	h := max(1, lay.panes[m.focus].h-2)
	switch m.focus {
	case paneTranscript:
		return m.transcriptKey(msg)
	case paneLRU:
		return m.lru.key(msg, h)
	case paneContext:
		return m.cx.key(msg, h)
	case paneTools:
		return m.tools.key(msg, h)
	}
	return nil
}

func (m *model) transcriptKey(msg tea.KeyPressMsg) tea.Cmd {
	t := m.tr
	switch msg.String() {
	case "up", "k":
		t.prev()
	case "down", "j":
		t.next()
	case "pgup", "ctrl+u", "b":
		t.pageUp()
	case "pgdown", "ctrl+d":
		t.pageDown()
	case "home", "g":
		t.home()
	case "end", "G":
		t.end()
		t.hasSel = false
	case "enter", "space":
		t.toggle()
	case "e":
		t.toggleAll()
	case "v":
		if title, text, ok := t.selectedText(); ok {
			return openViewer(title, text)
		}
		return m.flashInfo("select an item first (↑/↓)")
	case "y":
		if title, text, ok := t.selectedText(); ok {
			return copyText(text, title)
		}
		return m.flashInfo("select an item first (↑/↓)")
	case "i":
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
	if p != paneInput {
		m.shown = p
		m.in.blur()
		return nil
	}
	return m.in.focus()
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
	switch p {
	case paneTranscript:
		m.tr.scrollBy(n)
	case paneLRU:
		m.lru.sc.by(n, len(m.lru.lines), h)
	case paneContext:
		m.cx.sc.by(n, len(m.cx.lines), h)
	case paneTools:
		m.tools.sc.by(n, len(m.tools.lines), h)
	}
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
