package ui

import (
	"bytes"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"skillet/harness/rulebook"
	"skillet/harness/termtext"
	"skillet/harness/tokens"
)

// callsMsg carries the session's model calls to the inspector.
type callsMsg struct{ calls []rulebook.CallRecord }

func fetchCalls(eng Engine) tea.Cmd {
	return func() tea.Msg { return callsMsg{calls: eng.ModelCalls()} }
}

// callBodyMsg carries one older call's request and reply, read back from
// the journal.
type callBodyMsg struct {
	idx int
	rec rulebook.CallRecord
	err error
}

// bodiesKept is how many older calls the inspector holds whole besides
// the engine's latest: a long session's calls are read back one at a
// time, not all held.
const bodiesKept = 8

// inspector shows the exact JSON request of any model call of the session
// and the raw reply, one at a time.
type inspector struct {
	th    *theme
	eng   Engine
	dir   string
	calls []rulebook.CallRecord
	// idx is the call shown; wantTurn picks the first call of a turn once
	// the calls arrive.
	idx      int
	wantTurn int
	reply    bool
	// raw shows the JSON and stream as they went over the wire instead of
	// their anatomy.
	raw bool
	// open shows every part and message of a request whole (enter
	// toggles).
	open    bool
	loading bool
	p       *pager
	h       int
	// fetching marks the older calls whose bodies are being read; kept
	// lists the older calls held whole, oldest first (at most bodiesKept).
	fetching map[int]bool
	kept     []int
	bodyErr  map[int]string
	// built is what the pager's text was made from: a refresh that leaves
	// the shown call as it was does not take its request apart again.
	built shown
}

// shown is everything the inspector's text depends on.
type shown struct {
	idx              int
	reply, raw, open bool
	req, prev        []byte
	out, err, be     string
}

func (a shown) same(b shown) bool {
	return a.idx == b.idx && a.reply == b.reply && a.raw == b.raw && a.open == b.open && bytes.Equal(a.req, b.req) &&
		bytes.Equal(a.prev, b.prev) && a.out == b.out && a.err == b.err && a.be == b.be
}

// shownNow is what the text would be made from now.
func (in *inspector) shownNow() shown {
	s := shown{idx: in.idx, reply: in.reply, raw: in.raw, open: in.open}
	if in.idx < 0 || in.idx >= len(in.calls) {
		return s
	}
	c := in.calls[in.idx]
	s.req, s.out, s.err, s.be = c.Request, c.Reply, c.Error, in.bodyErr[in.idx]
	if in.idx > 0 {
		s.prev = in.calls[in.idx-1].Request
	}
	return s
}

func newInspector(th *theme, eng Engine, dir string, turn int) (*inspector, tea.Cmd) {
	in := &inspector{th: th, eng: eng, dir: dir, wantTurn: turn, loading: true, idx: -1}
	return in, fetchCalls(eng)
}

func (in *inspector) handle(msg tea.Msg) tea.Cmd {
	if bm, ok := msg.(callBodyMsg); ok {
		return in.gotBody(bm)
	}
	cm, ok := msg.(callsMsg)
	if !ok {
		return nil
	}
	// calls are only ever added: the older ones read back stay held, and
	// are not read again at every refresh
	kept := in.kept[:0]
	for _, i := range in.kept {
		if i < len(cm.calls) && cm.calls[i].Request == nil && cm.calls[i].Turn == in.calls[i].Turn && cm.calls[i].Call == in.calls[i].Call {
			cm.calls[i] = in.calls[i]
			kept = append(kept, i)
		}
	}
	in.kept = kept
	atEnd := in.idx < 0 || in.idx == len(in.calls)-1
	in.loading = false
	in.calls = cm.calls
	switch {
	case len(in.calls) == 0:
		in.idx = -1
	case in.wantTurn > 0:
		in.idx = len(in.calls) - 1
		for i, c := range in.calls {
			if c.Turn == in.wantTurn {
				in.idx = i
				break
			}
		}
		in.wantTurn = 0
	case atEnd:
		in.idx = len(in.calls) - 1
	default:
		in.idx = min(in.idx, len(in.calls)-1)
	}
	in.load(true)
	return in.fetchBodies()
}

