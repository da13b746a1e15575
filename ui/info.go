package ui

import (
	"fmt"
	"strings"

	"skillet/harness/event"
	"skillet/harness/profile"
	"skillet/harness/rulebook"
	"skillet/harness/termtext"
	"skillet/harness/view"
)

// skillsLines is the /skills overlay: every skill found, enabled or not,
// with its problems, shadowing and tools.
func (m *model) skillsLines() []string {
	th := m.th
	if m.snap == nil {
		return []string{th.faint.Render("waiting for the engine…")}
	}
	ss := m.snap.Skills
	enabled, invalid, shadowed := 0, 0, 0
	for _, s := range ss {
		if s.Enabled {
			enabled++
		}
		if len(s.Problems) > 0 {
			invalid++
		}
		if s.Shadowed {
			shadowed++
		}
	}
	out := []string{th.bold.Render(fmt.Sprintf("%d skills · %d enabled · %d invalid · %d shadowed", len(ss), enabled, invalid, shadowed))}
	for _, n := range m.snap.Notices {
		out = append(out, th.warn.Render(iconLog+" "+termtext.Sanitize(n)))
	}
	for _, s := range ss {
		out = append(out, "")
		head := th.bold.Render(termtext.Sanitize(s.Name))
		if s.Version != "" {
			head += th.faint.Render(" v" + termtext.Sanitize(s.Version))
		}
		var tags []string
		switch {
		case len(s.Problems) > 0:
			tags = append(tags, th.bad.Render("invalid"))
		case s.Enabled:
			tags = append(tags, th.good.Render("enabled"))
		default:
			tags = append(tags, th.faint.Render("not enabled"))
		}
		if s.Preload {
			tags = append(tags, th.preload.Render("preload"))
		}
		if s.Loaded {
			tags = append(tags, th.accent.Render("loaded"))
		}
		if s.Shadowed {
			tags = append(tags, th.warn.Render("shadowed by an earlier root"))
		}
		out = append(out, head+"  "+strings.Join(tags, " · "))
		if s.Description != "" {
			out = append(out, "  "+termtext.Sanitize(s.Description))
		}
		out = append(out, th.faint.Render("  "+termtext.Sanitize(s.Dir)))
		if len(s.Tools) > 0 {
			var ts []string
			for _, t := range s.Tools {
				if t.Version > 0 {
					ts = append(ts, fmt.Sprintf("%s@%d", t.Name, t.Version))
				} else {
					ts = append(ts, t.Name)
				}
			}
			out = append(out, th.toolCall.Render("  tools "+termtext.Sanitize(strings.Join(ts, ", "))))
		}
		for _, p := range s.Problems {
			out = append(out, th.bad.Render("  "+iconError+" "+termtext.Sanitize(p.String())))
		}
		for _, p := range s.Warnings {
			out = append(out, th.warn.Render("  "+iconLog+" "+termtext.Sanitize(p.String())))
		}
	}
	return out
}

// helpLines is the /help overlay: the commands, then every key.
func (m *model) helpLines() []string {
	th := m.th
	out := []string{th.bold.Render("Commands"), ""}
	for _, c := range commandList() {
		usage := "/" + c.name
		if c.args != "" {
			usage += " " + c.args
		}
		mark := " "
		if c.between {
			mark = th.warn.Render("*")
		}
		out = append(out, th.key.Render(fmt.Sprintf("  %-21s", usage))+mark+" "+c.help)
	}
	out = append(out, "", th.faint.Render("  * changes the session: between turns only"))
	out = append(out, "", th.bold.Render("Keys"), "",
		"  Text always goes to the message box, whatever pane has the focus: a pane's own keys are arrows, enter and alt with a letter (or, after ctrl+p, the letter alone).", "")
	for _, group := range m.keys.FullHelp() {
		for _, b := range group {
			h := b.Help()
			out = append(out, th.key.Render(fmt.Sprintf("  %-16s", h.Key))+" "+h.Desc)
		}
		out = append(out, "")
	}
	out = append(out,
		th.bold.Render("Dialogs"), "",
		"  approval      a approve once · s approve for the session · d/esc deny · ←/→ enter (enter alone denies)",
		"  inspector     ←/→ call · tab request/reply · y copy · w write to a file · r reload",
		"  viewer        ↑/↓ pgup/pgdn g/G scroll · y copy · w write · esc close",
		"  call form     tab/↑/↓ field · enter next · ctrl+r run · esc close",
		"",
		th.bold.Render("Marks in the transcript"), "",
		"  "+th.context.Render(iconContext+" contextChanged")+"  "+th.log.Render(iconLog+" harness.log / warning")+"  "+th.preload.Render(iconPreload+" preload"),
		"  "+th.mark.Render(iconLoaded+" loaded  "+iconUnloaded+" unloaded  "+iconActive+" active")+"  "+th.warn.Render(iconTrim+" window trimmed"),
		"  "+th.good.Render(iconApproved+" approved")+"  "+th.refused.Render(iconRefused+" refused / denied")+"  "+th.bad.Render(iconError+" error"),
		"  "+th.dim.Render("dimmed")+": out of the model's window (R9) — the model no longer sees it",
	)
	for i, l := range out { // all of it the interface's own words
		out[i] = th.clean(l)
	}
	return out
}

