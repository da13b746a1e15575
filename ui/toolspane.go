package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"skillet/harness/event"
	"skillet/harness/rulebook"
	"skillet/harness/termtext"
	"skillet/harness/view"
)

// toolsPane lists the tools of the next request: where each comes from,
// its version and approval policy. A tool that just left with its skill
// stays, struck through, until the next turn ends.
type toolsPane struct {
	th   *theme
	snap *view.Snapshot

	// lastSeen is the snapshot turn in which each tool was last offered,
	// with the tool as it was then, so leavers can be shown.
	lastSeen map[string]seenTool
	shown    []event.ToolInfo

	builtPane
}

type seenTool struct {
	turn int
	info event.ToolInfo
}

func newToolsPane(th *theme) *toolsPane {
	return &toolsPane{th: th, lastSeen: map[string]seenTool{}, builtPane: builtPane{open: map[string]bool{}, dirty: true}}
}

func (p *toolsPane) reset() { clear(p.lastSeen) }

// setSnapshot takes the next request's tools and works out which left: a
// tool seen in this turn (or between it and the next) that is no longer
// offered shows as gone until the next turn ends. Tools the engine itself
// marks Gone show too.
func (p *toolsPane) setSnapshot(s *view.Snapshot) {
	p.snap, p.dirty = s, true
	if s == nil {
		p.shown = nil
		return
	}
	now := map[string]bool{}
	var shown []event.ToolInfo
	for _, t := range s.Tools {
		if t.Gone {
			continue
		}
		now[t.Name] = true
		p.lastSeen[t.Name] = seenTool{turn: s.Turn, info: t}
		shown = append(shown, t)
	}
	for _, t := range s.Tools {
		if t.Gone && !now[t.Name] {
			now[t.Name] = true
			shown = append(shown, t)
		}
	}
	var gone []event.ToolInfo
	for name, st := range p.lastSeen {
		if now[name] {
			continue
		}
		if st.turn == s.Turn || (st.turn == s.Turn-1 && s.Running) {
			t := st.info
			t.Gone = true
			gone = append(gone, t)
		} else {
			delete(p.lastSeen, name)
		}
	}
	sortTools(gone)
	p.shown = append(shown, gone...)
}

func sortTools(ts []event.ToolInfo) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Name < ts[j-1].Name; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

func (p *toolsPane) selected() (event.ToolInfo, bool) {
	if p.sel < 0 || p.sel >= len(p.shown) {
		return event.ToolInfo{}, false
	}
	return p.shown[p.sel], true
}

func (p *toolsPane) key(k keyMap, msg tea.KeyPressMsg, h int) tea.Cmd {
	if navKey(&p.builtPane, k, msg, len(p.shown), h) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Fold):
		if t, ok := p.selected(); ok {
			p.toggle(t.Name)
		}
	case key.Matches(msg, k.Call):
		if t, ok := p.selected(); ok && !t.Gone {
			return runCommand("/call " + t.Name)
		}
	case key.Matches(msg, k.View):
		if t, ok := p.selected(); ok {
			return openViewer("tool "+t.Name, toolDetail(t))
		}
	}
	return nil
}

func toolDetail(t event.ToolInfo) string {
	return fmt.Sprintf("%s\n\n%s\n\nparameters:\n%s", toolSummary(t), t.Description, prettyRaw(t.Parameters))
}

func (p *toolsPane) view(w, h int, focused bool) []string {
	return p.show(w, h, focused, p.build)
}

// toolSummary is where a tool comes from, its version and its policy.
func toolSummary(t event.ToolInfo) string {
	src := string(t.Source)
	if t.Source == "skill" && t.Skill != "" {
		src = "skill " + t.Skill
	}
	ver := "latest"
	if t.Version > 0 {
		ver = fmt.Sprintf("v%d", t.Version)
		if t.Pinned {
			ver += " pinned"
		} else {
			ver += " latest"
		}
	}
	if t.Source == "built-in" {
		ver = ""
	}
	parts := []string{orDash(src)}
	if ver != "" {
		parts = append(parts, ver)
	}
	if t.SessionApproved {
		parts = append(parts, "approval "+orDash(t.Approval)+", approved for the session")
	} else {
		parts = append(parts, "approval "+orDash(t.Approval))
	}
	if t.Kind != "" {
		parts = append(parts, string(t.Kind))
	}
	return strings.Join(parts, " · ")
}

func (p *toolsPane) build(w int) {
	p.dirty, p.builtW = false, w
	th := p.th
	if p.snap == nil {
		p.lines = []string{th.faint.Render("waiting for the engine…")}
		return
	}
	p.sel = max(0, min(p.sel, len(p.shown)-1))
	live, ask, approved := 0, 0, 0
	for _, t := range p.shown {
		if !t.Gone {
			live++
			switch {
			case t.Approval == rulebook.ApproveAsk && t.SessionApproved:
				approved++
			case t.Approval == rulebook.ApproveAsk:
				ask++
			}
		}
	}
	head := fmt.Sprintf("%d tools · %d ask approval", live, ask)
	if approved > 0 {
		head += fmt.Sprintf(" · %d approved for the session", approved)
	}
	out := indentStyled(th.bold, "", head, w)
	for i, t := range p.shown {
		from := len(out)
		cursor := "  "
		if i == p.sel && p.focused {
			cursor = th.selected.Render(iconSelected + " ")
		}
		name := termtext.Sanitize(t.Name)
		ver := ""
		if t.Version > 0 {
			ver = fmt.Sprintf(" v%d", t.Version)
			if t.Pinned {
				ver += " pinned"
			}
		}
		if t.Gone {
			who := "its skill"
			if t.Skill != "" {
				who = t.Skill
			}
			out = append(out, cursor+termtext.Clip(th.gone.Render(name)+th.faint.Render(ver+" · gone with "+termtext.Sanitize(who)), w-2))
		} else {
			out = append(out, cursor+termtext.Clip(th.bold.Render(name)+th.faint.Render(ver), w-2))
		}
		pol := th.faint
		switch t.Approval {
		case rulebook.ApproveAsk:
			pol = th.warn
		case rulebook.ApproveDeny:
			pol = th.bad
		}
		src := string(t.Source)
		if t.Source == "skill" && t.Skill != "" {
			src = "skill " + t.Skill
		}
		line := th.faint.Render("    "+termtext.Sanitize(orDash(src))+" · ") + pol.Render(orDash(t.Approval))
		if t.SessionApproved && !t.Gone {
			// it no longer asks: said on a line of its own, which a
			// narrow pane wraps rather than cuts
			out = append(out, indentStyled(th.good, "    ✓ ", "approved for the session", w)...)
			line = th.faint.Render("    " + termtext.Sanitize(orDash(src)))
		}
		if t.Kind != "" {
			line += th.faint.Render(" · " + string(t.Kind))
		}
		out = append(out, termtext.Clip(line, w))
		if p.open[t.Name] {
			if d := strings.TrimSpace(t.Description); d != "" {
				out = append(out, indentStyled(th.status, "    ", termtext.Sanitize(d), w)...)
			}
			for _, l := range strings.Split(termtext.Sanitize(prettyRaw(t.Parameters)), "\n") {
				out = append(out, indentStyled(th.faint, "    ", l, w)...)
			}
			if !t.Gone {
				out = append(out, th.accent.Render(termtext.Clip("    alt+c calls it by hand", w)))
			}
		}
		if i == p.sel {
			p.selFrom, p.selTo = from, len(out)-1
		}
	}
	p.lines = out
}
