package ui

import (
	"fmt"
	"sort"
	"strings"

	"skillet/harness/rulebook"
	"skillet/harness/termtext"
	"skillet/harness/view"
	"skillet/ui/markdown"
)

// itemKind is what one transcript item shows.
type itemKind uint8

const (
	itemEntry   itemKind = iota // a transcript entry
	itemMark                    // an inline event mark
	itemDivider                 // where the model's window starts
	itemPending                 // the user's message before the engine records it
	itemLive                    // the assistant message streaming in
)

// item is one block of the transcript pane, by identity: positions shift
// as marks are placed, identities do not.
type item struct {
	kind itemKind
	idx  int
}

// rendered is an item drawn at a width, kept until the width or its
// folding changes. Entries never change, so this is all the invalidation
// they need.
type rendered struct {
	w         int
	open, dim bool
	lines     []string
}

// transcriptPane shows the transcript, virtualized: only the items on
// screen (and those scrolled past) are ever rendered.
type transcriptPane struct {
	th *theme
	md *markdown.Renderer

	entries view.Transcript
	marks   []mark
	// firstInWindow is Snapshot.Window.FirstEntry: entries before it no
	// longer reach the model and are dimmed.
	firstInWindow int
	pending       string
	live          *liveState
	// paced is set while the spinner turns: the streaming message's
	// renders show at its frames (see liveInterval).
	paced bool

	items []item
	pos   map[item]int
	// items[:settled] are the entries and what stands before each: they
	// hold still while entries are appended, so the index grows instead of
	// being laid out again. settledE entries and settledM marks are in it.
	settled, settledE, settledM int

	cache map[item]*rendered
	// gutters holds the lines on screen after their gutter.
	gutters map[item]*prefixMemo
	// pretty holds each tool entry's content split into lines (indented
	// when JSON), made once.
	pretty map[int][]string

	open    map[item]bool
	openAll bool

	sel    item
	hasSel bool

	// follow keeps the view at the bottom as content arrives; otherwise
	// the view starts topOff lines into item top.
	follow bool
	top    item
	topOff int

	w, h    int
	focused bool
	// rows maps each visible row to its item position and line, for the
	// mouse and for moving the selection.
	rows []rowRef
}

type rowRef struct{ pos, line int }

func newTranscriptPane(th *theme, md *markdown.Renderer) *transcriptPane {
	t := &transcriptPane{th: th, md: md, follow: true}
	t.reset()
	return t
}

// reset forgets everything, for /clear and a new session.
func (t *transcriptPane) reset() {
	t.entries, t.marks, t.pending, t.live = view.Transcript{}, nil, "", nil
	t.firstInWindow = 0
	t.cache = map[item]*rendered{}
	t.gutters = map[item]*prefixMemo{}
	t.pretty = map[int][]string{}
	t.open = map[item]bool{}
	t.hasSel, t.follow, t.topOff = false, true, 0
	t.reindex()
}

// invalidate drops rendered items, for a theme or style change.
func (t *transcriptPane) invalidate() {
	t.cache = map[item]*rendered{}
	if t.live != nil {
		t.live.view = nil
	}
}

// setEntries takes a new transcript from the engine. Entries only ever
// grow within a session, so appended ones extend the index.
func (t *transcriptPane) setEntries(es view.Transcript, firstInWindow int) {
	if es.Len() < t.entries.Len() { // a new session
		t.reset()
	}
	grew := es.Len() != t.entries.Len()
	t.entries = es
	if firstInWindow != t.firstInWindow {
		for k := range t.cache { // dimming moved
			if k.kind != itemLive {
				delete(t.cache, k)
			}
		}
		t.firstInWindow = firstInWindow
		t.reindex() // the divider moved
		return
	}
	if grew {
		t.rebuild()
	}
}

// addMarks places many marks at once (a resumed session's), laying the
// pane out once.
func (t *transcriptPane) addMarks(ms []mark) {
	if len(ms) == 0 {
		return
	}
	t.marks = append(t.marks, ms...)
	sort.SliceStable(t.marks, func(i, j int) bool {
		a, b := t.marks[i].after, t.marks[j].after
		if a < 0 || b < 0 {
			return a >= 0 && b < 0 // marks with no place go last
		}
		return a < b
	})
	t.invalidate()
	t.reindex()
}

