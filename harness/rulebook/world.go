// Rule R19 (selection: the config's skills, or every valid one; a skill
// named like a tool the model sees is left out, R18) and what the rules
// know of the world outside the state: the catalog's selection, the tool
// definitions, the ranking (R10, R22) and the token count, handed in by
// the shell before each step.

package rulebook

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"skillet/harness/agenttools"
	"skillet/skills"
)

// Counter counts tokens. Count is exact and may wait for a tokenizer's
// tables; CountNow never waits, and sets *estimated (when given) when it
// answered with an estimate.
type Counter interface {
	Count(text string) int
	CountNow(text string, estimated *bool) int
}

// Ranker ranks a pool of skills against a message (R10, R22): the k that
// fit it best, ties in pool order, the names of the others, sorted, and
// the scores of the k.
type Ranker interface {
	Top(pool []*skills.Skill, msg string, k int) ([]*skills.Skill, []string, []float64)
}

// Catalog is what the rules read of the skill catalog: every parsed skill,
// one by name, and the definition a skill's tool reference names. None of
// them reads the disk: the shell refreshes the catalog before the step.
type Catalog interface {
	All() []*skills.Skill
	Get(name string) *skills.Skill
	Tool(owner *skills.Skill, ref skills.ToolRef) (*skills.ToolDef, error)
}

// AgentTool is the agent's own reference to a tool; it wins over a
// skill's (R14): its version, fixed input and approval apply.
type AgentTool struct {
	Name     string         `toml:"name"`
	Version  int            `toml:"version"`
	Approval string         `toml:"approval"`
	Input    map[string]any `toml:"input"`
}

// World is what the rules know besides the state, as the shell gathered it
// before a step: the catalog and its selection, the agent's tools and the
// definitions of every tool a request may carry (MCP ones asked of their
// servers beforehand), the ranking and the token count. A rule reads it and
// may only advance ExecHigh.
type World struct {
	Catalog Catalog
	Sel     *Selection
	Rank    Ranker
	Count   Counter
	// Prompt is the agent's prompt.
	Prompt string
	// AgentTools are the config's [[agent.tools]]; Approval its
	// [approval] table.
	AgentTools []AgentTool
	Approval   map[string]string
	// Permissions are the config's [[permissions]].
	Permissions []Permission
	// AgentDefs are the definitions of the agent's tools; MCPDefs those
	// of MCP tools as their servers gave them, MCPErrs why a server could
	// not.
	AgentDefs map[string]*skills.ToolDef
	MCPDefs   map[string]*skills.ToolDef
	MCPErrs   map[string]error
	// ProfileTools are the profile's own shell and file tools, when the
	// session runs them in a workspace.
	ProfileTools []agenttools.Def
	// RoutingOnly offers the skills' routing alone: no other tool.
	RoutingOnly bool
	// Roots are the catalog's skill folders and Now the session's clock,
	// as a profile composes with them (a date in its prompt).
	Roots []string
	Now   func() time.Time
	// ExecHigh is the highest execution number handed out, which may run
	// ahead of the recorded ones until their events are applied.
	ExecHigh int
}

// NextExec hands out the next execution id (R13).
func (w *World) NextExec(st *State) string {
	w.ExecHigh = max(w.ExecHigh, st.ExecSeq) + 1
	return fmt.Sprintf("x-%d", w.ExecHigh)
}

