package profile

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"
)

// Gemini CLI's presentation. Sources: google-gemini/gemini-cli
// packages/core/src/prompts/snippets.ts (renderAgentSkills),
// src/tools/definitions (getActivateSkillDeclaration: the name enum),
// src/tools/activate-skill.ts (the <activated_skill> result) and
// src/utils/getFolderStructure.ts (the resources tree, at most 200 items).
const geminiMaxItems = 200

// geminiAgent is the version the profile reproduces.
const geminiAgent = "Gemini CLI core 0.61.0"

// geminiName is loadSkillFromFile's sanitized name: each of : \ / < > * ?
// " | becomes a hyphen.
func geminiName(n string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(`:\/<>*?"|`, r) {
			return '-'
		}
		return r
	}, n)
}

// geminiOrder is the order Gemini CLI reads the skills in: folder by
// folder (Input.Roots, else the order skills name their roots in), and in
// each the order loadSkillsFromDir's glob(['SKILL.md', '*/SKILL.md'])
// returns the skill folders. That glob is asynchronous, so its order is the
// order its file checks finish in: most runs by name, descending, in UTF-16
// code units, whatever the file system's own order (glob 12.0.0, the
// version 0.61.0 pins, on ext4 and tmpfs), but a few names trade places
// from run to run (4 runs of 12 of the conformance set). Skillet gives the
// usual order.
func geminiOrder(in Input) []int {
	rootAt := map[string]int{}
	for i, r := range in.Roots {
		if _, ok := rootAt[r]; !ok {
			rootAt[r] = i
		}
	}
	for _, s := range in.Skills {
		if _, ok := rootAt[s.Root]; !ok {
			rootAt[s.Root] = len(rootAt) + len(in.Roots)
		}
	}
	idx := make([]int, len(in.Skills))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		sa, sb := in.Skills[idx[a]], in.Skills[idx[b]]
		if ra, rb := rootAt[sa.Root], rootAt[sb.Root]; ra != rb {
			return ra < rb
		}
		return jsLess(sb.folder(), sa.folder())
	})
	return idx
}

