package harness

import (
	"fmt"
	"skillet/harness/rulebook"
	"sort"
	"strings"
	"unicode/utf8"

	"skillet/skills"
)

// selectSkills applies the config's [[skills]] to the catalog (R19) and
// leaves out skills named like a built-in or agent tool (R18). On error the
// selection still holds what could be selected.
func selectSkills(o *Options) (*rulebook.Selection, error) {
	picked, err := o.Catalog.Select(o.Config.Refs())
	return buildSelection(o, picked), err
}

func buildSelection(o *Options, picked *skills.Selection) *rulebook.Selection {
	toolNames := map[string]string{ToolLoadSkill: "a built-in tool", ToolReadResource: "a built-in tool"}
	for _, t := range o.Config.Agent.Tools {
		toolNames[t.Name] = "one of the agent's tools"
	}
	return rulebook.Select(picked, toolNames, len(o.Config.Refs()) > 0, o.Catalog.All())
}

// syncSkills re-reads skills from disk at the start of a turn (R17): a
// changed loaded skill is re-rendered and marked; one that was removed or
// turned invalid unloads with a warning; the others keep working.
func (s *Session) syncSkills() {
	changes, err := s.opts.Catalog.Refresh()
	if err != nil {
		s.warn("re-reading skills: " + err.Error())
	}
	s.step(func(f *frame) []Event { return f.sync(changes) })
}

// sync reconciles the state with the skills as the catalog now reads them
// (R17), recording what changed: new selection, unloads of removed or
// invalid skills, edits of loaded ones.
func (f *frame) sync(changes skills.Changes) []Event {
	sel, selErr := selectSkills(f.opts)
	f.w.Sel = sel
	var newlyInvalid []string
	for _, name := range changes.Changed {
		if sk := f.opts.Catalog.Get(name); sk != nil && !sk.Valid() && f.st.FindLoaded(name) == nil {
			newlyInvalid = append(newlyInvalid, fmt.Sprintf("skill %s is now invalid and left out: %s", name, problemsText(sk.Problems)))
		}
	}
	for _, name := range changes.Added {
		if sk := f.opts.Catalog.Get(name); sk != nil && !sk.Valid() {
			newlyInvalid = append(newlyInvalid, fmt.Sprintf("new skill %s is invalid and left out: %s", name, problemsText(sk.Problems)))
		}
	}
	var events []Event
	if selErr != nil {
		events = append(events, &Warning{Message: "skills in the config no longer select cleanly; keeping the valid ones: " + oneLine(selErr)})
	}
	for _, w := range newlyInvalid {
		events = append(events, &Warning{Message: w})
	}
	return append(events, rulebook.Sync(f.st, func(ls *rulebook.Loaded) rulebook.Disk { return f.onDisk(sel, ls) })...)
}

// onDisk is a loaded skill as the catalog now reads it (R17).
func (f *frame) onDisk(sel *rulebook.Selection, ls *rulebook.Loaded) rulebook.Disk {
	cur := sel.ByName[ls.Name]
	if cur == nil {
		sk := f.opts.Catalog.Get(ls.Name)
		switch {
		case sk == nil:
			return rulebook.Disk{Gone: rulebook.GoneRemoved}
		case !sk.Valid():
			return rulebook.Disk{Gone: rulebook.GoneInvalid, Problems: problemsText(sk.Problems)}
		}
		return rulebook.Disk{Gone: rulebook.GoneNotEnabled}
	}
	if !bodyChanged(cur, ls) {
		return rulebook.Disk{}
	}
	d := rulebook.Disk{Changed: true, Chars: utf8.RuneCountInString(skillText(cur)), Version: cur.Version, Body: bodyOf(cur)}
	if len(rulebook.LoadLimits(f.st.Settings, rulebook.Usage{}, rulebook.PathEdit, ls.Name, d.Chars, 0)) == 0 {
		d.Tokens = f.countNow(d.Body.Text, nil)
		d.Tools, d.Removed, d.Added = rulebook.ToolsAfterEdit(f.st, f.w.World, ls, d.Body)
	}
	return d

}

func problemsText(ps []skills.Problem) string { return rulebook.ProblemsText(ps) }

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

func joinNames(names []string) string {
	return strings.Join(names, ", ")
}

// Closest returns up to n of names nearest to name (see rulebook.Closest).
func Closest(name string, names []string, n int) []string { return rulebook.Closest(name, names, n) }

// bodyChanged reports whether a skill on disk differs from what a load
// rendered of it.
func bodyChanged(sk *skills.Skill, ls *rulebook.Loaded) bool {
	if sk.Version != ls.Version || sk.Dir != ls.Body.Dir || skillText(sk) != ls.Body.Text || len(sk.Tools) != len(ls.Body.Tools) {
		return true
	}
	for i, r := range sk.Tools {
		if r != ls.Body.Tools[i] {
			return true
		}
	}
	return false
}

// toolsAfterEdit works out the tools a loaded skill makes available once
// its edited body is rendered (R14, R17): all of them as name@version, and
// those the edit removed and added.
func (f *frame) toolsAfterEdit(ls *rulebook.Loaded, body SkillBody) (tools, removed, added []string) {
	edited := *ls
	edited.Body = body
	loaded := make([]*rulebook.Loaded, len(f.st.Loaded))
	for i, x := range f.st.Loaded {
		loaded[i] = x
		if x == ls {
			loaded[i] = &edited
		}
	}
	after := rulebook.BuildToolsWith(f.st, f.w.World, f.st.Preloads, loaded)
	tools = []string{}
	have := map[string]bool{}
	for _, ref := range body.Tools {
		name := modelToolName(ref.Name)
		if b := after.ByName[name]; b != nil && b.Owner == &edited {
			tools = append(tools, rulebook.ToolLabel(name, b.Info.Version))
			have[name] = true
		}
	}
	sort.Strings(tools)
	had := map[string]bool{}
	for _, t := range ls.Tools {
		name, _, _ := strings.Cut(t, "@")
		had[name] = true
		if !have[name] {
			removed = append(removed, t)
		}
	}
	for _, t := range tools {
		if name, _, _ := strings.Cut(t, "@"); !had[name] {
			added = append(added, t)
		}
	}
	return tools, removed, added
}