// fetchBodies asks for the bodies the shown call needs (its own, and the
// call before, which its anatomy compares with) when memory lacks them.
func (in *inspector) fetchBodies() tea.Cmd {
	var cmds []tea.Cmd
	for _, i := range []int{in.idx, in.idx - 1} {
		if i < 0 || i >= len(in.calls) || in.calls[i].Request != nil || in.fetching[i] || in.bodyErr[i] != "" {
			continue
		}
		if in.fetching == nil {
			in.fetching = map[int]bool{}
		}
		in.fetching[i] = true
		eng, i := in.eng, i
		cmds = append(cmds, func() tea.Msg {
			rec, err := eng.ModelCall(i)
			return callBodyMsg{idx: i, rec: rec, err: err}
		})
	}
	return tea.Batch(cmds...)
}

// gotBody puts an older call's body in place, letting go of the oldest one
// held past bodiesKept.
func (in *inspector) gotBody(bm callBodyMsg) tea.Cmd {
	delete(in.fetching, bm.idx)
	if bm.idx >= len(in.calls) || in.calls[bm.idx].Request != nil {
		return nil
	}
	if bm.err != nil {
		if in.bodyErr == nil {
			in.bodyErr = map[int]string{}
		}
		in.bodyErr[bm.idx] = bm.err.Error()
	} else {
		in.calls[bm.idx] = bm.rec
		in.kept = append(in.kept, bm.idx)
		for len(in.kept) > bodiesKept {
			old := in.kept[0]
			in.kept = in.kept[1:]
			if old != in.idx && old != in.idx-1 {
				in.calls[old].Request, in.calls[old].Reply = nil, ""
			} else {
				in.kept = append(in.kept, old)
				break
			}
		}
	}
	if bm.idx == in.idx || bm.idx == in.idx-1 {
		in.load(true)
	}
	return nil
}

// refresh fetches the calls again (a new call started or finished).
func (in *inspector) refresh() tea.Cmd { return fetchCalls(in.eng) }

// text is what the pager shows: the request pretty-printed, or the reply.
func (in *inspector) text() string {
	if in.idx < 0 || in.idx >= len(in.calls) {
		return ""
	}
	c := in.calls[in.idx]
	if c.Request == nil {
		if e := in.bodyErr[in.idx]; e != "" {
			return "this call could not be read back from the journal: " + e
		}
		return "reading this call from the journal…"
	}
	if !in.raw {
		if !in.reply {
			var prev []byte
			if in.idx > 0 {
				prev = in.calls[in.idx-1].Request
			}
			return requestAnatomy(c.Request, prev, in.open, tokens.CountEstimate)
		}
		if a := replyAnatomy(c.Reply); a != "" {
			if c.Error != "" {
				a = "error: " + c.Error + "\n\n" + a
			}
			return a
		}
	}
	return in.rawText()
}

// rawText is the call's request or reply as it went over the wire
// (pretty-printed): what y copies and w writes, whichever view is shown.
func (in *inspector) rawText() string {
	if in.idx < 0 || in.idx >= len(in.calls) {
		return ""
	}
	c := in.calls[in.idx]
	if !in.reply {
		return readableJSON(prettyRaw(c.Request))
	}
	var b strings.Builder
	if c.Error != "" {
		b.WriteString("error: " + c.Error + "\n\n")
	}
	switch {
	case c.Reply != "":
		b.WriteString(readableJSON(prettyJSON(c.Reply)))
	case c.Error == "":
		b.WriteString("(no reply yet: the call is streaming or was cancelled)")
	}
	return b.String()
}

