package ui

import (
	"skillet/harness/termtext"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The / command menu: while the input holds a command being typed, the
// commands (or the argument's candidates) that match show above the
// input. ↑/↓ choose one, tab or enter takes it; without a choice tab
// completes the common prefix and enter runs what was typed.

// suggestion is one line of the menu.
type suggestion struct {
	// word is the command's name or the argument it completes to; arg
	// says which.
	word string
	arg  bool
	// text is what the input becomes when it is taken.
	text string
	// label and help are what the menu shows.
	label, help string
	// ready says the command needs nothing more: enter runs it.
	ready bool
}

// maxMenu is how many suggestions the menu shows.
const maxMenu = 8

// suggestions are the menu's lines for the text being typed, nil when no
// command is being typed.
func (m *model) suggestions() []suggestion {
	text := m.in.value()
	if m.focus != paneInput {
		return nil
	}
	_, typed, cands, ok := m.candidates(text)
	if !ok {
		return nil
	}
	out := cands[:0:0]
	for _, c := range cands {
		if !c.arg || c.word != typed {
			out = append(out, c)
		}
	}
	if len(out) == 1 && out[0].text == text {
		return nil // typed in full: nothing to suggest
	}
	return out
}

// candidates are what the command being typed in text can become: the
// commands its name begins or, after the name and a space, the candidates
// its argument begins. prefix stands before the word being typed; ok is
// false when text is no command being typed. The menu shows them; tab
// completes their common prefix.
func (m *model) candidates(text string) (prefix, typed string, out []suggestion, ok bool) {
	if !strings.HasPrefix(text, "/") || strings.Contains(text, "\n") {
		return "", "", nil, false
	}
	name, rest, hasArg := strings.Cut(text[1:], " ")
	if !hasArg {
		for _, c := range commandList() {
			if strings.HasPrefix(c.name, strings.ToLower(name)) {
				label := "/" + c.name
				if c.args != "" {
					label += " " + c.args
				}
				s := suggestion{word: c.name, text: "/" + c.name, label: label, help: c.help, ready: c.args == "" || strings.HasPrefix(c.args, "[")}
				if c.args != "" {
					s.text += " "
				}
				out = append(out, s)
			}
		}
		return "/", name, out, true
	}
	c, found := findCommand(strings.ToLower(name))
	arg := strings.TrimLeft(rest, " ")
	if !found || c.complete == nil || strings.Contains(arg, " ") {
		return "", "", nil, false
	}
	for _, cand := range c.complete(m) {
		if strings.HasPrefix(cand, arg) {
			out = append(out, suggestion{word: cand, arg: true, text: "/" + c.name + " " + cand, label: cand, help: "/" + c.name, ready: true})
		}
	}
	return "/" + name + " ", arg, out, true
}

// menuChoice is the chosen suggestion, if the user chose one for the text
// now in the input.
func (m *model) menuChoice(sugg []suggestion) (suggestion, bool) {
	if m.menuSel < 0 || m.menuFor != m.in.value() || m.menuSel >= len(sugg) {
		return suggestion{}, false
	}
	return sugg[m.menuSel], true
}

// menuKey handles the menu's keys; ok says the key was used.
func (m *model) menuKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	sugg := m.suggestions()
	if len(sugg) == 0 {
		return nil, false
	}
	k := m.keys
	sel := m.menuSel
	if m.menuFor != m.in.value() {
		sel = -1
	}
	switch {
	case key.Matches(msg, k.MenuUp):
		if sel < 0 {
			sel = len(sugg)
		}
		m.menuSel, m.menuFor = max(0, sel-1), m.in.value()
		return nil, true
	case key.Matches(msg, k.MenuDown):
		m.menuSel, m.menuFor = min(len(sugg)-1, sel+1), m.in.value()
		return nil, true
	case key.Matches(msg, k.Complete):
		if s, ok := m.menuChoice(sugg); ok {
			m.in.set(s.text)
			return nil, true
		}
	case key.Matches(msg, k.Send):
		if s, ok := m.menuChoice(sugg); ok {
			if !s.ready {
				m.in.set(s.text)
				return nil, true
			}
			m.in.set(s.text)
			return m.submit(m.in.take()), true
		}
	}
	return nil, false
}

// menuView draws the menu for a screen w wide: its lines, placed just
// above the input box.
func (m *model) menuView(w int) []string {
	sugg := m.suggestions()
	if len(sugg) == 0 || w < 20 {
		return nil
	}
	chosen, hasChoice := m.menuChoice(sugg)
	first := 0
	if hasChoice && m.menuSel >= maxMenu {
		first = m.menuSel - maxMenu + 1
	}
	bw := min(w, 72)
	iw := bw - 2
	lw := 0
	for _, s := range sugg {
		lw = max(lw, termtext.Width(s.label))
	}
	lw = min(lw, iw/2)
	var lines []string
	for i := first; i < len(sugg) && i < first+maxMenu; i++ {
		s := sugg[i]
		cursor := "  "
		label := m.th.key.Render(termtext.Fit(termtext.Clip(s.label, lw), lw))
		if hasChoice && s == chosen {
			cursor = m.th.selected.Render(iconSelected + " ")
		}
		lines = append(lines, cursor+label+"  "+m.th.faint.Render(termtext.Clip(s.help, max(1, iw-lw-4))))
	}
	foot := "↑/↓ choose · tab completes · enter runs"
	if len(sugg) > maxMenu {
		foot = "more: keep typing · " + foot
	}
	lines = append(lines, m.th.faint.Render(termtext.Clip(" "+foot, iw)))
	return box(m.th, "Commands", lines, bw, len(lines)+2, false, "")
}