// addMark adds a mark after those already there. One that stands before
// marks already laid out (a resumed session's, fetched after the first
// live ones) goes through addMarks, which places and lays out anew.
func (t *transcriptPane) addMark(m mark) {
	if n := len(t.marks); n > 0 && m.after >= 0 && (t.marks[n-1].after < 0 || t.marks[n-1].after > m.after) {
		t.addMarks([]mark{m})
		return
	}
	t.marks = append(t.marks, m)
	if m.after >= 0 && m.after < t.settledE && t.settledM == len(t.marks)-1 {
		t.unsettleFrom(m.after)
	}
	t.rebuild()
}

// unsettleFrom makes the items from the one the new last mark stands
// before onward unsettled, so rebuild lays them out again with the mark:
// marks are placed in order, so it stands before entry after or, if the
// mark before it stands later, before that one's entry; after the marks
// already there, before the window divider.
func (t *transcriptPane) unsettleFrom(after int) {
	e := after
	if n := len(t.marks); n >= 2 {
		p := t.pos[item{itemMark, n - 2}]
		for ; p < t.settled && t.items[p].kind != itemEntry; p++ {
		}
		if p < t.settled {
			e = max(e, t.items[p].idx)
		}
	}
	cut := t.pos[item{itemEntry, e}]
	if cut > 0 && t.items[cut-1].kind == itemDivider {
		cut--
	}
	t.settled, t.settledE, t.settledM = cut, e, len(t.marks)-1
}

// reindex lays out every item again.
func (t *transcriptPane) reindex() {
	t.items = t.items[:0]
	t.pos = make(map[item]int, t.entries.Len()+len(t.marks)+3)
	t.settled, t.settledE, t.settledM = 0, 0, 0
	t.rebuild()
}

// messagesBefore is how many chat messages stand before entry position k:
// the message number of the first message from k on, without counting
// the messages one by one.
func (t *transcriptPane) messagesBefore(k int) int {
	for i := max(k, 0); i < t.entries.Len(); i++ {
		if e := t.entries.At(i); e.Message >= 0 {
			return e.Message
		}
	}
	for i := min(k, t.entries.Len()) - 1; i >= 0; i-- {
		if e := t.entries.At(i); e.Message >= 0 {
			return e.Message + 1
		}
	}
	return 0
}

// rebuild lays out the items after the settled ones: entries with marks
// between them, the window divider, then the marks after the last entry
// and the pending and streaming messages. Its cost is that of the new
// entries and the items after them, whatever the transcript's length.
func (t *transcriptPane) rebuild() {
	for _, it := range t.items[t.settled:] {
		delete(t.pos, it)
	}
	t.items = t.items[:t.settled]
	add := func(it item) {
		t.pos[it] = len(t.items)
		t.items = append(t.items, it)
	}
	mi := t.settledM
	for i := t.settledE; i < t.entries.Len(); i++ {
		for mi < len(t.marks) && t.marks[mi].after >= 0 && t.marks[mi].after <= i {
			add(item{itemMark, mi})
			mi++
		}
		// an entry's Index is its position: reading the entry itself
		// would decode every sealed page of a reopened session
		if i == t.firstInWindow && i > 0 {
			add(item{itemDivider, 0})
		}
		add(item{itemEntry, i})
	}
	t.settled, t.settledE, t.settledM = len(t.items), t.entries.Len(), mi
	for ; mi < len(t.marks); mi++ {
		add(item{itemMark, mi})
	}
	if t.pending != "" {
		add(item{itemPending, 0})
	}
	if t.live != nil {
		add(item{itemLive, 0})
	}
	if _, ok := t.pos[t.top]; !ok {
		t.follow = true
	}
	if _, ok := t.pos[t.sel]; !ok {
		t.hasSel = false
	}
}

func (t *transcriptPane) setPending(text string) {
	if t.pending != text {
		t.pending = text
		delete(t.cache, item{itemPending, 0})
		t.rebuild()
	}
}