// load shows the current call, keeping the position when only the data
// was refreshed.
func (in *inspector) load(keep bool) {
	now := in.shownNow()
	if keep && in.p != nil && now.same(in.built) {
		return
	}
	top, sub := 0, 0
	if keep && in.p != nil {
		top, sub = in.p.top, in.p.sub
	}
	in.built = now
	in.p = newPager(in.text())
	in.p.top, in.p.sub = min(top, len(in.p.lines)-1), sub
}

func (in *inspector) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if in.p != nil {
		if cmd, done, ok := pagerKeys(in.p, msg, in.h); ok {
			return cmd, done
		}
	} else if s := msg.String(); s == "esc" || s == "q" {
		return nil, true
	}
	switch msg.String() {
	case "left", "h", "[", "p":
		if in.idx > 0 {
			in.idx--
			in.load(false)
			return in.fetchBodies(), false
		}
	case "right", "l", "]", "n":
		if in.idx < len(in.calls)-1 {
			in.idx++
			in.load(false)
			return in.fetchBodies(), false
		}
	case "tab", "shift+tab":
		in.reply = !in.reply
		in.load(false)
	case "a":
		in.raw = !in.raw
		in.load(false)
	case "enter":
		// the parts unfold where they are: the position is kept
		in.open = !in.open
		in.load(true)
	case "r":
		return in.refresh(), false
	case "y":
		if t := in.rawText(); t != "" {
			return copyText(t, in.what()), false
		}
	case "w":
		if in.idx >= 0 && in.idx < len(in.calls) {
			c := in.calls[in.idx]
			side, ext := "request", "json"
			if in.reply {
				side = "reply"
				if !strings.HasPrefix(strings.TrimSpace(c.Reply), "{") {
					ext = "txt"
				}
			}
			return writeFile(in.dir, fileName("skillet", fmt.Sprintf("turn%d", c.Turn), fmt.Sprintf("call%d", c.Call), side)+"."+ext, in.rawText()), false
		}
	}
	return nil, false
}

func (in *inspector) what() string {
	c := in.calls[in.idx]
	side := "request"
	if in.reply {
		side = "reply"
	}
	return fmt.Sprintf("the %s of turn %d call %d", side, c.Turn, c.Call)
}

func (in *inspector) wheel(n int) {
	if in.p != nil {
		in.p.down(n, in.h)
	}
}

func (in *inspector) view(w, h int) ([]string, int, int) {
	th := in.th
	x, y, bw, bh := bigRect(w, h)
	iw := max(1, bw-2)
	in.h = max(1, bh-4)
	title := "Inspector"
	var lines []string
	switch {
	case in.loading:
		lines = append(lines, th.faint.Render("loading model calls…"))
	case len(in.calls) == 0:
		lines = append(lines, th.faint.Render(termtext.Clip("No model calls yet: send a message first.", iw)))
	default:
		c := in.calls[in.idx]
		title = fmt.Sprintf("Inspector · call %d of %d · turn %d call %d", in.idx+1, len(in.calls), c.Turn, c.Call)
		req, rep := " request ", " reply "
		if in.reply {
			rep = th.tagActive.Render("[reply]")
			req = th.tag.Render(req)
		} else {
			req = th.tagActive.Render("[request]")
			rep = th.tag.Render(rep)
		}
		size := fmt.Sprintf("  request %s B · reply %s B", thousands(len(c.Request)), thousands(len(c.Reply)))
		if c.Error != "" {
			size += th.bad.Render(" · error")
		}
		lines = append(lines, termtext.Clip(req+" "+rep+th.faint.Render(size), iw))
		lines = append(lines, pad(in.p.view(max(1, iw-2), in.h))...)
	}
	for len(lines) < bh-3 {
		lines = append(lines, "")
	}
	lines = append(lines[:max(0, bh-3)], th.faint.Render(termtext.Clip("←/→ call · tab request/reply · a parts/raw JSON · enter unfold/fold · ↑/↓ pgup/pgdn scroll · y copy · w write · r reload · esc", iw)))
	footer := ""
	if in.p != nil && !in.loading && len(in.calls) > 0 {
		footer = in.p.footer()
	}
	return box(th, title, lines, bw, bh, true, footer), x, y
}
