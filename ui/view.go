package ui

import (
	"fmt"
	"skillet/harness/termtext"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// layout places everything for the current size.
func (m *model) layout() layout {
	l := computeLayout(m.w, m.h, m.inputLines(), m.shown)
	if m.zoom != paneInput {
		l = l.zoomed(m.zoom)
	}
	return l
}

// View draws the screen: panes, message line, input, status bar, then any
// overlay on top. Every line is exactly the terminal's width.
func (m *model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "skillet"
	if m.focus == paneInput && m.overlay == nil && len(m.approvals) == 0 {
		if c := m.in.cursor(); c != nil {
			r := m.layout().panes[paneInput]
			c.Position.X += r.x + 1
			c.Position.Y += r.y + 1 + len(m.queueLines(r.w-2))
			v.Cursor = c
		}
	}
	return v
}

func (m *model) render() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	lay := m.layout()
	screen := make([]string, 0, m.h)
	body := m.body(lay)
	screen = append(screen, body...)
	if lay.msg.h > 0 {
		screen = append(screen, m.messageLine(m.w))
	}
	if r := lay.panes[paneInput]; r.h > 0 {
		screen = append(screen, m.inputBox(r)...)
	}
	if lay.status.h > 0 {
		screen = append(screen, m.statusBar(m.w))
	}
	for len(screen) < m.h {
		screen = append(screen, termtext.Fit("", m.w))
	}
	screen = screen[:m.h]
	if menu := m.menuView(m.w); menu != nil && m.overlay == nil && len(m.approvals) == 0 {
		// the message line under it is the blank that frames it
		y := lay.panes[paneInput].y - 1 - len(menu)
		screen = cover(screen, menu, 0, max(0, y), m.w, nil)
	}
	if m.overlay != nil {
		lines, x, y := m.overlay.view(m.w, m.h)
		screen = cover(screen, m.noteInside(lines), x, y, m.w, m.dimmed)
	}
	if len(m.approvals) > 0 {
		d := m.approvals[0]
		lines, x, y := d.view(m.w, m.h, d.armed(m.now()))
		screen = cover(screen, lines, x, y, m.w, m.dimmed)
	}
	if m.overlay == nil && len(m.approvals) == 0 {
		return m.screen.join(screen)
	}
	return strings.Join(screen, "\n")
}

// paneBox draws one pane in its rect.
func (m *model) paneBox(p pane, r rect) []string {
	if r.w <= 0 || r.h <= 0 {
		return nil
	}
	iw, ih := max(0, r.w-2), max(0, r.h-2)
	focused := m.focus == p
	lines, footer := m.panels[p].draw(iw, ih, focused)
	title := p.title()
	if m.paneMode && focused {
		title = "[pane keys · esc] " + title
	}
	if m.zoom == p {
		title += " · zoomed — ctrl+z or esc restores"
	}
	return m.boxes[p].box(m.th, title, lines, r.w, r.h, m.focus == p, footer)
}

// dimmed redraws a line of what is under a dialog in the dim colour.
func (m *model) dimmed(line string) string {
	return termtext.Fit(style(m.th.dim, ansi.Strip(line)), termtext.Width(line))
}

// newBelow is the cue that output arrived below a transcript scrolled up,
// "" when there is none.
func (m *model) newBelow() string {
	switch {
	case m.tr.follow:
		m.seenBelow, m.newOutput = 0, false
	case m.seenBelow == 0:
		m.seenBelow = m.tr.size()
	case m.tr.size() > m.seenBelow:
		m.newOutput = true
	}
	if m.newOutput {
		return "↓ new output below · pgdn / end"
	}
	return ""
}

// noteInside writes the message line's flash into the last inner row of
// an overlay: what a key in the overlay did shows where the eyes are.
func (m *model) noteInside(lines []string) []string {
	if m.flash == "" || m.flashIn != m.overlay || len(lines) < 3 {
		return lines
	}
	w := termtext.Width(lines[0])
	if w < 6 {
		return lines
	}
	st, icon := m.th.info, ""
	if m.flashIsErr {
		st, icon = m.th.bad, iconError+" "
	}
	side := m.th.borderFocus.Render(thickBorder.v)
	out := append([]string(nil), lines...)
	out[len(out)-2] = side + termtext.Fit(st.Render(termtext.Clip(" "+icon+termtext.Sanitize(m.flash), w-2)), w-2) + termtext.Reset + side
	return out
}