// linesAt is the item at position p drawn at width w.
func (t *transcriptPane) linesAt(p, w int) []string {
	it := t.items[p]
	if it.kind == itemLive {
		return t.liveLines(w)
	}
	open := t.isOpen(it)
	dim := t.dimmed(it)
	if r, ok := t.cache[it]; ok && r.w == w && r.open == open && r.dim == dim {
		return r.lines
	}
	lines := t.render(it, w, open)
	if dim {
		lines = dimLines(t.th, lines)
	}
	if len(t.cache) >= maxCached {
		t.trimCache(p)
	}
	t.cache[it] = &rendered{w: w, open: open, dim: dim, lines: lines}
	return lines
}

// maxCached bounds the rendered items kept: scrolling through a long
// session must not keep every message's drawing in memory.
const maxCached = 2000

// maxPretty bounds the tool contents kept split into lines: more than a
// screen holds, far fewer than a long session has.
const maxPretty = 256

// trimCache forgets items far from position p.
func (t *transcriptPane) trimCache(p int) {
	for it := range t.cache {
		if q, ok := t.pos[it]; !ok || q < p-maxCached/4 || q > p+maxCached/4 {
			delete(t.cache, it)
		}
	}
	clear(t.pretty)
}

func (t *transcriptPane) isOpen(it item) bool {
	if o, ok := t.open[it]; ok {
		return o
	}
	return t.openAll
}

func (t *transcriptPane) dimmed(it item) bool {
	switch it.kind {
	case itemEntry:
		return it.idx < t.firstInWindow
	case itemMark:
		a := t.marks[it.idx].after
		return a >= 0 && a < t.firstInWindow
	}
	return false
}

// view draws the pane's inner w×h area.
func (t *transcriptPane) view(w, h int) []string {
	t.w, t.h = w, h
	t.rows = t.rows[:0]
	if h <= 0 || w <= 1 {
		return nil
	}
	if len(t.items) == 0 {
		return []string{t.th.faint.Render(termtext.Clip(" Nothing yet — type a message below, or /help.", w))}
	}
	iw := w - 1
	if !t.follow {
		if out, atEnd := t.viewFrom(iw, h); !atEnd {
			return out
		}
		t.follow = true
	}
	return t.viewBottom(iw, h)
}

// viewFrom draws from the anchor down; atEnd says the last item ended on
// screen, so the view belongs at the bottom.
func (t *transcriptPane) viewFrom(iw, h int) (out []string, atEnd bool) {
	p, ok := t.pos[t.top]
	if !ok {
		return nil, true
	}
	out = make([]string, 0, h)
	off := t.topOff
	for ; p < len(t.items); p++ {
		ls := t.linesAt(p, iw)
		// an unselected item's lines after the blank gutter, kept: the
		// pane's box then finds them unchanged without reading them
		var plain *prefixMemo
		sel := t.gutter(p)
		if sel == " " {
			plain = t.guttered(p)
		}
		for li := min(off, len(ls)); li < len(ls); li++ {
			if len(out) == h {
				return out, false
			}
			switch {
			case plain != nil:
				out = append(out, plain.line(" ", ls, li))
			case ls[li] == "":
				out = append(out, " ")
			default:
				out = append(out, sel+ls[li])
			}
			t.rows = append(t.rows, rowRef{p, li})
		}
		off = 0
	}
	return out, true
}

// viewBottom draws the last h lines and moves the anchor there.
func (t *transcriptPane) viewBottom(iw, h int) []string {
	total, p := 0, len(t.items)-1
	for ; p > 0; p-- {
		total += len(t.linesAt(p, iw))
		if total >= h {
			break
		}
	}
	if p == 0 {
		total += len(t.linesAt(0, iw))
	}
	t.top, t.topOff = t.items[p], max(0, total-h)
	out, _ := t.viewFrom(iw, h)
	return out
}

// guttered keeps item p's lines after a blank gutter, while its lines
// are the same slice.
func (t *transcriptPane) guttered(p int) *prefixMemo {
	it := t.items[p]
	c, ok := t.gutters[it]
	if !ok {
		if len(t.gutters) >= maxGuttered {
			clear(t.gutters)
		}
		c = &prefixMemo{}
		t.gutters[it] = c
	}
	return c
}

// maxGuttered bounds the items kept with their gutter: more than a screen
// shows.
const maxGuttered = 256

func (t *transcriptPane) gutter(p int) string {
	if t.hasSel && t.focused && t.items[p] == t.sel {
		return t.th.selected.Render(iconSelected)
	}
	return " "
}

