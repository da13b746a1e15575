package ui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"skillet/harness"
)

// Time travel steps the side panes back through the session's model
// calls: the loaded skills, <current_context> and tools as each call went
// out, folded from the journal by the engine (not re-run), while the
// transcript stays live.

// historian is an engine that can say what the session was at each call.
type historian interface {
	History() ([]*harness.Snapshot, error)
}

// travel is the call being viewed and the snapshots stepped through.
type travel struct {
	snaps []*harness.Snapshot
	idx   int
}

type historyMsg struct {
	snaps []*harness.Snapshot
	err   error
	// dir is the step asked for; turn, when set, the turn to jump to.
	dir, turn int
}

// stepHistory moves one call back (dir -1) or on (+1); back from the live
// session shows its last call, on from the last call goes back to live.
func (m *model) stepHistory(dir int) tea.Cmd {
	if m.travel != nil {
		i := m.travel.idx + dir
		switch {
		case i < 0:
			return m.flashInfo("this is the first model call of the session")
		case i >= len(m.travel.snaps):
			m.leaveTravel()
			return m.flashInfo("back to the live session")
		}
		m.travel.idx = i
		m.showTravel()
		return nil
	}
	if dir > 0 {
		return m.flashInfo("this is the live session; " + m.keys.HistoryBack.Help().Key + " steps back through its model calls")
	}
	return m.fetchHistory(historyMsg{dir: dir})
}

func (m *model) fetchHistory(want historyMsg) tea.Cmd {
	h, ok := m.eng.(historian)
	if !ok {
		return m.flashErr(fmt.Errorf("this session keeps no history to step through"))
	}
	return func() tea.Msg {
		snaps, err := h.History()
		want.snaps, want.err = snaps, err
		return want
	}
}

func (m *model) onHistory(msg historyMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		return m.flashErr(msg.err)
	case len(msg.snaps) == 0:
		return m.flashInfo("no model call yet: nothing to step back to")
	}
	m.travel = &travel{snaps: msg.snaps, idx: len(msg.snaps) - 1}
	if msg.turn > 0 {
		found := false
		for i, s := range msg.snaps {
			if s.Turn == msg.turn {
				m.travel.idx, found = i, true
				break
			}
		}
		if !found {
			m.travel = nil
			return m.flashErr(fmt.Errorf("turn %d made no model call", msg.turn))
		}
	}
	m.showTravel()
	return nil
}

// cmdHistory is /history [TURN]: view the first call of a turn (the last
// call without one).
func (m *model) cmdHistory(args string) tea.Cmd {
	args = strings.TrimSpace(args)
	want := historyMsg{dir: -1}
	if args != "" {
		n, err := strconv.Atoi(args)
		if err != nil || n < 1 {
			return m.flashErr(fmt.Errorf("/history %s: give a turn number", args))
		}
		want.turn = n
	}
	return m.fetchHistory(want)
}

func (m *model) showTravel() {
	s := m.travel.snaps[m.travel.idx]
	m.lru.setSnapshot(s)
	m.cx.setSnapshot(s)
	m.tools.setSnapshot(s)
}

func (m *model) leaveTravel() {
	m.travel = nil
	m.lru.setSnapshot(m.snap)
	m.cx.setSnapshot(m.snap)
	m.tools.setSnapshot(m.snap)
}

// travelBar says which call the panes show, and how to get back.
func (m *model) travelBar() string {
	if m.travel == nil {
		return ""
	}
	s := m.travel.snaps[m.travel.idx]
	return fmt.Sprintf("viewing call %d of %d (turn %d, call %d) · %s/%s step · esc back to live",
		m.travel.idx+1, len(m.travel.snaps), s.Turn, s.Call, m.keys.HistoryBack.Help().Key, m.keys.HistoryOn.Help().Key)
}