// statusLine is the bar at the bottom: what runs, the model, the turn,
// the window and the turn's use of each limit. When the long form does not
// fit, a compact one is used; when that does not fit either, the least
// important figures are left out, so the model, the size of the next
// request and the window stay longest.
func (m *model) statusLine(w int) string {
	th := m.th
	sep := th.faint.Render(" │ ")
	var lead []string
	if m.running || m.activity != "" {
		a := m.activity
		if a == "" {
			a = "working…"
		}
		lead = append(lead, th.accent.Render(m.spin.View()+" "+a))
	}
	if bar := m.travelBar(); bar != "" {
		// the past is on screen: say so before anything else
		return termtext.Clip(" "+th.accent.Render(bar), w)
	}
	s := m.snap
	if s == nil {
		if m.opening == nil {
			lead = append(lead, th.faint.Render("connecting to the engine…"))
		}
		return termtext.Clip(" "+strings.Join(lead, sep), w)
	}
	join := func(parts []statusPart, drop int) string {
		all := append([]string(nil), lead...)
		for _, p := range parts {
			if p.rank < drop {
				all = append(all, p.text)
			}
		}
		return " " + strings.Join(all, sep)
	}
	line := join(m.statusParts(s, false), rankAll)
	if termtext.Width(line) > w {
		short := m.statusParts(s, true)
		for drop := rankAll; drop > 0; drop-- {
			if line = join(short, drop); termtext.Width(line) <= w {
				break
			}
		}
	}
	return termtext.Clip(line, w)
}

// statusPart is one figure of the status bar; the lower its rank, the
// longer it stays on a narrow screen.
type statusPart struct {
	text string
	rank int
}

const rankAll = 9

func (m *model) statusParts(s *view.Snapshot, short bool) []statusPart {
	th := m.th
	pick := func(long, brief string) string {
		if short {
			return brief
		}
		return long
	}
	var parts []statusPart
	add := func(rank int, text string) { parts = append(parts, statusPart{text, rank}) }
	if s.Demo {
		add(0, th.statusDemo.Render(pick("offline demo model — not an LLM", "demo model — not an LLM")))
	} else {
		add(0, th.status.Render(pick("model ", "")+termtext.Sanitize(orDash(s.Model))))
	}
	if s.Profile != "" && s.Profile != rulebook.DefaultProfile {
		// the agent version the profile reproduces, such as Claude Code 2.1.332
		text := pick("profile ", "") + s.Profile
		if p, err := profile.Get(s.Profile); err == nil && p.Agent() != "" {
			agent := p.Agent()
			if s.ProfileAgent != "" {
				agent = termtext.Sanitize(s.ProfileAgent) // what the session ran under
			}
			text += pick(" ("+agent+")", "@"+profile.VersionOf(agent))
		}
		add(2, th.status.Render(text))
	}
	win := fmt.Sprintf(pick("window %d/%d", "win %d/%d"), s.Window.InWindow, s.Window.Cap)
	winSt := th.status
	if s.Window.CapExceeded {
		win += " cap exceeded"
		winSt = th.warn
	}
	lim := s.Limits
	add(3, th.status.Render(fmt.Sprintf("turn %d", s.Turn)))
	add(2, winSt.Render(win))
	add(4, th.status.Render(fmt.Sprintf("loads %d/%d", s.Usage.Loads, lim.MaxLoadsPerTurn)))
	add(6, th.status.Render(fmt.Sprintf(pick("load tok %s/%s", "ltok %s/%s"), tokCount(s.Usage.LoadTokens, s.Estimated), thousands(lim.LoadTokenBudget))))
	add(5, th.status.Render(fmt.Sprintf(pick("tool calls %d/%d", "calls %d/%d"), s.Usage.ToolCalls, lim.MaxToolCalls)))
	add(1, th.status.Render(fmt.Sprintf(pick("next request %s tok", "next %s tok"), tokCount(s.RequestTokens, s.Estimated))))
	if lim.Delivery == event.DeliveryToolResult {
		add(7, th.info.Render(pick("delivery tool-result", "tool-result")))
	}
	if !lim.LoadSkillTool {
		add(7, th.info.Render(pick("paste mode", "paste")))
	}
	if lim.FreezePrompt {
		add(7, th.info.Render(pick("frozen prompt", "frozen")))
	}
	if m.present {
		add(8, th.accent.Render(pick("presenter mode (f2)", "present")))
	}
	return parts
}