// pad puts a space before each line.
func pad(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = " " + l
	}
	return out
}

func (m *model) body(lay layout) []string {
	bodyH := lay.msg.y
	switch lay.mode {
	case layoutZoom:
		return m.paneBox(m.zoom, lay.panes[m.zoom])
	case layoutWide:
		return m.bodyJoin.hjoin(
			m.paneBox(paneTranscript, lay.panes[paneTranscript]),
			m.paneBox(paneLRU, lay.panes[paneLRU]),
			m.paneBox(paneContext, lay.panes[paneContext]),
			m.paneBox(paneTools, lay.panes[paneTools]),
		)
	case layoutMedium:
		side := m.sideJoin.vjoin(m.paneBox(paneLRU, lay.panes[paneLRU]), m.paneBox(paneContext, lay.panes[paneContext]), m.paneBox(paneTools, lay.panes[paneTools]))
		return m.bodyJoin.hjoin(m.paneBox(paneTranscript, lay.panes[paneTranscript]), side)
	default:
		var out []string
		if lay.tabs.h > 0 {
			out = append(out, m.tabBar(lay.w))
		}
		for p := paneTranscript; p < numPanes; p++ {
			if r := lay.panes[p]; r.h > 0 {
				out = append(out, m.paneBox(p, r)...)
			}
		}
		for len(out) < bodyH {
			out = append(out, termtext.Fit("", lay.w))
		}
		return out[:min(len(out), bodyH)]
	}
}

// tabBar names the narrow layout's panes, the shown one in brackets.
func (m *model) tabBar(w int) string {
	var b strings.Builder
	for p := paneTranscript; p < numPanes; p++ {
		name := p.shortTitle()
		if p == m.shown {
			st := m.th.tagActive
			if m.focus != p {
				st = m.th.bold
			}
			b.WriteString(st.Render("[" + name + "]"))
			b.WriteString(" ")
		} else {
			b.WriteString(m.th.tag.Render(" " + name + "  "))
		}
	}
	bar := b.String()
	if hint := "  tab switches panes"; termtext.Width(bar)+termtext.Width(hint) <= w {
		bar += m.th.faint.Render(hint)
	}
	return termtext.Fit(bar, w)
}

func (m *model) inputBox(r rect) []string {
	lines := append(m.queueLines(r.w-2), strings.Split(m.in.view(), "\n")...)
	title := "Message"
	switch {
	case m.running && len(m.queue) > 0:
		title = fmt.Sprintf("Message · %d queued for after this turn — ↑ takes back · ctrl+x drops · esc cancels the turn", len(m.queue))
	case m.running:
		title = "Message · a turn is running — enter queues · esc cancels it"
	case m.opening != nil:
		title = "Message · the session is reopening — enter queues"
	}
	return m.boxes[paneInput].box(m.th, title, lines, r.w, r.h, m.focus == paneInput, "")
}

// messageLine shows the last command's outcome or error, else key hints.
func (m *model) messageLine(w int) string {
	if m.find != nil {
		return m.findLine(w)
	}
	switch {
	case m.flash != "" && m.flashIsErr:
		return termtext.Fit(m.th.bad.Render(" "+iconError+" "+termtext.Sanitize(m.flash)), w)
	case m.flash != "" && m.quitArmed:
		return termtext.Fit(m.th.warn.Render(" "+termtext.Sanitize(m.flash)), w)
	case m.flash != "":
		return termtext.Fit(m.th.info.Render(" "+termtext.Sanitize(m.flash)), w)
	}
	k := helpKey{w: w, th: m.th, focus: m.focus, paneMode: m.paneMode}
	if !m.hints.ok || m.hints.key != k {
		m.help.SetWidth(max(0, w-1))
		m.hints = helpMemo{key: k, line: termtext.Fit(" "+m.th.clean(m.help.ShortHelpView(m.keys.readOnlyHints(m.keys.paneHelp(m.paneBindings(), w < 100, m.paneMode), m.opts.ReadOnly))), w), ok: true}
	}
	return m.hints.line
}
