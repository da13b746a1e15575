package profile

import (
	"fmt"
	"sort"
	"strings"
)

// Codex's listing rules. Source: openai/codex
// codex-rs/core-skills/src/render.rs (default_skill_metadata_budget,
// build_available_skills, render_skill_lines_from_lines and the alias plan)
// and core-skills/src/injection.rs with the SkillInstructions fragment for
// `$name` mentions.
const (
	// codexWindow is the context window of Codex's default models (the
	// 272k window of the 5,440-token example in the sources).
	codexWindow = 272_000
	// codexPercent of the window, in approximate tokens, is the budget
	// (SKILL_METADATA_CONTEXT_WINDOW_PERCENT); codexChars when the window
	// is unknown (DEFAULT_SKILL_METADATA_CHAR_BUDGET).
	codexPercent = 2
	codexChars   = 8_000
	// codexBytesPerToken: tokens are approximated as bytes / 4, rounded up
	// (APPROX_BYTES_PER_TOKEN).
	codexBytesPerToken = 4
)

// Lengths of Codex's fixed intro paragraph (ASCII), with absolute paths
// and with root aliases (the latter measured on 0.171.0).
const (
	codexIntroAbs   = 264
	codexIntroAlias = 261
)

// codexAgent is the version the profile reproduces.
const codexAgent = "Codex 0.171.0"

// codexMaxDesc: a longer description is listed as its first
// codexMaxDesc-3 characters and "..." (measured on 0.171.0).
const codexMaxDesc = 1024

// codexDesc is a description as Codex lists it: whitespace runs collapsed
// to one space, and capped at 1,021 characters and "...".
func codexDesc(d string) (string, bool) {
	d = strings.Join(strings.Fields(d), " ")
	if runes(d) > codexMaxDesc {
		return cutRunes(d, codexMaxDesc-3) + "...", true
	}
	return d, false
}

type codex struct{}

func (codex) Name() string { return "codex" }

// Agent is the version reproduced.
func (codex) Agent() string      { return codexAgent }
func (codex) DefaultWindow() int { return codexWindow }

// CodexBudget is Codex's listing budget for a context window in tokens: 2 %
// of it in approximate tokens (at least 1), or 8,000 characters when the
// window is unknown (0 or less).
func CodexBudget(window int) Budget {
	if window <= 0 {
		return Budget{Unit: "characters", Limit: codexChars, Rule: "context window unknown: 8,000 characters"}
	}
	return Budget{Window: window, Unit: "tokens", Limit: max(window*codexPercent/100, 1),
		Rule: fmt.Sprintf("%d %% of the %d-token context window, tokens counted as bytes / %d", codexPercent, window, codexBytesPerToken)}
}

func codexCost(b Budget, chars, bytes int) int {
	if b.Unit == "tokens" {
		return (bytes + codexBytesPerToken - 1) / codexBytesPerToken
	}
	return chars
}

func codexTextCost(b Budget, s string) int { return codexCost(b, runes(s), len(s)) }

type codexLine struct {
	idx  int
	name string
	desc string
	path string
}

func (l *codexLine) render(descChars int) string {
	if descChars == 0 || l.desc == "" {
		return "- " + l.name + ": (file: " + l.path + ")"
	}
	return "- " + l.name + ": " + cutRunes(l.desc, descChars) + " (file: " + l.path + ")"
}

func (l *codexLine) cost(b Budget, descChars int) int {
	return codexTextCost(b, l.render(descChars)+"\n")
}

type codexRender struct {
	lines    []string
	kept     []int // description characters kept, per line
	included []bool
	phase    int // 1 all full, 2 shortened, 3 names only until the budget
	omitted  int
	truncSum int // description characters removed
	needFull int
	needMin  int
	roots    []string
}