// scrollBy moves the view n lines down (n < 0: up).
func (t *transcriptPane) scrollBy(n int) {
	if len(t.items) == 0 || n == 0 || t.w <= 1 {
		return
	}
	iw := t.w - 1
	p, ok := t.pos[t.top]
	if !ok {
		return
	}
	off := t.topOff + n
	if n < 0 {
		t.follow = false
		for off < 0 && p > 0 {
			p--
			off += len(t.linesAt(p, iw))
		}
		t.top, t.topOff = t.items[p], max(0, off)
		return
	}
	if t.follow {
		return
	}
	for p < len(t.items) {
		hgt := len(t.linesAt(p, iw))
		if off < hgt {
			break
		}
		off -= hgt
		p++
	}
	if p >= len(t.items) {
		t.follow = true
		return
	}
	t.top, t.topOff = t.items[p], off
}

func (t *transcriptPane) pageDown() { t.scrollBy(max(1, t.h-2)) }
func (t *transcriptPane) pageUp()   { t.scrollBy(-max(1, t.h-2)) }

func (t *transcriptPane) home() {
	if len(t.items) > 0 {
		t.follow, t.top, t.topOff = false, t.items[0], 0
	}
}

func (t *transcriptPane) end() { t.follow = true }

// selectable reports whether the selection may rest on an item.
func selectable(it item) bool { return it.kind != itemDivider }

// next moves the selection down an item, or scrolls through the selected
// item while it continues below the view.
func (t *transcriptPane) next() {
	if len(t.rows) == 0 {
		return
	}
	if !t.hasSel {
		t.selectAt(t.rows[0].pos)
		return
	}
	p := t.pos[t.sel]
	last := t.rows[len(t.rows)-1]
	if last.pos == p && last.line < len(t.linesAt(p, t.w-1))-1 {
		t.scrollBy(3)
		return
	}
	for q := p + 1; q < len(t.items); q++ {
		if selectable(t.items[q]) {
			t.selectAt(q)
			t.reveal(q, true)
			return
		}
	}
}

// prev moves the selection up an item, or scrolls through the selected
// item while it starts above the view.
func (t *transcriptPane) prev() {
	if len(t.rows) == 0 {
		return
	}
	if !t.hasSel {
		t.selectAt(t.rows[len(t.rows)-1].pos)
		return
	}
	p := t.pos[t.sel]
	first := t.rows[0]
	if first.pos == p && first.line > 0 {
		t.scrollBy(-3)
		return
	}
	for q := p - 1; q >= 0; q-- {
		if selectable(t.items[q]) {
			t.selectAt(q)
			t.reveal(q, false)
			return
		}
	}
}

func (t *transcriptPane) selectAt(p int) {
	for p < len(t.items) && !selectable(t.items[p]) {
		p++
	}
	if p < len(t.items) {
		t.sel, t.hasSel = t.items[p], true
	}
}

// reveal scrolls so item p is on screen. Going down, a tall item shows its
// top; going up, its bottom — so moving on scrolls through it.
func (t *transcriptPane) reveal(p int, down bool) {
	iw, h := t.w-1, t.h
	if iw <= 0 || h <= 0 {
		return
	}
	hp := len(t.linesAt(p, iw))
	top, ok := t.pos[t.top]
	if !ok {
		return
	}
	// rows from the view's top to the end of p
	if p < top || (p == top && t.topOff > 0) {
		t.follow = false
		if hp > h && !down {
			t.top, t.topOff = t.items[p], hp-h
		} else {
			t.top, t.topOff = t.items[p], 0
		}
		return
	}
	end := -t.topOff
	for q := top; q <= p; q++ {
		end += len(t.linesAt(q, iw))
		if end > 4*h+hp { // far below: no need to count further
			break
		}
	}
	if end <= h {
		return
	}
	t.follow = false
	if hp >= h {
		t.top, t.topOff = t.items[p], 0
		if !down {
			t.topOff = hp - h
		}
		return
	}
	t.alignBottom(p, iw, h)
}

// alignBottom puts the end of item p on the last row.
func (t *transcriptPane) alignBottom(p, iw, h int) {
	need := h - len(t.linesAt(p, iw))
	q := p
	for need > 0 && q > 0 {
		q--
		hq := len(t.linesAt(q, iw))
		if hq >= need {
			t.top, t.topOff = t.items[q], hq-need
			return
		}
		need -= hq
	}
	t.top, t.topOff = t.items[q], 0
}

