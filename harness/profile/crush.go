package profile

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Crush's presentation. Sources: charmbracelet/crush internal/skills/skills.go
// (ToPromptXML, FormatInvocation, the discovery sort, the 1,024-byte
// description check), internal/agent/templates/coder.md.tpl (where the
// list and its <skills_usage> rules go, critical rule 14) and
// internal/agent/tools/view.go (what `view` returns).
const (
	crushMaxDescBytes = 1024 // MaxDescriptionLength, checked in bytes
	crushViewLines    = 200  // the view tool's default limit, measured on 37f36e93
	crushLineMax      = 2000 // MaxLineLength
)

// crushEscape is Crush's promptReplacer.
var crushEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&quot;", "'", "&apos;")

// crushAgent is the version the profile reproduces.
const crushAgent = "Crush 37f36e93"

// crushName is Crush's namePattern: letters of either case, digits and
// single hyphens.
var crushName = regexp.MustCompile(`^[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*$`)

// crushRefuses is why Crush's Parse or Validate rejects a skill, "" when
// it lists it: a metadata value that is not a string fails the YAML
// decoding into map[string]string; the name must match the folder (case
// aside) and its pattern; the description must be at most 1,024 bytes.
func crushRefuses(s Skill) string {
	if b, ok := s.breaks(BreachMetadataValue); ok {
		return "Crush cannot read its frontmatter (metadata must map strings to strings): " + b.Message
	}
	if _, missing := s.breaks(BreachNameMissing); missing {
		return "Crush rejects it: name is required"
	}
	var why []string
	if !strings.EqualFold(s.Name, s.folder()) {
		why = append(why, fmt.Sprintf("name %q must match directory %q", s.Name, s.folder()))
	}
	if len(s.Name) > 64 || !crushName.MatchString(s.Name) {
		why = append(why, fmt.Sprintf("name %q must be at most 64 letters, digits and single hyphens", s.Name))
	}
	if d := crushDescription(s); len(d) > crushMaxDescBytes {
		why = append(why, fmt.Sprintf("a description over %d bytes (this one has %d)", crushMaxDescBytes, len(d)))
	}
	if len(why) == 0 {
		return ""
	}
	return "Crush rejects it: " + strings.Join(why, "; ")
}

// crushDescription is the description as Crush reads it. Crush's
// splitFrontmatter joins the frontmatter's lines without a final newline,
// so a block scalar that ends the frontmatter loses one line break, which
// Skillet's parser keeps; one followed by another key or a blank line
// keeps it in both.
func crushDescription(s Skill) string {
	if s.DescriptionAtEnd {
		return strings.TrimSuffix(s.Description, "\n")
	}
	return s.Description
}

type crush struct{}

func (crush) Name() string { return "crush" }

// Agent is the version reproduced.
func (crush) Agent() string      { return crushAgent }
func (crush) DefaultWindow() int { return 0 }