// codexRenderLines is render_skill_lines_from_lines.
func codexRenderLines(b Budget, ls []*codexLine) *codexRender {
	r := &codexRender{kept: make([]int, len(ls)), included: make([]bool, len(ls))}
	for _, l := range ls {
		r.needFull += l.cost(b, runes(l.desc))
		r.needMin += l.cost(b, 0)
	}
	switch {
	case r.needFull <= b.Limit:
		r.phase = 1
		for i, l := range ls {
			r.kept[i], r.included[i] = runes(l.desc), true
		}
	case r.needMin <= b.Limit:
		r.phase = 2
		codexShareDescriptions(b, ls, b.Limit-r.needMin, r.kept)
		for i, l := range ls {
			r.included[i] = true
			r.truncSum += runes(l.desc) - r.kept[i]
		}
	default:
		// every description removed; names and paths while they fit, and
		// a line that does not fit does not stop the scan
		r.phase = 3
		used := 0
		for i, l := range ls {
			if c := l.cost(b, 0); used+c <= b.Limit {
				used += c
				r.included[i] = true
			} else {
				r.omitted++
			}
			r.truncSum += runes(l.desc)
		}
	}
	for i, l := range ls {
		if r.included[i] {
			r.lines = append(r.lines, l.render(r.kept[i]))
		}
	}
	return r
}

// codexShareDescriptions is render_lines_with_description_budget: the room
// left after every minimal line goes to the descriptions one character at
// a time, in listing order, round after round, so short descriptions drop
// out and their share goes to the long ones.
func codexShareDescriptions(b Budget, ls []*codexLine, room int, kept []int) {
	extra := make([][]int, len(ls))
	for i, l := range ls {
		min := l.render(0)
		minChars, minBytes := runes(min)+1, len(min)+1
		base := codexCost(b, minChars, minBytes)
		costs := make([]int, 1, runes(l.desc)+1)
		pc, pb := 0, 0
		for _, ch := range l.desc {
			pc++
			pb += len(string(ch))
			costs = append(costs, max(codexCost(b, minChars+pc+1, minBytes+pb+1)-base, 0))
		}
		extra[i] = costs
	}
	cur := make([]int, len(ls))
	for changed := true; changed; {
		changed = false
		for i := range ls {
			if kept[i] >= len(extra[i])-1 {
				continue
			}
			next := extra[i][kept[i]+1]
			if d := max(next-cur[i], 0); d <= room {
				kept[i]++
				cur[i] = next
				room -= d
				changed = true
			}
		}
	}
}

// codexOrder is ordered_skills_for_budget: by scope (system, admin, repo,
// user), then name, then path.
func codexOrder(skills []Skill) []int {
	rank := map[string]int{"system": 0, "admin": 1, "repo": 2, "user": 3}
	scope := func(s Skill) int {
		if r, ok := rank[s.Scope]; ok {
			return r
		}
		return rank["repo"]
	}
	idx := make([]int, len(skills))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		sa, sb := skills[idx[a]], skills[idx[b]]
		if scope(sa) != scope(sb) {
			return scope(sa) < scope(sb)
		}
		if sa.Name != sb.Name {
			return sa.Name < sb.Name
		}
		return sa.Path < sb.Path
	})
	return idx
}

