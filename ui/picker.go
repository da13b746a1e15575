package ui

import (
	"context"
	"fmt"
	"skillet/harness/termtext"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// modelsMsg carries the provider's models to the picker.
type modelsMsg struct {
	names []string
	err   error
}

func fetchModels(eng Engine) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		names, err := eng.Models(ctx)
		return modelsMsg{names: names, err: err}
	}
}

// picker chooses one of a list, filtered as you type: a model for /model,
// a tool for /call.
type picker struct {
	th      *theme
	title   string
	items   []string
	current string
	filter  textinput.Model
	sel     int
	loading bool
	err     string
	pick    func(string) tea.Cmd
	h       int
	// hint replaces the key line under the list when set.
	hint string
}

func newPicker(th *theme, title string, items []string, current string, pick func(string) tea.Cmd) *picker {
	ti := textinput.New()
	ti.Prompt = "filter › "
	ti.Placeholder = "type to filter"
	ti.Focus()
	p := &picker{th: th, title: title, items: items, current: current, filter: ti, pick: pick}
	for i, it := range items {
		if it == current {
			p.sel = i
		}
	}
	return p
}

func (p *picker) handle(msg tea.Msg) tea.Cmd {
	mm, ok := msg.(modelsMsg)
	if !ok {
		return nil
	}
	p.loading = false
	if mm.err != nil {
		p.err = fmt.Sprintf("listing models: %v — type a name and press enter", mm.err)
		return nil
	}
	p.items = mm.names
	for i, it := range p.matches() {
		if it == p.current {
			p.sel = i
		}
	}
	return nil
}

func (p *picker) matches() []string {
	f := strings.ToLower(strings.TrimSpace(p.filter.Value()))
	if f == "" {
		return p.items
	}
	var out []string
	for _, it := range p.items {
		if strings.Contains(strings.ToLower(it), f) {
			out = append(out, it)
		}
	}
	return out
}

func (p *picker) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	ms := p.matches()
	switch msg.String() {
	case "esc":
		return nil, true
	case "up", "ctrl+p":
		p.sel = max(0, p.sel-1)
		return nil, false
	case "down", "ctrl+n":
		p.sel = max(0, min(len(ms)-1, p.sel+1))
		return nil, false
	case "pgup":
		p.sel = max(0, p.sel-max(1, p.h-1))
		return nil, false
	case "pgdown":
		p.sel = max(0, min(len(ms)-1, p.sel+max(1, p.h-1)))
		return nil, false
	case "enter":
		if p.sel < len(ms) {
			return p.pick(ms[p.sel]), true
		}
		if v := strings.TrimSpace(p.filter.Value()); v != "" {
			return p.pick(v), true // a name the list does not hold
		}
		return nil, false
	}
	var cmd tea.Cmd
	p.filter, cmd = p.filter.Update(msg)
	p.sel = 0
	return cmd, false
}

func (p *picker) wheel(n int) {
	p.sel = max(0, min(len(p.matches())-1, p.sel+n))
}

func (p *picker) view(w, h int) ([]string, int, int) {
	th := p.th
	bw := min(w, max(30, min(70, w-4)))
	bh := min(h, max(8, min(24, h-4)))
	iw := max(1, bw-2)
	p.h = max(1, bh-5)
	p.filter.SetWidth(max(1, iw-10))
	lines := []string{termtext.Clip(p.filter.View(), iw), ""}
	ms := p.matches()
	switch {
	case p.loading:
		lines = append(lines, th.faint.Render("loading…"))
	case p.err != "":
		lines = append(lines, indentStyled(th.bad, "", p.err, iw)...)
	case len(ms) == 0:
		lines = append(lines, th.faint.Render("nothing matches"))
	}
	var sc scroller
	sc.off = max(0, p.sel-p.h+1)
	for i, it := range sc.window(ms, p.h) {
		i += sc.off
		mark := "  "
		if it == p.current {
			mark = th.accent.Render("● ")
		}
		line := mark + termtext.Sanitize(it)
		if i == p.sel {
			line = th.selected.Render(iconSelected) + " " + th.bold.Render(termtext.Clip(line, iw-2))
		} else {
			line = "  " + termtext.Clip(line, iw-2)
		}
		lines = append(lines, line)
	}
	for len(lines) < bh-3 {
		lines = append(lines, "")
	}
	hint := p.hint
	if hint == "" {
		hint = "↑/↓ choose · enter pick · esc close"
	}
	lines = append(lines[:max(0, bh-3)], th.faint.Render(termtext.Clip(hint, iw)))
	return box(th, p.title, lines, bw, bh, true, fmt.Sprintf("%d", len(ms))), max(0, (w-bw)/2), max(0, (h-bh)/2)
}