// HasAgentTool reports whether the agent lists a tool of that name itself.
func (w *World) HasAgentTool(name string) bool {
	for _, t := range w.AgentTools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// Selection is the enabled skills after R19 selection and R18's check that
// no skill is named like a tool the model sees.
type Selection struct {
	// Enabled are the enabled skills that are not preloaded, in order.
	Enabled []*skills.Skill
	Preload []*skills.Skill
	ByName  map[string]*skills.Skill
	Unnamed []string
	// Problems are the rule book's own reasons a skill is left out.
	Problems map[string][]skills.Problem
	// Lax are the skills the spec refuses but some agents read past
	// (skills.Skill.Readable), in catalog order, when the config names no
	// skills: the agents' profiles list them, Skillet's rule book never
	// sees them. LaxByName finds them by frontmatter name and by folder.
	Lax       []*skills.Skill
	LaxByName map[string]*skills.Skill
}

// AgentSkill finds a skill an agent's profile lists: an enabled one, or a
// lax one by its name or its folder's.
func (sel *Selection) AgentSkill(name string) *skills.Skill {
	if sk := sel.ByName[name]; sk != nil {
		return sk
	}
	return sel.LaxByName[name]
}

// IsLax reports whether sk is one of the lax skills.
func (sel *Selection) IsLax(sk *skills.Skill) bool {
	return sk != nil && sel.LaxByName[sk.Folder()] == sk
}

// EnabledSkill returns an enabled, not preloaded skill by name.
func (sel *Selection) EnabledSkill(name string) *skills.Skill {
	sk := sel.ByName[name]
	if sk == nil {
		return nil
	}
	for _, p := range sel.Preload {
		if p == sk {
			return nil
		}
	}
	return sk
}

// Select builds the selection from what the catalog picked for the
// config's [[skills]] (R19), leaving out skills named like a tool the model
// sees (toolNames: name to what it is, R18). named says the config names
// skills; without, the lax skills of all are kept for the profiles.
func Select(picked *skills.Selection, toolNames map[string]string, named bool, all []*skills.Skill) *Selection {
	if picked == nil {
		picked = &skills.Selection{}
	}
	sel := &Selection{ByName: map[string]*skills.Skill{}, Unnamed: picked.Unnamed, Problems: map[string][]skills.Problem{}}
	// A skill named like a tool another skill brings is kept: that tool is
	// the one left out, when it would be offered (R17).
	keep := func(sk *skills.Skill) bool {
		if what, ok := toolNames[sk.Name]; ok {
			sel.Problems[sk.Name] = append(sel.Problems[sk.Name], skills.Problem{Field: "name", Message: fmt.Sprintf("%q is also the name of %s, which the model sees (R18)", sk.Name, what)})
			return false
		}
		sel.ByName[sk.Name] = sk
		return true
	}
	for _, sk := range picked.Preload {
		if keep(sk) {
			sel.Preload = append(sel.Preload, sk)
		}
	}
	for _, sk := range picked.Enabled {
		if sel.ByName[sk.Name] != nil {
			continue // preloaded
		}
		if keep(sk) {
			sel.Enabled = append(sel.Enabled, sk)
		}
	}
	sel.LaxByName = map[string]*skills.Skill{}
	if !named {
		for _, sk := range all {
			if sk.Valid() || !sk.Readable() || sel.ByName[sk.Name] != nil || sel.ByName[sk.Folder()] != nil {
				continue
			}
			sel.Lax = append(sel.Lax, sk)
			sel.LaxByName[sk.Folder()] = sk
			if sel.LaxByName[sk.Name] == nil {
				sel.LaxByName[sk.Name] = sk
			}
		}
	}
	return sel
}

// SelectionNotices are what a session says once, at its start, of the
// skills it leaves out (R18, R19): those the config does not name, those
// invalid, and those named like a tool the model sees.
func SelectionNotices(sel *Selection, all []*skills.Skill, configName string) []string {
	var out []string
	if len(sel.Unnamed) > 0 {
		out = append(out, fmt.Sprintf("left out (not named in %s): %s", configName, strings.Join(sel.Unnamed, ", ")))
	}
	for _, sk := range all {
		if !sk.Valid() {
			out = append(out, fmt.Sprintf("skill %s is invalid and left out: %s", sk.Name, ProblemsText(sk.Problems)))
		} else if p := sel.Problems[sk.Name]; len(p) > 0 {
			out = append(out, fmt.Sprintf("skill %s is left out: %s", sk.Name, ProblemsText(p)))
		}
	}
	return out
}

// UnknownSkill explains a load of a name that is not an enabled skill,
// naming the closest ones (R19).
func UnknownSkill(w *World, name string) string {
	if sk := w.Catalog.Get(name); sk != nil {
		if !sk.Valid() {
			return fmt.Sprintf("load_skill: skill %q is invalid and left out: %s", name, ProblemsText(sk.Problems))
		}
		if p := w.Sel.Problems[name]; len(p) > 0 {
			return fmt.Sprintf("load_skill: skill %q is left out: %s", name, ProblemsText(p))
		}
		return fmt.Sprintf("load_skill: skill %q is not enabled (the config does not name it)", name)
	}
	names := make([]string, 0, len(w.Sel.Enabled))
	for _, sk := range w.Sel.Enabled {
		names = append(names, sk.Name)
	}
	if near := Closest(name, names, 3); len(near) > 0 {
		return fmt.Sprintf("load_skill: no skill named %q; the closest are: %s", name, strings.Join(near, ", "))
	}
	if len(names) == 0 {
		return fmt.Sprintf("load_skill: no skill named %q, and no skills are enabled", name)
	}
	return fmt.Sprintf("load_skill: no skill named %q (enabled: %s)", name, strings.Join(names, ", "))
}

// ProblemsText joins a skill's problems in one line.
func ProblemsText(ps []skills.Problem) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
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
