package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"skillet/harness/event"
	"skillet/harness/rulebook"
	"skillet/harness/termtext"
	"skillet/harness/view"
)

// lruPane shows the loaded skills, most recent first, the preloads apart,
// and what the last turn offered, delivered and loaded (R20).
type lruPane struct {
	th   *theme
	snap *view.Snapshot

	builtPane // items: loaded then preloaded skills
}

func newLRUPane(th *theme) *lruPane {
	return &lruPane{th: th, builtPane: builtPane{open: map[string]bool{}, dirty: true}}
}

func (p *lruPane) setSnapshot(s *view.Snapshot) { p.snap, p.dirty = s, true }

func (p *lruPane) skills() []view.LoadedSkill {
	if p.snap == nil {
		return nil
	}
	return append(slices.Clip(p.snap.Loaded), p.snap.Preloaded...)
}

// tableNames are the skills of the last turn's Offered / Delivered /
// Loaded table, which the cursor reaches after the loaded and preloaded
// skills.
func (p *lruPane) tableNames() []string {
	if p.snap == nil || p.snap.LastTurn == nil {
		return nil
	}
	lt := p.snap.LastTurn
	return unionNames(lt.Offered, lt.Delivered, lt.Loaded)
}

// selected is the skill under the cursor; inTable says it is a row of the
// last turn's table rather than a loaded or preloaded skill.
func (p *lruPane) selected() (view.LoadedSkill, bool) {
	sk, _, ok := p.selectedRow()
	return sk, ok
}

func (p *lruPane) selectedRow() (sk view.LoadedSkill, inTable, ok bool) {
	all := p.skills()
	switch {
	case p.sel >= 0 && p.sel < len(all):
		return all[p.sel], false, true
	case p.sel >= len(all) && p.sel < len(all)+len(p.tableNames()):
		return view.LoadedSkill{Name: p.tableNames()[p.sel-len(all)]}, true, true
	}
	return view.LoadedSkill{}, false, false
}

func (p *lruPane) key(k keyMap, msg tea.KeyPressMsg, h int) tea.Cmd {
	if navKey(&p.builtPane, k, msg, len(p.skills())+len(p.tableNames()), h) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Fold):
		if s, inTable, ok := p.selectedRow(); ok && inTable {
			return runCommand("/why " + s.Name) // a row of the table: its card
		} else if ok {
			p.toggle(s.Name)
		}
	case key.Matches(msg, k.Unload):
		if s, ok := p.selected(); ok && s.By != "preload" && p.sel < len(p.snap.Loaded) {
			return runCommand("/unload " + s.Name)
		}
	case key.Matches(msg, k.Why):
		if s, ok := p.selected(); ok {
			return runCommand("/why " + s.Name)
		}
	case key.Matches(msg, k.Copy):
		if s, ok := p.selected(); ok {
			return copyText(fmt.Sprintf("state:\n%s\nstore:\n%s", prettyRaw(s.State), prettyRaw(s.Store)), "state and store of "+s.Name)
		}
	case key.Matches(msg, k.View):
		if s, ok := p.selected(); ok {
			return openViewer("state and store of "+s.Name, fmt.Sprintf("state (this load, R26):\n%s\n\nstore (the session, R26):\n%s", prettyRaw(s.State), prettyRaw(s.Store)))
		}
	}
	return nil
}

func (p *lruPane) view(w, h int, focused bool) []string {
	return p.show(w, h, focused, p.build)
}

func (p *lruPane) build(w int) {
	p.dirty, p.builtW = false, w
	th := p.th
	var out []string
	add := func(s ...string) { out = append(out, s...) }
	s := p.snap
	if s == nil {
		p.lines = []string{th.faint.Render("waiting for the engine…")}
		return
	}
	all := p.skills()
	p.sel = max(0, min(p.sel, len(all)+len(p.tableNames())-1))
	limit := s.Limits.MaxLoadedSkills
	head := fmt.Sprintf("Loaded %d/%d", len(s.Loaded), limit)
	if !s.Lifecycle && s.Profile != "" && s.Profile != rulebook.DefaultProfile {
		head = fmt.Sprintf("Activated %d (%s keeps them all: lifecycle off)", len(s.Loaded), s.Profile)
	}
	add(th.bold.Render(termtext.Clip(head, w)))
	if len(s.Loaded) == 0 {
		add(th.faint.Render(termtext.Clip("  none — the model loads with load_skill, you with /load", w)))
	}
	i := 0
	for _, sk := range s.Loaded {
		p.skillLines(&out, sk, i, w)
		i++
	}
	if len(s.Preloaded) > 0 {
		add("", th.bold.Render(termtext.Clip(th.clean(fmt.Sprintf("Preloaded %d (outside the LRU, R16)", len(s.Preloaded))), w)))
		for _, sk := range s.Preloaded {
			p.skillLines(&out, sk, i, w)
			i++
		}
	}
	add("")
	base := len(out)
	table, row := p.lastTurnLines(w)
	add(table...)
	if row >= 0 {
		p.selFrom, p.selTo = base+row, base+row
	}
	p.lines = out
}

