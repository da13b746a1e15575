package harness

import (
	"skillet/harness/event"
	"skillet/harness/rulebook"

	"skillet/skills"
)

// selectSkills applies the config's [[skills]] to the catalog (R19) and
// leaves out skills named like a built-in or agent tool (R18). On error the
// selection still holds what could be selected.
func selectSkills(o *Options) (*rulebook.Selection, error) {
	picked, err := o.Catalog.Select(refsOf(o))
	return buildSelection(o, picked), err
}

// refsOf is the config's [[skills]] selection, none for a session that
// offers its whole catalog.
func refsOf(o *Options) []skills.Ref {
	if o.CatalogOnly {
		return nil
	}
	return o.Config.Refs()
}

func buildSelection(o *Options, picked *skills.Selection) *rulebook.Selection {
	toolNames := map[string]string{rulebook.ToolLoadSkill: "a built-in tool", rulebook.ToolReadResource: "a built-in tool"}
	for _, t := range o.Config.Agent.Tools {
		toolNames[t.Name] = "one of the agent's tools"
	}
	return rulebook.Select(picked, toolNames, len(refsOf(o)) > 0, o.Catalog.All())
}

// syncSkills re-reads skills from disk at the start of a turn (R17): a
// changed loaded skill is re-rendered and marked; one that was removed or
// turned invalid unloads with a warning; the others keep working.
func (s *Session) syncSkills() {
	changes, err := s.opts.Catalog.Refresh()
	if err != nil {
		s.warn("re-reading skills: " + err.Error())
	}
	sel, selErr := selectSkills(&s.opts)
	s.step(func(st *rulebook.State, w *rulebook.World) []event.Event {
		w.Sel = sel
		return rulebook.Synced(st, w, changes, selErr)
	})
}

// Closest returns up to n of names nearest to name (see rulebook.Closest).
func Closest(name string, names []string, n int) []string { return rulebook.Closest(name, names, n) }