// toggle opens or folds the selected item.
func (t *transcriptPane) toggle() {
	if !t.hasSel {
		return
	}
	t.open[t.sel] = !t.isOpen(t.sel)
	// keep the item's start in view: unfolded, it may fill the pane
	p := t.pos[t.sel]
	if top, ok := t.pos[t.top]; ok && top >= p {
		t.follow, t.top, t.topOff = false, t.sel, 0
		return
	}
	t.reveal(p, true)
}

func (t *transcriptPane) toggleAll() {
	t.openAll = !t.openAll
	clear(t.open)
}

// click selects the item under row y, or folds it if already selected.
func (t *transcriptPane) click(y int) {
	if y < 0 || y >= len(t.rows) {
		return
	}
	p := t.rows[y].pos
	if t.hasSel && t.items[p] == t.sel {
		t.toggle()
		return
	}
	t.selectAt(p)
}

// footer says where the view is, by item: rendering every item to count
// lines would defeat virtualization.
func (t *transcriptPane) footer() string {
	if len(t.items) == 0 || len(t.rows) == 0 {
		return ""
	}
	if t.follow && t.rows[0].pos == 0 && t.rows[0].line == 0 {
		return ""
	}
	if t.follow {
		return fmt.Sprintf("end · %d items", len(t.items))
	}
	return fmt.Sprintf("%d/%d", t.rows[0].pos+1, len(t.items))
}

// selectedText is the text of the selected item, for copying and viewing.
func (t *transcriptPane) selectedText() (title, text string, ok bool) {
	if !t.hasSel {
		return "", "", false
	}
	switch t.sel.kind {
	case itemEntry:
		e := t.entries.At(t.sel.idx)
		var b strings.Builder
		if e.Reasoning != "" {
			b.WriteString(e.Reasoning)
			b.WriteString("\n\n")
		}
		if e.Kind == rulebook.EntryTool {
			b.WriteString(strings.Join(t.prettyContent(t.sel.idx), "\n"))
		} else {
			b.WriteString(e.Text)
		}
		for _, c := range e.ToolCalls {
			fmt.Fprintf(&b, "\n\n%s %s", c.Name, prettyJSON(c.Arguments))
		}
		if e.Stderr != "" {
			b.WriteString("\n\nstderr:\n" + e.Stderr)
		}
		if e.Diff != "" {
			b.WriteString("\n\nchanged files:\n" + e.Diff)
		}
		return entryTitle(e), b.String(), true
	case itemMark:
		return "event", t.marks[t.sel.idx].shown(t.th), true
	case itemPending:
		return "your message", t.pending, true
	case itemLive:
		return "streaming reply", t.live.text.String(), true
	}
	return "", "", false
}

// filesText lists the tool calls that changed workspace files, with
// their commands and diffs, oldest first.
func (t *transcriptPane) filesText() string {
	var b strings.Builder
	for i := 0; i < t.entries.Len(); i++ {
		e := t.entries.At(i)
		if e.Kind != rulebook.EntryTool || e.Diff == "" {
			continue
		}
		fmt.Fprintf(&b, "turn %d · %s (call %s)", e.Turn, e.ToolName, e.ToolCallID)
		if e.Shell != nil {
			fmt.Fprintf(&b, " · $ %s · exit %d", oneLine(e.Shell.Command), e.Shell.ExitCode)
		}
		b.WriteString("\n" + e.Diff + "\n")
	}
	return b.String()
}

// selectedTurn is the turn of the selected entry, or 0.
func (t *transcriptPane) selectedTurn() int {
	if t.hasSel && t.sel.kind == itemEntry {
		return t.entries.At(t.sel.idx).Turn
	}
	return 0
}

func entryTitle(e rulebook.Entry) string {
	switch e.Kind {
	case rulebook.EntryTool:
		return fmt.Sprintf("result of %s (entry %d)", e.ToolName, e.Index)
	case rulebook.EntryNote:
		return fmt.Sprintf("%s (entry %d)", e.NoteKind, e.Index)
	default:
		return fmt.Sprintf("%s message (entry %d)", e.Kind, e.Index)
	}
}
