package harness

import (
	"fmt"
	"skillet/harness/rulebook"
	"sort"
	"strings"
	"unicode/utf8"

	"skillet/skills"
)

// selection is the enabled skills after R19 selection and R18's check that
// no skill is named like a tool the model sees.
type selection struct {
	// enabled are the enabled skills that are not preloaded, in order.
	enabled []*skills.Skill
	preload []*skills.Skill
	byName  map[string]*skills.Skill
	unnamed []string
	// problems are the harness's own reasons a skill is left out.
	problems map[string][]skills.Problem
	// lax are the skills the spec refuses but some agents read past
	// (skills.Skill.Readable), in catalog order, when the config names no
	// skills: the agents' profiles list them, Skillet's rule book never
	// sees them. laxByName finds them by frontmatter name and by folder.
	lax       []*skills.Skill
	laxByName map[string]*skills.Skill
}

// agentSkill finds a skill an agent's profile lists: an enabled one, or a
// lax one by its name or its folder's.
func (sel *selection) agentSkill(name string) *skills.Skill {
	if sk := sel.byName[name]; sk != nil {
		return sk
	}
	return sel.laxByName[name]
}

// isLax reports whether sk is one of the lax skills.
func (sel *selection) isLax(sk *skills.Skill) bool {
	return sk != nil && sel.laxByName[sk.Folder()] == sk
}

// enabledSkill returns an enabled, not preloaded skill by name.
func (sel *selection) enabledSkill(name string) *skills.Skill {
	sk := sel.byName[name]
	if sk == nil {
		return nil
	}
	for _, p := range sel.preload {
		if p == sk {
			return nil
		}
	}
	return sk
}

// selectSkills applies the config's [[skills]] to the catalog (R19) and
// leaves out skills named like a built-in or agent tool (R18). On error the
// selection still holds what could be selected.
func selectSkills(o *Options) (*selection, error) {
	picked, err := o.Catalog.Select(o.Config.Refs())
	if picked == nil {
		picked = &skills.Selection{}
	}
	return buildSelection(o, picked), err
}

func buildSelection(o *Options, picked *skills.Selection) *selection {
	sel := &selection{byName: make(map[string]*skills.Skill, len(picked.Enabled)), unnamed: picked.Unnamed, problems: map[string][]skills.Problem{}}
	toolNames := map[string]string{ToolLoadSkill: "a built-in tool", ToolReadResource: "a built-in tool"}
	for _, t := range o.Config.Agent.Tools {
		toolNames[t.Name] = "one of the agent's tools"
	}
	// A skill named like a tool another skill brings is kept: that tool is
	// the one left out, when it would be offered (R17).
	keep := func(sk *skills.Skill) bool {
		if what, ok := toolNames[sk.Name]; ok {
			sel.problems[sk.Name] = append(sel.problems[sk.Name], skills.Problem{Field: "name", Message: fmt.Sprintf("%q is also the name of %s, which the model sees (R18)", sk.Name, what)})
			return false
		}
		sel.byName[sk.Name] = sk
		return true
	}
	for _, sk := range picked.Preload {
		if keep(sk) {
			sel.preload = append(sel.preload, sk)
		}
	}
	for _, sk := range picked.Enabled {
		if sel.byName[sk.Name] != nil {
			continue // preloaded
		}
		if keep(sk) {
			sel.enabled = append(sel.enabled, sk)
		}
	}
	sel.laxByName = map[string]*skills.Skill{}
	if len(o.Config.Skills) == 0 { // no refs
		for _, sk := range o.Catalog.All() {
			if sk.Valid() || !sk.Readable() || sel.byName[sk.Name] != nil || sel.byName[sk.Folder()] != nil {
				continue
			}
			sel.lax = append(sel.lax, sk)
			sel.laxByName[sk.Folder()] = sk
			if sel.laxByName[sk.Name] == nil {
				sel.laxByName[sk.Name] = sk
			}
		}
	}
	return sel
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
	f.w.sel = sel
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
func (f *frame) onDisk(sel *selection, ls *rulebook.Loaded) rulebook.Disk {
	cur := sel.byName[ls.Name]
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
		d.Tools, d.Removed, d.Added = f.toolsAfterEdit(ls, d.Body)
	}
	return d

}

func problemsText(ps []skills.Problem) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

func joinNames(names []string) string {
	return strings.Join(names, ", ")
}

// Closest returns up to n of names nearest to name, for "did you mean":
// those containing it or contained in it first, then by edit distance.
func Closest(name string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	lname := strings.ToLower(name)
	seen := map[string]bool{}
	for _, c := range names {
		if seen[c] { // a name known twice is suggested once
			continue
		}
		seen[c] = true
		lc := strings.ToLower(c)
		d := editDistance(lname, lc)
		if lname != "" && (strings.Contains(lc, lname) || strings.Contains(lname, lc)) {
			d = 0
		}
		if d <= max(3, len(lname)/2) {
			cs = append(cs, cand{c, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

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
	after := f.buildToolsWith(f.st.Preloads, loaded)
	tools = []string{}
	have := map[string]bool{}
	for _, ref := range body.Tools {
		name := modelToolName(ref.Name)
		if b := after.byName[name]; b != nil && b.owner == &edited {
			tools = append(tools, toolLabel(name, b.info.Version))
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