// Catalogue lists every skill; one without a name under its folder's
// (measured on 0.171.0).
func (p codex) Catalogue(in Input) Catalogue {
	win := window(p, in)
	budget := CodexBudget(win)
	user := in.Skills
	cat := Catalogue{Profile: p.Name(), Agent: codexAgent, Entries: make([]Entry, len(user))}
	// the system skills list first (their scope sorts first) and share the
	// budget
	bundled := bundledFor(in, codexBundled, codexAgent)
	in.Skills = append(append([]Skill(nil), bundled...), user...)
	if len(bundled) > 0 && len(in.Roots) > 0 {
		// the system skills' root is aliased first (r0)
		in.Roots = append([]string{codexSystemRoot}, in.Roots...)
	}
	if len(in.Skills) == 0 {
		return cat
	}
	cat.Bundled = make([]Entry, len(bundled))
	chosen, lines := codexSelect(budget, in)
	for i, l := range lines {
		s := in.Skills[l.idx]
		e := Entry{Name: s.Name, Length: runes(s.Description), Kept: chosen.kept[i], Rank: i + 1, Bundled: l.idx < len(bundled)}
		unit := budget.Unit
		clean, capped := codexDesc(s.Description)
		switch {
		case !chosen.included[i]:
			e.State, e.Kept = Omitted, 0
			e.Reason = fmt.Sprintf("left out: even without descriptions the lines need %d %s, over the %d budget, and this one, %d in Codex's order (scope, then name), no longer fit", chosen.needMin, unit, budget.Limit, i+1)
		case chosen.phase == 3:
			e.State = NameOnly
			e.Reason = fmt.Sprintf("all descriptions removed: with them the lines need %d %s and even the names and paths alone %d, over the %d budget", chosen.needFull, unit, chosen.needMin, budget.Limit)
		case capped && e.Kept == runes(clean):
			e.State = Truncated
			e.Reason = fmt.Sprintf("Codex lists at most %d characters of a description: the first %d and \"...\" (of %d)", codexMaxDesc, codexMaxDesc-3, e.Length)
		case e.Length == 0 || e.Kept == runes(clean):
			e.State = Full
			if chosen.phase == 1 {
				e.Reason = fmt.Sprintf("every line fits: %d of the %d %s", chosen.needFull, budget.Limit, unit)
			} else {
				e.Reason = fmt.Sprintf("descriptions were shortened (the lines need %d %s, over the %d budget), but this one kept all of its characters", chosen.needFull, unit, budget.Limit)
			}
		case e.Kept == 0:
			e.State = NameOnly
			e.Reason = fmt.Sprintf("the lines need %d %s, over the %d budget; the room left after every name and path went to other descriptions first", chosen.needFull, unit, budget.Limit)
		default:
			e.State = Truncated
			e.Reason = fmt.Sprintf("kept %d of %d characters (whitespace collapsed): the lines need %d %s, over the %d budget, and the %d left after every name and path are shared out one character at a time", e.Kept, e.Length, chosen.needFull, unit, budget.Limit, budget.Limit-chosen.needMin)
		}
		if l.idx < len(bundled) {
			cat.Bundled[l.idx] = e
		} else {
			cat.Entries[l.idx-len(bundled)] = e
		}
	}
	used := 0
	for _, l := range chosen.lines {
		used += codexTextCost(budget, l+"\n")
	}
	budget.Used = used
	if len(chosen.roots) > 0 {
		budget.Rule += "; paths written with skill-root aliases, whose table is not charged"
	}
	cat.Budget = &budget
	cat.Blocks = []Block{{Placement: DeveloperMessage, Text: "<skills_instructions>" + codexBody(chosen.roots, chosen.lines) + "</skills_instructions>"}}
	if chosen.omitted > 0 {
		verb := "were"
		if chosen.omitted == 1 {
			verb = "was"
		}
		// the wording of 0.171.0; a budget that only shortens descriptions
		// warns of nothing
		cat.Warnings = append(cat.Warnings, fmt.Sprintf("Exceeded skills context budget. All skill descriptions were removed and %s %s not included in the model-visible skills list.",
			plural(chosen.omitted, "additional skill"), verb))
	}
	warnEntries(&cat, Input{Skills: user})
	return cat
}

// codexSelect is build_available_skills as 0.171.0 behaves: when the
// skills have roots the paths are always written with root aliases (r0,
// r1, …), and the alias table is not charged to the budget; otherwise
// absolute paths.
func codexSelect(budget Budget, in Input) (*codexRender, []*codexLine) {
	order := codexOrder(in.Skills)
	if al, alLines := codexAliased(budget, in, order); al != nil {
		return al, alLines
	}
	abs := make([]*codexLine, len(order))
	for i, j := range order {
		s := in.Skills[j]
		desc, _ := codexDesc(s.Description)
		abs[i] = &codexLine{idx: j, name: s.Name, desc: desc, path: s.Path}
	}
	return codexRenderLines(budget, abs), abs
}

