package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"skillet/harness/event"
)

// onEvents takes a delivery from the sink: events in order, and approval
// requests where they fell among them.
func (m *model) onEvents(batch eventsMsg) tea.Cmd {
	var cmds []tea.Cmd
	refresh := false
	for _, it := range batch {
		switch x := it.(type) {
		case approvalMsg:
			m.approvals = append(m.approvals, newApprovalDialog(m.th, x))
			m.activity = "waiting for your approval"
			if len(m.approvals) == 1 {
				cmds = append(cmds, m.showApproval())
			}
		case approvalGoneMsg:
			for i, d := range m.approvals {
				if d.id == x.id {
					m.approvals = append(m.approvals[:i], m.approvals[i+1:]...)
					if i == 0 && len(m.approvals) > 0 {
						cmds = append(cmds, m.showApproval())
					}
					break
				}
			}
		case event.Event:
			m.seq++
			if cmd := m.onEvent(x); cmd != nil {
				cmds = append(cmds, cmd)
			}
			if event.Journaled(x) {
				refresh = true
			}
		}
	}
	if refresh {
		cmds = append(cmds, m.requestRefresh())
	}
	return tea.Batch(cmds...)
}

func (m *model) onEvent(ev event.Event) tea.Cmd {
	m.mark(ev)
	inspecting := func() tea.Cmd {
		if in, ok := m.overlay.(*inspector); ok {
			return in.refresh()
		}
		return nil
	}
	switch e := ev.(type) {
	case *event.TurnStart:
		m.pendingSeq = m.seq
		m.activity = "turn started"
	case *event.ModelCall:
		m.activity = fmt.Sprintf("waiting for the model (call %d)", e.Call)
		return inspecting()
	case *event.TextDelta:
		m.activity = "the model is writing"
		return m.tr.onDelta(event.TurnOf(e), e.Call, e.Text, false)
	case *event.ReasoningDelta:
		m.activity = "the model is thinking"
		return m.tr.onDelta(event.TurnOf(e), e.Call, e.Text, true)
	case *event.Assistant:
		m.tr.finishLive(m.seq)
		if len(e.ToolCalls) > 0 {
			m.activity = "running tools"
		}
		return inspecting()
	case *event.ToolStarted:
		m.activity = "running " + e.Name
	case *event.ToolResult:
		if m.running {
			m.activity = "waiting for the model"
		} else {
			m.activity = "" // a call by hand (/call, the call form) ended
		}
	case *event.Retry:
		m.activity = fmt.Sprintf("retrying call %d", e.Call)
	case *event.TurnEnd:
		m.activity = ""
	}
	return nil
}

// mark shows an event between transcript entries where the engine placed
// it, once.
func (m *model) mark(ev event.Event) {
	mk, ok := markOf(ev)
	if !ok {
		return
	}
	switch {
	case m.marked[ev]:
		// seen before the first refresh, or merged from Marks and now
		// arriving live: each comes live once
		if m.calibrated {
			delete(m.marked, ev)
		}
		return
	case m.calibrated:
		// events come in order, so none of those merged is still on its
		// way: nothing is left to tell apart
		m.marked = nil
	default:
		if m.marked == nil {
			m.marked = map[event.Event]bool{}
		}
		m.marked[ev] = true
	}
	m.tr.addMark(mk)
}

// markOf makes the mark of an event, if it has one.
func markOf(ev event.Event) (mark, bool) {
	mk, ok := markFor(ev)
	if !ok {
		return mark{}, false
	}
	mk.after = ev.Head().Entry
	mk.big = bigText(ev)
	return mk, true
}
