package ui

import (
	"fmt"
	"skillet/harness/termtext"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// maxQueueShown is how many queued messages the input box lists; the rest
// are counted.
const maxQueueShown = 3

// enqueue keeps a message typed while a turn runs, to send when it ends.
func (m *model) enqueue(text string) tea.Cmd {
	m.queue = append(m.queue, text)
	if m.opening != nil {
		return m.flashInfo(fmt.Sprintf("queued (%d): sent once the session is open · ↑ on an empty input takes it back · ctrl+x drops it", len(m.queue)))
	}
	return m.flashInfo(fmt.Sprintf("queued (%d): sent when the turn ends · ↑ on an empty input takes it back · ctrl+x drops it", len(m.queue)))
}

// unqueue drops the last queued message.
func (m *model) unqueue() tea.Cmd {
	if len(m.queue) == 0 {
		return m.flashInfo("nothing is queued")
	}
	last := m.queue[len(m.queue)-1]
	m.queue = m.queue[:len(m.queue)-1]
	return m.flashInfo("dropped the queued message " + quoteShort(last))
}

// sendQueued starts the next queued message, once the turn before it
// ended well.
func (m *model) sendQueued() tea.Cmd {
	if len(m.queue) == 0 || m.running {
		return nil
	}
	text := m.queue[0]
	m.queue = m.queue[1:]
	return m.send(text)
}

// restoreQueue puts queued messages back into the input after a turn was
// cancelled or failed: they are neither lost nor sent unasked.
func (m *model) restoreQueue() {
	if len(m.queue) == 0 {
		return
	}
	parts := append([]string(nil), m.queue...)
	if v := m.in.value(); strings.TrimSpace(v) != "" {
		parts = append(parts, v)
	}
	m.queue = nil
	m.in.set(strings.Join(parts, "\n"))
}

// queueLines are the lines the input box shows above the text area.
func (m *model) queueLines(w int) []string {
	if len(m.queue) == 0 {
		return nil
	}
	var out []string
	for i, q := range m.queue {
		if i == maxQueueShown {
			out = append(out, m.th.faint.Render(termtext.Clip(fmt.Sprintf(" … and %d more queued", len(m.queue)-i), w)))
			break
		}
		one := strings.Join(strings.Fields(termtext.Sanitize(q)), " ")
		out = append(out, m.th.faint.Render(" ⏸ queued ")+termtext.Clip(one, max(1, w-11)))
	}
	return out
}

// inputLines is the height of the input box's content: the queue and the
// text area.
func (m *model) inputLines() int {
	return m.in.height() + min(len(m.queue), maxQueueShown+1)
}

func quoteShort(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 40 {
		s = string(r[:39]) + "…"
	}
	return "“" + s + "”"
}
