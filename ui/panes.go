package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// panel is one pane of the body as the program drives it. Every pane
// answers the same questions, so focus, keys, the wheel, the hint line
// and drawing go through one table instead of a switch per concern, and a
// new pane is one type and a table entry.
type panel interface {
	// title heads its box; short names it in the narrow layout's tab bar.
	title() string
	short() string
	// bindings are its own keys, worded for its hint line; the hint line
	// adds the global ones.
	bindings(k keyMap) []key.Binding
	// key handles one of its keys (none is text) in a body h rows tall.
	key(msg tea.KeyPressMsg, h int) tea.Cmd
	// wheel scrolls it n rows in a body h rows tall.
	wheel(n, h int)
	// draw is its lines and its box's footer, w columns by h rows inside
	// the box.
	draw(w, h int, focused bool) (lines []string, footer string)
}

// panelNames answers title and short for a pane without a model.
var panelNames = [numPanes]panel{
	paneTranscript: transcriptPanel{},
	paneLRU:        lruPanel{},
	paneContext:    contextPanel{},
	paneTools:      toolsPanel{},
}

// newPanels are the model's panes, in the order tab visits them.
func newPanels(m *model) [numPanes]panel {
	return [numPanes]panel{
		paneTranscript: transcriptPanel{m},
		paneLRU:        lruPanel{m},
		paneContext:    contextPanel{m},
		paneTools:      toolsPanel{m},
	}
}

func (p pane) title() string {
	if pl := p.names(); pl != nil {
		return pl.title()
	}
	return "Message"
}

// shortTitle names a pane in the narrow layout's tab bar.
func (p pane) shortTitle() string {
	if pl := p.names(); pl != nil {
		return pl.short()
	}
	return "Message"
}

func (p pane) names() panel {
	if p <= paneInput || p >= numPanes {
		return nil
	}
	return panelNames[p]
}

// selectKeys is ↑/↓ as the panes with a selection word it.
func selectKeys() key.Binding {
	return key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "select"))
}

// side draws a side pane's lines with a column of padding each side (the
// transcript's selection gutter is its padding).
func (m *model) side(p pane, w int, lines func(w int) []string) []string {
	return m.pads[p].pad(lines(max(1, w-2)))
}

type transcriptPanel struct{ m *model }

func (transcriptPanel) title() string { return "Transcript" }
func (transcriptPanel) short() string { return "Chat" }

func (transcriptPanel) bindings(k keyMap) []key.Binding {
	return []key.Binding{selectKeys(), hint(k.Fold, "fold"), hint(k.FoldAll, "unfold all"), hint(k.View, "view"), hint(k.Copy, "copy"), hint(k.Inspect, "inspect")}
}

func (p transcriptPanel) key(msg tea.KeyPressMsg, _ int) tea.Cmd { return p.m.transcriptKey(msg) }
func (p transcriptPanel) wheel(n, _ int)                         { p.m.tr.scrollBy(n) }

func (p transcriptPanel) draw(w, h int, focused bool) ([]string, string) {
	m := p.m
	m.tr.focused = focused
	if m.opening != nil {
		return m.openingLines(w), ""
	}
	if m.welcoming() {
		return m.welcomeLines(w), ""
	}
	lines, footer := m.tr.view(w, h), m.tr.footer()
	if cue := m.newBelow(); cue != "" {
		if len(lines) >= h && h > 2 {
			lines[h-1] = m.th.accent.Bold(true).Render(centerRule(" "+cue+" ", w))
		} else {
			footer = cue
		}
	}
	return lines, footer
}

type lruPanel struct{ m *model }

func (lruPanel) title() string { return "Loaded skills (LRU)" }
func (lruPanel) short() string { return "LRU" }

func (lruPanel) bindings(k keyMap) []key.Binding {
	return []key.Binding{selectKeys(), hint(k.Fold, "state & store"), hint(k.Unload, "unload"), hint(k.Why, "why"), hint(k.View, "view"), hint(k.Copy, "copy")}
}

func (p lruPanel) key(msg tea.KeyPressMsg, h int) tea.Cmd { return p.m.lru.key(p.m.keys, msg, h) }
func (p lruPanel) wheel(n, h int)                         { p.m.lru.sc.by(n, len(p.m.lru.lines), h) }

func (p lruPanel) draw(w, h int, focused bool) ([]string, string) {
	lines := p.m.side(paneLRU, w, func(w int) []string { return p.m.lru.view(w, h, focused) })
	return lines, p.m.lru.footer(h)
}

type contextPanel struct{ m *model }

func (contextPanel) title() string { return "<current_context>" }
func (contextPanel) short() string { return "Context" }

func (contextPanel) bindings(k keyMap) []key.Binding {
	return []key.Binding{hint(selectKeys(), "scroll"), hint(k.JumpContext, "<current_context>"), hint(k.View, "view"), hint(k.Copy, "copy")}
}

func (p contextPanel) key(msg tea.KeyPressMsg, h int) tea.Cmd { return p.m.cx.key(p.m.keys, msg, h) }
func (p contextPanel) wheel(n, h int)                         { p.m.cx.sc.by(n, len(p.m.cx.lines), h) }

func (p contextPanel) draw(w, h int, _ bool) ([]string, string) {
	lines := p.m.side(paneContext, w, func(w int) []string { return p.m.cx.view(w, h) })
	return lines, p.m.cx.footer(h)
}

type toolsPanel struct{ m *model }

func (toolsPanel) title() string { return "Tools" }
func (toolsPanel) short() string { return "Tools" }

func (toolsPanel) bindings(k keyMap) []key.Binding {
	return []key.Binding{selectKeys(), hint(k.Fold, "details"), hint(k.Call, "call by hand"), hint(k.View, "view")}
}

func (p toolsPanel) key(msg tea.KeyPressMsg, h int) tea.Cmd { return p.m.tools.key(p.m.keys, msg, h) }
func (p toolsPanel) wheel(n, h int)                         { p.m.tools.sc.by(n, len(p.m.tools.lines), h) }

func (p toolsPanel) draw(w, h int, focused bool) ([]string, string) {
	lines := p.m.side(paneTools, w, func(w int) []string { return p.m.tools.view(w, h, focused) })
	return lines, p.m.tools.footer(h)
}

// paneBindings are the focused pane's own keys, nil for the input.
func (m *model) paneBindings() []key.Binding {
	if pl := m.panels[m.focus]; pl != nil {
		return pl.bindings(m.keys)
	}
	return nil
}
