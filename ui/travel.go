package ui

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"skillet/harness/event"
	"skillet/harness/view"
)

// Time travel steps the side panes back through the session's model
// calls: the loaded skills, <current_context> and tools as each call went
// out, folded from the journal by the engine (not re-run), while the
// transcript stays live.

// travel is the call being viewed and the calls stepped through: hist
// lists them, light is the state of the one viewed, whole the few read
// back with their request (at most wholeKept, most recent last in order).
type travel struct {
	hist  *view.History
	idx   int
	light *view.Snapshot
	whole map[int]*view.Snapshot
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
	snap *view.Snapshot
	err  error
}

type historyMsg struct {
	hist *view.History
	err  error
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
		case i >= m.travel.hist.Len():
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
		hist, err := h.History()
		want.hist, want.err = hist, err
		return want
	}
}

func (m *model) onHistory(msg historyMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		return m.flashErr(msg.err)
	case msg.hist.Len() == 0:
		return m.flashInfo("no model call yet: nothing to step back to")
	}
	t := &travel{hist: msg.hist, idx: msg.hist.Len() - 1}
	if msg.turn > 0 {
		i, found := msg.hist.First(msg.turn)
		if !found {
			return m.flashErr(fmt.Errorf("turn %d made no model call", msg.turn))
		}
		t.idx = i
	}
	m.travel = t
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
		// folded from the checkpoint before the call: at most a few
		// dozen calls' lines of the journal
		light, err := t.hist.At(t.idx)
		if err != nil {
			return m.flashErr(err)
		}
		s = light
	}
	t.light = s
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
	idx, light := t.idx, s
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
		t.whole = map[int]*view.Snapshot{}
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
func (m *model) livePolicies(s *view.Snapshot) *view.Snapshot {
	if s == nil || m.snap == nil {
		return s
	}
	now := map[string]event.ToolInfo{}
	for _, t := range m.snap.Tools {
		now[t.Name] = t
	}
	c := *s
	c.Tools = make([]event.ToolInfo, len(s.Tools))
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
	turn, call := m.travel.hist.Call(m.travel.idx)
	return fmt.Sprintf("viewing call %d of %d (turn %d, call %d) · %s/%s step · esc back to live",
		m.travel.idx+1, m.travel.hist.Len(), turn, call, m.keys.HistoryBack.Help().Key, m.keys.HistoryOn.Help().Key)
}