// codexAliased renders the listing with one alias per skills root (r0,
// r1, …) and paths relative to it; nil when no skill has a root.
func codexAliased(b Budget, in Input, order []int) (*codexRender, []*codexLine) {
	roots := in.Roots
	if len(roots) == 0 {
		seen := map[string]bool{}
		for _, s := range in.Skills {
			if s.Root != "" && !seen[s.Root] {
				seen[s.Root] = true
				roots = append(roots, s.Root)
			}
		}
	}
	used := map[string]bool{}
	for _, s := range in.Skills {
		used[s.Root] = true
	}
	alias := map[string]string{}
	var rootLines []string
	for _, r := range roots {
		if !used[r] || alias[r] != "" {
			continue
		}
		alias[r] = fmt.Sprintf("r%d", len(rootLines))
		rootLines = append(rootLines, fmt.Sprintf("- `%s` = `%s`", alias[r], r))
	}
	if len(rootLines) == 0 {
		return nil, nil
	}
	lines := make([]*codexLine, len(order))
	for i, j := range order {
		s := in.Skills[j]
		path := s.Path
		if a := alias[s.Root]; a != "" {
			if rel, ok := strings.CutPrefix(s.Path, strings.TrimRight(s.Root, "/")+"/"); ok {
				path = a + "/" + rel
			}
		}
		desc, _ := codexDesc(s.Description)
		lines[i] = &codexLine{idx: j, name: s.Name, desc: desc, path: path}
	}
	r := codexRenderLines(b, lines)
	r.roots = rootLines
	return r, lines
}

// codexBody is render_available_skills_body, with the fixed paragraphs as
// markers.
func codexBody(rootLines, skillLines []string) string {
	lines := []string{"## Skills"}
	if len(rootLines) == 0 {
		lines = append(lines, Fixed("Codex skills intro (entries give name, description and file path)", codexIntroAbs))
	} else {
		lines = append(lines, Fixed("Codex skills intro (entries give name, description and a short path)", codexIntroAlias), "### Skill roots")
		lines = append(lines, rootLines...)
	}
	lines = append(lines, "### Available skills")
	lines = append(lines, skillLines...)
	// 0.171.0 sends no "How to use skills" section in this block
	return "\n" + strings.Join(lines, "\n") + "\n"
}

// Tool is Codex's shell tool: Codex has no skill tool, the model opens the
// SKILL.md at the listed path itself.
func (codex) Tool(Input) *Tool {
	return &Tool{
		Name:        "shell",
		Description: Fixed("Codex's shell tool description (runs a command and returns its output)", 0),
		Parameters: jsonSchema(map[string]any{
			"type": "object",
			"properties": map[string]any{
				"command":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "The command to execute"},
				"workdir":    map[string]any{"type": "string", "description": "The working directory to execute the command in"},
				"timeout_ms": map[string]any{"type": "number", "description": "The timeout for the command in milliseconds"},
			},
			"required":             []string{"command"},
			"additionalProperties": false,
		}),
	}
}

// Activate: when the model reads the file, the result is the file; when
// the user mentions $name, Codex injects the whole file as a user message
// (SkillInstructions: <skill><name/><path/>contents</skill>).
func (codex) Activate(s Skill, r Request) Activation {
	if r.Mention {
		return Activation{Messages: []Message{{Role: "user", Text: "<skill>\n<name>" + s.Name + "</name>\n<path>" + s.Path + "</path>\n" + s.Source + "\n</skill>"}}}
	}
	return Activation{ToolResult: s.Source, Note: "the shell tool's framing of the output (exit code, timing) is not reproduced"}
}

func (codex) Persistence() Persistence {
	return Persistence{BodyStays: true, CarriedAcrossTurns: false,
		RepeatNote: "none: each read or mention adds the file again",
		Note:       "the rules tell the model not to carry skills across turns unless mentioned again"}
}