// jsLess compares strings as JavaScript does: by UTF-16 code units.
func jsLess(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

type geminiCLI struct{}

func (geminiCLI) Name() string { return "gemini-cli" }

// Agent is the version reproduced.
func (geminiCLI) Agent() string      { return geminiAgent }
func (geminiCLI) DefaultWindow() int { return 0 }

// Catalogue lists the skills that have a name, which the agent requires.
func (p geminiCLI) Catalogue(in Input) Catalogue { return requireNames(in, geminiAgent, p.catalogue) }

func (p geminiCLI) catalogue(in Input) Catalogue {
	cat := Catalogue{Profile: p.Name(), Agent: geminiAgent, Entries: make([]Entry, len(in.Skills))}
	warnEntries(&cat, in)
	var xml []string
	item := func(s Skill) string {
		return "  <skill>\n    <name>" + geminiName(s.Name) + "</name>\n    <description>" + s.Description + "</description>\n    <location>" + s.Path + "</location>\n  </skill>"
	}
	// SkillManager.addSkillsWithPrecedence: its own skills first, then
	// the user's; a later skill of the same name replaces the earlier one
	// in its place (a JavaScript Map keeps the first insertion's order)
	bundled := bundledFor(in, geminiBundled, geminiAgent)
	type slot struct {
		s   Skill
		idx int // index in in.Skills, -1 for a bundled skill
	}
	var order []slot
	at := map[string]int{}
	for _, s := range bundled {
		at[geminiName(s.Name)] = len(order)
		order = append(order, slot{s, -1})
	}
	for _, i := range geminiOrder(in) {
		s := in.Skills[i]
		name := geminiName(s.Name)
		if j, ok := at[name]; ok {
			if prev := order[j]; prev.idx >= 0 {
				cat.Entries[prev.idx] = Entry{Name: prev.s.Name, State: Omitted, Length: runes(prev.s.Description),
					Reason: fmt.Sprintf("another skill named %q, read later, overrides it", name), Warning: cat.Entries[prev.idx].Warning}
			}
			order[j] = slot{s, i}
			continue
		}
		at[name] = len(order)
		order = append(order, slot{s, i})
	}
	for rank, sl := range order {
		xml = append(xml, item(sl.s))
		if sl.idx < 0 {
			cat.Bundled = append(cat.Bundled, bundledEntry(sl.s, rank+1, "built into "+geminiAgent+" and listed before the user's skills"))
			continue
		}
		cat.Entries[sl.idx] = Entry{Name: sl.s.Name, State: Full, Kept: runes(sl.s.Description), Length: runes(sl.s.Description), Rank: rank + 1,
			Reason: "Gemini CLI lists every enabled skill under its frontmatter name with its whole description: it has no listing budget", Warning: cat.Entries[sl.idx].Warning}
	}
	if len(xml) == 0 {
		return cat
	}
	cat.Blocks = []Block{{Placement: SystemPrompt, Text: "# Available Agent Skills\n\n" +
		"You have access to the following specialized skills. To activate a skill and receive its detailed instructions, call the `activate_skill` tool with the skill's name.\n\n" +
		"<available_skills>\n" + strings.Join(xml, "\n") + "\n</available_skills>"}}
	return cat
}

func (geminiCLI) Tool(in Input) *Tool {
	var names, quoted []string
	seen := map[string]bool{}
	ordered := bundledFor(in, geminiBundled, geminiAgent)
	for _, i := range geminiOrder(in) {
		ordered = append(ordered, in.Skills[i])
	}
	for _, s := range ordered {
		if n := geminiName(s.Name); !seen[n] {
			seen[n] = true
			names, quoted = append(names, n), append(quoted, "'"+n+"'")
		}
	}
	name := map[string]any{"type": "string", "description": "No skills are currently available."}
	hint := ""
	if len(names) > 0 {
		name = map[string]any{"type": "string", "enum": names, "description": "The name of the skill to activate."}
		hint = " (Available: " + strings.Join(quoted, ", ") + ")"
	}
	return &Tool{
		Name: "activate_skill",
		Description: "Activates a specialized agent skill by name" + hint + ". " +
			Fixed("Gemini CLI's activate_skill description: returns the instructions in <activated_skill> tags; use names exactly as in <available_skills>", 0),
		Parameters: jsonSchema(map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"name": name},
			"required":             []string{"name"},
			"additionalProperties": false,
		}),
	}
}

// Activate renders the activate_skill result: the body in <instructions>
// and the folder tree in <available_resources>.
func (geminiCLI) Activate(s Skill, _ Request) Activation {
	tree := geminiFolderStructure(s.Dir, s.Files)
	return Activation{
		ToolResult: `<activated_skill name="` + s.Name + `">` + "\n  <instructions>\n    " + strings.TrimSpace(s.Body) +
			"\n  </instructions>\n\n  <available_resources>\n    " + tree + "\n  </available_resources>\n</activated_skill>",
		Note: "the tree is built from the skill's file list (empty folders and .gitignore rules are not seen); names sort case-insensitively where Gemini CLI uses localeCompare",
	}
}

type geminiNode struct {
	name      string
	files     []string
	dirs      []*geminiNode
	byName    map[string]*geminiNode
	moreFiles bool
	moreDirs  bool
	ignored   bool
}

func newGeminiNode(name string) *geminiNode {
	return &geminiNode{name: name, byName: map[string]*geminiNode{}}
}

// geminiIgnored are the folders shown but not opened.
var geminiIgnored = map[string]bool{"node_modules": true, ".git": true, "dist": true, "__pycache__": true}

func localeLess(a, b string) bool {
	if la, lb := strings.ToLower(a), strings.ToLower(b); la != lb {
		return la < lb
	}
	return a < b
}