func (p *lruPane) skillLines(out *[]string, sk view.LoadedSkill, i, w int) {
	th := p.th
	selected := i == p.sel
	from := len(*out)
	cursor := "  "
	if selected && p.focused {
		cursor = th.selected.Render(iconSelected + " ")
	}
	name := th.bold.Render(termtext.Sanitize(sk.Name))
	if sk.Version != "" {
		name += th.faint.Render(" v" + termtext.Sanitize(sk.Version))
	}
	if sk.Active {
		name = th.accent.Render(iconActive+" ") + name
	}
	*out = append(*out, cursor+termtext.Clip(name, w-2))
	meta := fmt.Sprintf("%s · %s tok · by %s · turn %d", orDash(sk.ExecutionID), tokCount(sk.Tokens, p.snap.Estimated), orDash(sk.By), sk.LoadedTurn)
	if th.present { // an audience has no use for execution ids
		meta = fmt.Sprintf("%s tok · by %s · turn %d", tokCount(sk.Tokens, p.snap.Estimated), orDash(sk.By), sk.LoadedTurn)
	}
	if sk.Active {
		meta = "active · " + meta
	}
	*out = append(*out, indentStyled(th.faint, "    ", meta, w)...)
	var flags []string
	if sk.Changed {
		flags = append(flags, th.warn.Render(iconLog+" changed on disk"))
	}
	if sk.OutOfWindow {
		flags = append(flags, th.bad.Render(iconLog+" text out of window"))
	}
	if len(flags) > 0 {
		*out = append(*out, termtext.Clip("    "+strings.Join(flags, " "), w))
	}
	for _, t := range sk.Tools {
		*out = append(*out, th.toolCall.Render(termtext.Clip("    "+iconToolCall+" "+termtext.Sanitize(t), w)))
	}
	if p.open[sk.Name] {
		*out = append(*out, th.info.Render("    state (this load)"))
		for _, l := range strings.Split(prettyRaw(sk.State), "\n") {
			*out = append(*out, indentStyled(th.faint, "      ", l, w)...)
		}
		*out = append(*out, th.info.Render("    store (session)"))
		for _, l := range strings.Split(prettyRaw(sk.Store), "\n") {
			*out = append(*out, indentStyled(th.faint, "      ", l, w)...)
		}
	} else {
		*out = append(*out, th.faint.Render(termtext.Clip("    "+iconFolded+" state "+compactJSON(prettyRaw(sk.State))+" · store "+compactJSON(prettyRaw(sk.Store)), w)))
	}
	if selected {
		p.selFrom, p.selTo = from, len(*out)-1
	}
}

// lastTurnLines is the R20 table of the last finished turn, its uses
// (R21) and the skills the list left off (R10).
// The second result is the line of the selected row, -1 when none is.
func (p *lruPane) lastTurnLines(w int) ([]string, int) {
	th := p.th
	s := p.snap
	lt := s.LastTurn
	var out []string
	selRow := -1
	if lt == nil {
		out = append(out, th.bold.Render("Last turn"), th.faint.Render(termtext.Clip("  no turn yet", w)))
	} else {
		head := fmt.Sprintf("Last turn %d · %s", event.TurnOf(lt), orDash(lt.StopReason))
		out = append(out, th.bold.Render(termtext.Clip(head, w)))
		names := unionNames(lt.Offered, lt.Delivered, lt.Loaded)
		if len(names) == 0 {
			out = append(out, th.faint.Render(termtext.Clip("  no skills offered", w)))
		} else {
			nw := max(4, w-9)
			out = append(out, indentStyled(th.faint, "  ", th.clean("O offered · D delivered · L loaded (R20)"), w)...)
			offered, delivered, loaded := set(lt.Offered), set(lt.Delivered), set(lt.Loaded)
			first := len(p.skills())
			for j, n := range names {
				cursor := "  "
				if first+j == p.sel {
					selRow = len(out)
					if p.focused {
						cursor = th.selected.Render(iconSelected + " ")
					}
				}
				row := cursor + termtext.Fit(termtext.Clip(termtext.Sanitize(n), nw-1), nw) + tick(th, "O", offered[n]) + tick(th, "D", delivered[n]) + tick(th, "L", loaded[n])
				out = append(out, row)
			}
		}
		if len(lt.Uses) > 0 {
			out = append(out, th.faint.Render(th.clean("  uses (R21)")))
			for _, u := range lt.Uses {
				line := fmt.Sprintf("%s %s", strings.ToLower(u.Role), u.Name)
				if u.Version != "" {
					line += " v" + u.Version
				}
				if u.ExecutionID != "" && !th.present {
					line += " · " + u.ExecutionID
				}
				if u.Reused {
					line += " · reused"
				}
				out = append(out, indentStyled(th.faint, "    ", line, w)...)
			}
		}
		if len(lt.LeftOff) > 0 {
			out = append(out, nameList(th, th.clean("left off the list (R10):"), lt.LeftOff, w)...)
		}
	}
	if len(s.LeftOff) > 0 && (lt == nil || !slices.Equal(s.LeftOff, lt.LeftOff)) {
		out = append(out, nameList(th, th.clean("next list leaves off (R10):"), s.LeftOff, w)...)
	}
	return out, selRow
}

// nameList is a label and the names under it, wrapped between names: a
// label as wide as the pane would leave the names a few columns each.
func nameList(th *theme, label string, names []string, w int) []string {
	out := indentStyled(th.warn, "  ", label, w)
	clean := make([]string, len(names))
	for i, n := range names {
		clean[i] = strings.ReplaceAll(termtext.Sanitize(n), " ", "\u00a0")
	}
	for _, l := range termtext.Wrap(strings.Join(clean, ", "), max(1, w-4)) {
		out = append(out, th.warn.Render("    "+strings.ReplaceAll(l, "\u00a0", " ")))
	}
	return out
}

// tick is a column of the R20 table: the letter when it holds.
func tick(th *theme, letter string, ok bool) string {
	if ok {
		return " " + th.good.Render(letter)
	}
	return " " + th.faint.Render("·")
}

// unionNames keeps each name once: delivered and loaded first, then the
// rest of the offered list in its order.
func unionNames(offered, delivered, loaded []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, list := range [][]string{loaded, delivered, offered} {
		for _, n := range list {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

func set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
