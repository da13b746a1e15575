package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"skillet/harness/rulebook"
	"skillet/harness/termtext"
)

// The transcript's search, turn jumps and the "new output below" cue: they
// read the transcript's items and move its view, nothing more.

// itemText is what a search looks through in item p: the words shown,
// the tool calls and their arguments.
func (t *transcriptPane) itemText(p int) string {
	it := t.items[p]
	switch it.kind {
	case itemEntry:
		e := t.entries.At(it.idx)
		var b strings.Builder
		b.WriteString(e.Text)
		b.WriteString("\n")
		b.WriteString(e.Reasoning)
		b.WriteString("\n")
		b.WriteString(e.ToolName)
		for _, c := range e.ToolCalls {
			b.WriteString("\n" + c.Name + " " + c.Arguments)
		}
		return b.String()
	case itemMark:
		return t.marks[it.idx].shown(t.th)
	case itemPending:
		return t.pending
	case itemLive:
		return t.live.text.String()
	}
	return ""
}

// findFrom is the position of the nearest item from p (exclusive) in
// direction dir (-1 older, +1 newer) whose text holds q, any case; -1 if
// none.
func (t *transcriptPane) findFrom(q string, p, dir int) int {
	q = strings.ToLower(q)
	if q == "" {
		return -1
	}
	for i := p + dir; i >= 0 && i < len(t.items); i += dir {
		if strings.Contains(strings.ToLower(t.itemText(i)), q) {
			return i
		}
	}
	return -1
}

// countMatches is how many items hold f's query. The search bar shows it
// on every frame, so the count over the items is kept until the query or
// the items change; only a streaming reply, which changes under it, is
// looked at each time.
func (t *transcriptPane) countMatches(f *finder) int {
	q := strings.ToLower(f.in.Value())
	if q == "" {
		return 0
	}
	if q != f.counted || len(t.items) != f.countedItems {
		f.counted, f.countedItems, f.count = q, len(t.items), 0
		for i, it := range t.items {
			if it.kind != itemLive && strings.Contains(strings.ToLower(t.itemText(i)), q) {
				f.count++
			}
		}
	}
	n := f.count
	for i, it := range t.items {
		if it.kind == itemLive && strings.Contains(strings.ToLower(t.itemText(i)), q) {
			n++
		}
	}
	return n
}

// current is the item position the view is at: the selection, else the
// first row on screen, else the end.
func (t *transcriptPane) current() int {
	if t.hasSel {
		if p, ok := t.pos[t.sel]; ok {
			return p
		}
	}
	if len(t.rows) > 0 {
		return t.rows[0].pos
	}
	return len(t.items)
}

// showAtTop selects item p and scrolls it to the top of the view.
func (t *transcriptPane) showAtTop(p int) {
	if p < 0 || p >= len(t.items) {
		return
	}
	t.sel, t.hasSel = t.items[p], true
	t.follow, t.top, t.topOff = false, t.items[p], 0
}

// revealEntry selects transcript entry i and scrolls it into view, its
// end on the last row when it fits.
func (t *transcriptPane) revealEntry(i int) {
	p, ok := t.pos[item{kind: itemEntry, idx: i}]
	if !ok {
		return
	}
	t.sel, t.hasSel = t.items[p], true
	t.follow = false
	if iw := t.w - 1; iw > 0 && t.h > 0 {
		t.alignBottom(p, iw, t.h)
	}
}

// jumpTurnFrom is the position of the user message of the turn before
// (dir -1) or after (dir +1) position p; -1 if there is none.
func (t *transcriptPane) jumpTurnFrom(p, dir int) int {
	for i := p + dir; i >= 0 && i < len(t.items); i += dir {
		it := t.items[i]
		if it.kind == itemPending || (it.kind == itemEntry && t.entries.At(it.idx).Kind == rulebook.EntryUser) {
			return i
		}
	}
	return -1
}

// size is a measure of what the transcript holds, growing as output
// arrives: items and streamed characters.
func (t *transcriptPane) size() int {
	n := len(t.items) * 1_000_000
	if t.live != nil {
		n += t.live.text.Len() + t.live.reasoning.Len()
	}
	return n
}

// jumpTurn moves the transcript to the previous or next turn's message.
func (m *model) jumpTurn(dir int) {
	t := m.tr
	p := t.jumpTurnFrom(t.current(), dir)
	if p < 0 {
		if dir > 0 {
			t.end()
			t.hasSel = false
		}
		return
	}
	t.showAtTop(p)
}

// finder is the search bar over the message line: typing searches the
// transcript from the newest item back, enter and ↑ go to older matches,
// ↓ to newer ones, esc closes it.
type finder struct {
	in      textinput.Model
	at      int // the matched item position, -1 before a match
	missing bool
	// count is how many items other than the streaming reply held
	// counted when there were countedItems items (see countMatches).
	counted      string
	countedItems int
	count        int
}

func (m *model) openFind() tea.Cmd {
	ti := textinput.New()
	ti.Prompt = " find › "
	ti.Placeholder = "text in the transcript"
	m.find = &finder{in: ti, at: -1}
	return m.find.in.Focus()
}

// findKey handles a key while the search bar is open.
func (m *model) findKey(msg tea.KeyPressMsg) tea.Cmd {
	f, t, k := m.find, m.tr, m.keys
	switch {
	case key.Matches(msg, k.Cancel):
		m.find = nil
		return nil
	case key.Matches(msg, k.SearchOlder), key.Matches(msg, k.SearchNewer):
		dir := -1
		if key.Matches(msg, k.SearchNewer) {
			dir = 1
		}
		from := f.at
		if from < 0 {
			from = len(t.items)
		}
		m.findGo(from, dir)
		return nil
	}
	before := f.in.Value()
	var cmd tea.Cmd
	f.in, cmd = f.in.Update(msg)
	if f.in.Value() != before {
		// a new query starts again from the newest item
		m.findGo(len(t.items), -1)
	}
	return cmd
}

// findGo moves to the match nearest from in direction dir.
func (m *model) findGo(from, dir int) {
	f, t := m.find, m.tr
	p := t.findFrom(f.in.Value(), from, dir)
	f.missing = p < 0 && f.in.Value() != ""
	if p < 0 {
		return
	}
	f.at = p
	t.showAtTop(p)
	// the transcript takes the focus so the selection's gutter shows the
	// match
	m.focus, m.shown = paneTranscript, paneTranscript
	if m.zoom != paneInput {
		m.zoom = paneTranscript
	}
	m.in.blur()
}

// findLine is the search bar.
func (m *model) findLine(w int) string {
	f := m.find
	f.in.SetWidth(max(12, min(w/3, termtext.Width(f.in.Value())+1)))
	state := ""
	switch q := f.in.Value(); {
	case q == "":
		state = "enter/↑ older · ↓ newer · esc closes"
	case f.missing && f.at < 0:
		state = "no match"
	case f.missing:
		state = "no more matches that way"
	default:
		state = fmt.Sprintf("%d match(es) · enter/↑ older · ↓ newer · esc closes", m.tr.countMatches(f))
	}
	st := m.th.faint
	if f.missing {
		st = m.th.warn
	}
	return termtext.Fit(f.in.View()+"  "+st.Render(state), w)
}
