package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"skillet/harness/termtext"
	"skillet/harness/view"
)

// contextPane shows the exact instructions of the next request — the
// agent prompt, preloads, the skill list and <current_context> — with the
// tokens of each part.
type contextPane struct {
	th   *theme
	snap *view.Snapshot
	sc   scroller

	lines  []string
	builtW int
	dirty  bool
}

func newContextPane(th *theme) *contextPane { return &contextPane{th: th, dirty: true} }

func (p *contextPane) setSnapshot(s *view.Snapshot) {
	// Rebuilt even when the text is the same: token counts move with the
	// window.
	p.snap, p.dirty = s, true
}

func (p *contextPane) key(k keyMap, msg tea.KeyPressMsg, h int) tea.Cmd {
	n := len(p.lines)
	if scrollKey(&p.sc, k, msg, n, h) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Copy):
		if p.snap != nil {
			return copyText(p.snap.Instructions, "the instructions")
		}
	case key.Matches(msg, k.View):
		if p.snap != nil {
			return openViewer("instructions of the next request", p.snap.Instructions)
		}
	case key.Matches(msg, k.JumpContext):
		if p.snap != nil {
			if i := p.contextLine(); i >= 0 {
				p.sc.show(i, i, n, h)
				p.sc.off = i
				p.sc.clamp(n, h)
			}
		}
	}
	return nil
}

// contextLine is the line where <current_context> starts, -1 if none.
func (p *contextPane) contextLine() int {
	for i, l := range p.lines {
		if strings.Contains(l, "<current_context>") {
			return i
		}
	}
	return -1
}

func (p *contextPane) view(w, h int) []string {
	if p.dirty || p.builtW != w {
		p.build(w)
	}
	return p.sc.window(p.lines, h)
}

func (p *contextPane) footer(h int) string { return position(p.sc.off, h, len(p.lines)) }

func (p *contextPane) build(w int) {
	p.dirty, p.builtW = false, w
	th := p.th
	s := p.snap
	if s == nil {
		p.lines = []string{th.faint.Render("waiting for the engine…")}
		return
	}
	out := []string{
		th.bold.Render(termtext.Clip(fmt.Sprintf("instructions %s tok", tokCount(s.InstructionTokens, s.Estimated)), w)),
		th.faint.Render(termtext.Clip(fmt.Sprintf("whole next request %s tok%s", tokCount(s.RequestTokens, s.Estimated), estimateNote(s.Estimated)), w)),
	}
	for _, part := range s.Parts {
		label := part.Kind
		if part.Skill != "" {
			label += " " + part.Skill
		}
		if part.Placement != "" {
			label += " → " + part.Placement // where a profile put it
		}
		n := tokCount(part.Tokens, s.Estimated)
		lw := max(1, w-2-termtext.Width(n)-1)
		out = append(out, "  "+termtext.Fit(termtext.Sanitize(label), lw)+" "+th.accent.Render(n))
	}
	if s.Context == "" {
		out = append(out, th.faint.Render(termtext.Clip("  <current_context> is empty: no skill loaded", w)))
	}
	out = append(out, th.faint.Render(strings.Repeat("─", max(0, w))))
	inContext := false
	for _, l := range reflow(strings.Split(termtext.Sanitize(s.Instructions), "\n")) {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "<current_context>") {
			inContext = true
		}
		st := th.faint
		switch {
		case strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">"):
			st = th.xmlTag
		case inContext:
			st = th.status
		}
		for _, r := range termtext.Wrap(l, w) {
			out = append(out, style(st, r))
		}
		if strings.HasPrefix(t, "</current_context>") {
			inContext = false
		}
	}
	p.lines = out
}

// reflow joins the hard-wrapped lines of each prose paragraph into one
// line, so the pane wraps it at its own width instead of leaving a ragged
// edge at every source break. Headings, list items, tables, quotes, tags,
// indented and fenced code keep their lines.
func reflow(lines []string) []string {
	out := make([]string, 0, len(lines))
	fenced, prose := false, false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			out, prose = append(out, l), false
			continue
		}
		isProse := !fenced && t != "" && !strings.HasPrefix(l, "    ") && !strings.HasPrefix(l, "\t") && !isBlockStart(t)
		if isProse && prose {
			out[len(out)-1] += " " + t
			continue
		}
		out, prose = append(out, l), isProse
	}
	return out
}

// isBlockStart reports whether a line opens a block of its own.
func isBlockStart(t string) bool {
	switch {
	case strings.HasPrefix(t, "#"), strings.HasPrefix(t, ">"), strings.HasPrefix(t, "|"), strings.HasPrefix(t, "<"),
		strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "+ "), t == "---", t == "***":
		return true
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')')
}
