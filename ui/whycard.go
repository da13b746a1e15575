package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// cmdWhy opens a skill's card: the verdict, status, turn-by-turn timeline,
// tools and cost that `skillet why` prints, read off the UI's path.
func (m *model) cmdWhy(args string) tea.Cmd {
	if args == "" {
		if m.opts.Why == nil || len(m.knownSkills()) == 0 {
			return m.flashErr(needArg("why", "a skill name (tab completes)"))
		}
		// no name: pick one, filtering as you type
		m.overlay = newPicker(m.th, "Which skill's card?", m.knownSkills(), "", func(n string) tea.Cmd { return runCommand("/why " + n) })
		return nil
	}
	if m.opts.Why == nil {
		return m.flashErr(fmt.Errorf("/why: this session cannot explain skills"))
	}
	explain := m.opts.Why
	return func() tea.Msg {
		text, err := explain(args)
		if err != nil {
			text = fmt.Sprintf("why %s: %v\n\n%s", args, err, text)
		}
		return openViewerMsg{title: "why " + args, text: text}
	}
}

// knownSkills are the names of every skill found, valid or not.
func (m *model) knownSkills() []string {
	var out []string
	if m.snap != nil {
		seen := map[string]bool{}
		for _, s := range m.snap.Skills {
			if !seen[s.Name] {
				seen[s.Name] = true
				out = append(out, s.Name)
			}
		}
	}
	return out
}
