package ui

import (
	"fmt"
	"io"
	"skillet/harness/termtext"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// SessionChoice is one recent session offered by PickSession.
type SessionChoice struct {
	// ID is what --resume takes; When says when it was last written to.
	ID    string
	When  string
	Turns int
	// First is its first message, "" when it has none.
	First string
}

// PickSession lets the user choose a session to reopen: ↑/↓ and enter, or
// esc to choose none (ok false).
func PickSession(choices []SessionChoice, in io.Reader, out io.Writer) (id string, ok bool, err error) {
	m := &sessionPicker{choices: choices}
	opts := []tea.ProgramOption{}
	if in != nil {
		opts = append(opts, tea.WithInput(in))
	}
	if out != nil {
		opts = append(opts, tea.WithOutput(out))
	}
	if _, err := tea.NewProgram(m, opts...).Run(); err != nil {
		return "", false, fmt.Errorf("pick a session: %w", err)
	}
	if !m.chosen {
		return "", false, nil
	}
	return choices[m.sel].ID, true, nil
}

// sessionPicker is the list PickSession shows.
type sessionPicker struct {
	choices []SessionChoice
	sel     int
	chosen  bool
	w, h    int
}

func (p *sessionPicker) Init() tea.Cmd { return nil }

func (p *sessionPicker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.w, p.h = msg.Width, msg.Height
	case tea.KeyPressMsg:
		switch msg.String() {
		case "up", "k":
			p.sel = max(0, p.sel-1)
		case "down", "j":
			p.sel = min(len(p.choices)-1, p.sel+1)
		case "enter":
			p.chosen = true
			return p, tea.Quit
		case "esc", "q", "ctrl+c":
			return p, tea.Quit
		}
	}
	return p, nil
}

func (p *sessionPicker) View() tea.View {
	th := newTheme(true)
	w := max(20, p.w)
	lines := []string{th.bold.Render(termtext.Clip("Resume which session? ↑/↓ choose · enter reopens · esc quits", w)), ""}
	for i, c := range p.choices {
		cursor := "  "
		if i == p.sel {
			cursor = th.selected.Render(iconSelected + " ")
		}
		first := strings.Join(strings.Fields(termtext.Sanitize(c.First)), " ")
		if first == "" {
			first = "(no message)"
		}
		head := fmt.Sprintf("%s · %s · %d turn(s)", termtext.Sanitize(c.ID), c.When, c.Turns)
		lines = append(lines, cursor+termtext.Clip(th.bold.Render(head), w-2), "    "+th.faint.Render(termtext.Clip(first, max(1, w-4))))
	}
	if p.h > 0 && len(lines) > p.h {
		// keep the selected session on the screen
		from := min(max(0, 2+2*p.sel-p.h/2), len(lines)-p.h)
		lines = lines[from : from+p.h]
	}
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	return v
}
