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

// travel is the call being viewed and the snapshots stepped through:
// snaps hold each call's state, whole the few read back with their
// request (at most wholeKept, most recent last in order).
type travel struct {
	snaps []*harness.Snapshot
	idx   int
	whole map[int]*harness.Snapshot
	order []int
	// reading marks the calls being read back.
	reading map[int]bool
}

// wholeKept is how many calls time travel holds with their request.
const wholeKept = 8

// wholeMsg carries one call's snapshot with its request.
type wholeMsg struct {
	t    *travel
	idx  int
	snap *harness.Snapshot
	err  error
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
		return m.showTravel()
	}
	if dir > 0 {
		return m.flashInfo("this is the live session; " + m.keys.HistoryBack.Help().Key + " steps back through its model calls")
	}
	return m.fetchHistory(historyMsg{dir: dir})
}

func (m *model) fetchHistory(want historyMsg) tea.Cmd {
	h := m.eng
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
	return m.showTravel()
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

// showTravel shows the call being viewed: at once with its state, and
// with its request once read back from the journal.
func (m *model) showTravel() tea.Cmd {
	t := m.travel
	s := t.whole[t.idx]
	if s == nil {
		s = t.snaps[t.idx]
	}
	m.lru.setSnapshot(s)
	m.cx.setSnapshot(s)
	m.tools.setSnapshot(m.livePolicies(s))
	// the transcript goes to the call: its last message the one the call
	// saw last
	m.tr.revealEntry(s.Window.Messages - 1)
	h := m.eng
	if t.whole[t.idx] != nil || t.reading[t.idx] {
		return nil
	}
	if t.reading == nil {
		t.reading = map[int]bool{}
	}
	idx, light := t.idx, t.snaps[t.idx]
	t.reading[idx] = true
	return func() tea.Msg {
		snap, err := h.HistoryAt(light, idx)
		return wholeMsg{t: t, idx: idx, snap: snap, err: err}
	}
}

// onWhole keeps a call read back with its request, letting go of the
// oldest past wholeKept, and shows it if it is still the one viewed.
func (m *model) onWhole(msg wholeMsg) tea.Cmd {
	t := msg.t
	delete(t.reading, msg.idx)
	if msg.err != nil {
		if m.travel == t && t.idx == msg.idx {
			return m.flashErr(msg.err)
		}
		return nil
	}
	if t.whole == nil {
		t.whole = map[int]*harness.Snapshot{}
	}
	t.whole[msg.idx] = msg.snap
	t.order = append(t.order, msg.idx)
	for len(t.order) > wholeKept {
		delete(t.whole, t.order[0])
		t.order = t.order[1:]
	}
	if m.travel == t && t.idx == msg.idx {
		m.lru.setSnapshot(msg.snap)
		m.cx.setSnapshot(msg.snap)
		m.tools.setSnapshot(m.livePolicies(msg.snap))
	}
	return nil
}

// livePolicies gives the tools of a past call, which its request names
// without their approval policy, the policy the session has for them now
// (a tool the session no longer has keeps none, shown as such).
func (m *model) livePolicies(s *harness.Snapshot) *harness.Snapshot {
	if s == nil || m.snap == nil {
		return s
	}
	now := map[string]harness.ToolInfo{}
	for _, t := range m.snap.Tools {
		now[t.Name] = t
	}
	c := *s
	c.Tools = make([]harness.ToolInfo, len(s.Tools))
	for i, t := range s.Tools {
		if live, ok := now[t.Name]; ok && t.Approval == "" {
			t.Approval = live.Approval
		}
		c.Tools[i] = t
	}
	return &c
}

func (m *model) leaveTravel() {
	m.travel = nil
	m.tr.end()
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