func (p crush) Catalogue(in Input) Catalogue {
	cat := Catalogue{Profile: p.Name(), Agent: crushAgent, Entries: make([]Entry, len(in.Skills))}
	defer warnEntries(&cat, in)
	// the builtin skills come first, with <type>builtin</type>; a user
	// skill of the same name replaces one (Deduplicate keeps the last)
	var b strings.Builder
	listed := 0
	entry := func(s Skill, builtin bool) {
		if listed == 0 {
			b.WriteString("<available_skills>\n")
		}
		listed++
		// a block that ends the frontmatter loses its final newline (see
		// crushDescription); a builtin skill's placeholder is already of
		// the escaped length
		desc := crushEscape.Replace(crushDescription(s))
		if builtin {
			desc = s.Description
		}
		fmt.Fprintf(&b, "  <skill>\n    <name>%s</name>\n    <description>%s</description>\n    <location>%s</location>\n",
			crushEscape.Replace(s.Name), desc, crushEscape.Replace(s.Path))
		if builtin {
			b.WriteString("    <type>builtin</type>\n")
		}
		b.WriteString("  </skill>\n")
	}
	for i, s := range bundledFor(in, crushBundled, crushAgent) {
		entry(s, true)
		cat.Bundled = append(cat.Bundled, bundledEntry(s, i+1, "built into "+crushAgent+" and listed before the user's skills"))
	}
	// discovery sorts by folder, then name, both case-insensitively
	idx := make([]int, len(in.Skills))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		sa, sb := in.Skills[idx[a]], in.Skills[idx[b]]
		if c := strings.Compare(strings.ToLower(sa.Dir), strings.ToLower(sb.Dir)); c != 0 {
			return c < 0
		}
		return strings.ToLower(sa.Name) < strings.ToLower(sb.Name)
	})
	for rank, i := range idx {
		s := in.Skills[i]
		switch {
		case s.DisableModelInvocation:
			cat.Entries[i] = omitted(s.Name, s.Description, "disable-model-invocation: Crush leaves it out of <available_skills>")
			continue
		case crushRefuses(s) != "":
			cat.Entries[i] = omitted(s.Name, s.Description, crushRefuses(s))
			continue
		}
		entry(s, false)
		cat.Entries[i] = Entry{Name: s.Name, State: Full, Kept: runes(s.Description), Length: runes(s.Description), Rank: len(cat.Bundled) + rank + 1,
			Reason: "Crush lists every skill with its whole description: it has no listing budget"}
	}
	if listed == 0 {
		return cat
	}
	b.WriteString("</available_skills>")
	text := b.String() + "\n\n<skills_usage>\n" + Fixed("Crush's mandatory activation flow: match a <description>, call view on its <location> before anything else, read the whole SKILL.md, then do the task", 0) + "\n</skills_usage>"
	cat.Blocks = []Block{
		{Placement: SystemPrompt, Text: text},
		{Placement: SystemPrompt, Text: "<critical_rules>\n14. " + Fixed("Crush's rule \"LOAD MATCHING SKILLS\": view a matching skill's <location> before any other action", 0) + "\n</critical_rules>"},
	}
	return cat
}

func (crush) Tool(Input) *Tool {
	return &Tool{
		Name:        "view",
		Description: Fixed("Crush's view tool description (read a file with line numbers, offset and limit)", 0),
		Parameters: jsonSchema(map[string]any{
			"type": "object",
			"properties": map[string]any{
				"file_path": map[string]any{"type": "string", "description": "The path to the file to read"},
				"offset":    map[string]any{"type": "integer", "description": "The line number to start reading from (0-based)"},
				"limit":     map[string]any{"type": "integer", "description": "The number of lines to read (defaults to 200)"},
			},
			"required": []string{"file_path"},
		}),
	}
}

// Activate: the model views the SKILL.md and gets the file with line
// numbers. A skill the user picks is attached to the prompt as a file
// (37f36e93: attachSkill, then PromptWithTextAttachments), its SKILL.md
// under the skill's name.
func (crush) Activate(s Skill, r Request) Activation {
	if r.Mention {
		return Activation{Messages: []Message{{Role: "user", Text: "\n<system_info>The files below have been attached by the user, consider them in your response</system_info>\n" +
			"<file path='" + s.Name + "'>\n\n" + s.Source + "\n</file>\n"}},
			Note: "Crush appends the attachment to the user's own prompt; here it is a message of its own"}
	}
	return Activation{ToolResult: crushView(s.Source), Note: "LSP diagnostics Crush may append are not reproduced"}
}

// crushView is what `view` returns for a whole file: at most 200 lines,
// each cut at 2,000 bytes, numbered in a six-wide column; a file ending in
// a newline shows the empty line after it, numbered too.
func crushView(content string) string {
	content = strings.ReplaceAll(content, "\r\n", "\n")
	all := strings.Split(content, "\n")
	if content == "" {
		all = nil
	}
	shown := all
	if len(shown) > crushViewLines {
		shown = shown[:crushViewLines]
	}
	var b strings.Builder
	b.WriteString("<file>\n")
	for i, line := range shown {
		if len(line) > crushLineMax {
			line = line[:crushLineMax] + "..."
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%6d|%s", i+1, line)
	}
	if len(all) > len(shown) {
		fmt.Fprintf(&b, "\n\n(File has more lines. Use 'offset' parameter to read beyond line %d)", len(shown))
	}
	b.WriteString("\n</file>\n")
	return b.String()
}

func (crush) Persistence() Persistence {
	return Persistence{BodyStays: true, CarriedAcrossTurns: true, RepeatNote: "none: viewing it again adds the file again",
		Note: "Crush marks a skill loaded when its SKILL.md is viewed"}
}
