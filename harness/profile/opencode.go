package profile

import (
	"sort"
	"strings"
)

// opencode's presentation. Sources: anomalyco/opencode
// packages/opencode/src/skill/index.ts (Skill.fmt, verbose; `available`
// sorts by name), src/session/system.ts (the two sentences and the list
// in the system prompt) and src/tool/skill.ts (the <skill_content>
// result, at most 10 files). Measured on 1.18.33: the skill tool's
// description is fixed text without the list, and <location> and the
// base directory are plain paths.
const opencodeFileSample = 10

// opencodeAgent is the version the profile reproduces.
const opencodeAgent = "opencode 1.18.33"

type opencode struct{}

func (opencode) Name() string { return "opencode" }

// Agent is the version reproduced.
func (opencode) Agent() string      { return opencodeAgent }
func (opencode) DefaultWindow() int { return 0 }

// opencodeOrder is name.localeCompare order, approximated by comparing
// case-insensitively, then by bytes.
func opencodeOrder(skills []Skill) []int {
	idx := make([]int, len(skills))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return localeLess(skills[idx[a]].Name, skills[idx[b]].Name) })
	return idx
}

// Catalogue lists the skills that have a name, which the agent requires.
func (p opencode) Catalogue(in Input) Catalogue { return requireNames(in, opencodeAgent, p.catalogue) }

func (p opencode) catalogue(in Input) Catalogue {
	cat := Catalogue{Profile: p.Name(), Agent: opencodeAgent, Entries: make([]Entry, len(in.Skills))}
	defer warnEntries(&cat, in)
	// the bundled skill sorts among the user's by name
	bundled := bundledFor(in, opencodeBundled, opencodeAgent)
	all := append(append([]Skill(nil), in.Skills...), bundled...)
	var verbose []string
	for rank, i := range opencodeOrder(all) {
		s := all[i]
		if s.Description == "" {
			cat.Entries[i] = omitted(s.Name, "", "opencode lists only skills with a description")
			continue
		}
		// nothing is escaped (measured: a description's "<tag> &" is sent
		// as it is)
		verbose = append(verbose, "  <skill>", "    <name>"+s.Name+"</name>", "    <description>"+s.Description+"</description>",
			"    <location>"+s.Path+"</location>", "  </skill>")
		if i >= len(in.Skills) {
			cat.Bundled = append(cat.Bundled, bundledEntry(s, rank+1, "built into "+opencodeAgent+" and listed among the user's skills by name"))
			continue
		}
		cat.Entries[i] = Entry{Name: s.Name, State: Full, Kept: runes(s.Description), Length: runes(s.Description), Rank: rank + 1,
			Reason: "opencode lists every skill under its frontmatter name with its whole description in the system prompt: it has no listing budget"}
	}
	if len(verbose) == 0 {
		return cat
	}
	system := []string{
		"Skills provide specialized instructions and workflows for specific tasks.",
		"Use the skill tool to load a skill when a task matches its description.",
		"<available_skills>",
	}
	system = append(append(system, verbose...), "</available_skills>")
	cat.Blocks = []Block{{Placement: SystemPrompt, Text: strings.Join(system, "\n")}}
	return cat
}

// Tool is the skill tool, whose description (1.18.33) is fixed text that
// does not list the skills: the system prompt does.
func (p opencode) Tool(in Input) *Tool {
	return &Tool{
		Name:        "skill",
		Description: Fixed("opencode's skill tool description: load a skill listed in the system prompt by name; the output is a <skill_content> block", 399),
		Parameters: jsonSchema(map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name": map[string]any{"type": "string", "description": "The name of the skill from available_skills"},
			},
			"required":             []string{"name"},
			"additionalProperties": false,
		}),
	}
}

// Activate renders the skill tool's output: the body, the base directory
// as a file URL, and up to ten of the folder's other files.
func (opencode) Activate(s Skill, _ Request) Activation {
	files := sortedFiles(s.Files, func(f string) bool { return strings.Contains(f, "SKILL.md") })
	if len(files) > opencodeFileSample {
		files = files[:opencodeFileSample]
	}
	listed := make([]string, len(files))
	for i, f := range files {
		listed[i] = "<file>" + joinPath(s.Dir, f) + "</file>"
	}
	out := []string{
		`<skill_content name="` + s.Name + `">`,
		"# Skill: " + s.Name,
		"",
		strings.TrimSpace(s.Body),
		"",
		"Base directory for this skill: " + s.Dir,
		"Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.",
		"Note: file list is sampled.",
		"",
		"<skill_files>",
		strings.Join(listed, "\n"),
		"</skill_files>",
		"</skill_content>",
	}
	return Activation{ToolResult: strings.Join(out, "\n"), Note: "opencode samples files in ripgrep's order; here they are the first ten by name"}
}

func (opencode) Persistence() Persistence {
	return Persistence{BodyStays: true, CarriedAcrossTurns: true, RepeatNote: "none: each call returns the content again"}
}