// geminiFolderStructure is getFolderStructure over a file list: a
// breadth-first walk that stops at 200 files and folders, drawn as a tree.
func geminiFolderStructure(dir string, files []string) string {
	full := newGeminiNode("")
	for _, f := range files {
		parts := strings.Split(f, "/")
		n := full
		for _, d := range parts[:len(parts)-1] {
			c := n.byName[d]
			if c == nil {
				c = newGeminiNode(d)
				n.byName[d] = c
				n.dirs = append(n.dirs, c)
			}
			n = c
		}
		n.files = append(n.files, parts[len(parts)-1])
	}
	// the breadth-first read, counting items as readFullStructure does
	root := newGeminiNode("")
	type job struct{ src, dst *geminiNode }
	queue := []job{{full, root}}
	count := 0
	for len(queue) > 0 {
		j := queue[0]
		queue = queue[1:]
		if count >= geminiMaxItems {
			continue
		}
		fs := append([]string(nil), j.src.files...)
		sort.Slice(fs, func(a, b int) bool { return localeLess(fs[a], fs[b]) })
		for _, f := range fs {
			if count >= geminiMaxItems {
				j.dst.moreFiles = true
				break
			}
			j.dst.files = append(j.dst.files, f)
			count++
		}
		ds := append([]*geminiNode(nil), j.src.dirs...)
		sort.Slice(ds, func(a, b int) bool { return localeLess(ds[a].name, ds[b].name) })
		for _, d := range ds {
			if count >= geminiMaxItems {
				j.dst.moreDirs = true
				break
			}
			c := newGeminiNode(d.name)
			j.dst.dirs = append(j.dst.dirs, c)
			count++
			if geminiIgnored[d.name] {
				c.ignored = true
				continue
			}
			queue = append(queue, job{d, c})
		}
	}
	var lines []string
	geminiFormat(root, "", true, true, &lines)
	summary := fmt.Sprintf("Showing up to %d items (files + folders).", geminiMaxItems)
	if geminiTruncated(root) {
		summary += fmt.Sprintf(" Folders or files indicated with ... contain more items not shown, were ignored, or the display limit (%d items) was reached.", geminiMaxItems)
	}
	return summary + "\n\n" + strings.TrimRight(dir, "/") + "/\n" + strings.Join(lines, "\n")
}

func geminiTruncated(n *geminiNode) bool {
	if n.moreFiles || n.moreDirs || n.ignored {
		return true
	}
	for _, d := range n.dirs {
		if geminiTruncated(d) {
			return true
		}
	}
	return false
}

func geminiFormat(n *geminiNode, indent string, last, isRoot bool, out *[]string) {
	conn := "├───"
	if last {
		conn = "└───"
	}
	if !isRoot {
		line := indent + conn + n.name + "/"
		if n.ignored {
			line += "..."
		}
		*out = append(*out, line)
	}
	child := ""
	if !isRoot {
		child = indent + "│   "
		if last {
			child = indent + "    "
		}
	}
	for i, f := range n.files {
		c := "├───"
		if i == len(n.files)-1 && len(n.dirs) == 0 && !n.moreDirs {
			c = "└───"
		}
		*out = append(*out, child+c+f)
	}
	if n.moreFiles {
		c := "├───"
		if len(n.dirs) == 0 && !n.moreDirs {
			c = "└───"
		}
		*out = append(*out, child+c+"...")
	}
	for i, d := range n.dirs {
		geminiFormat(d, child, i == len(n.dirs)-1 && !n.moreDirs, false, out)
	}
	if n.moreDirs {
		*out = append(*out, child+"└───...")
	}
}

func (geminiCLI) Persistence() Persistence {
	return Persistence{BodyStays: true, CarriedAcrossTurns: true, RepeatNote: "none: activating again returns the skill again",
		Note: "activating a skill that is not built in asks the user first, and adds its folder to the workspace"}
}
