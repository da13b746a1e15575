package profile

import (
	"fmt"
	"strings"
	"testing"
)

func manyFiles(n int) []string {
	out := []string{"SKILL.md"}
	for i := range n {
		out = append(out, fmt.Sprintf("refs/f%03d.md", i))
	}
	return out
}

// Gemini CLI's tree stops at 200 files and folders and says so.
func TestGeminiTreeLimit(t *testing.T) {
	at := geminiFolderStructure("/s", manyFiles(198)) // SKILL.md, refs/ and 198 files = 200
	if strings.Contains(at, "...") || strings.Count(at, "f1") != 98 {
		t.Errorf("200 items shown whole:\n%s", at)
	}
	over := geminiFolderStructure("/s", manyFiles(199))
	if !strings.Contains(over, "display limit (200 items) was reached") || !strings.HasSuffix(over, "    └───...") {
		t.Errorf("201 items:\n%s", over[len(over)-200:])
	}
	ign := geminiFolderStructure("/s", []string{"SKILL.md", "node_modules/x/y.js"})
	if !strings.Contains(ign, "└───node_modules/...") || strings.Contains(ign, "y.js") {
		t.Errorf("ignored folder:\n%s", ign)
	}
}

// Crush's view returns 200 lines of at most 2,000 bytes, then says how to
// read on; the empty line after a final newline is numbered.
func TestCrushViewLimits(t *testing.T) {
	lines := make([]string, 201)
	for i := range lines {
		lines[i] = "x"
	}
	lines[0] = strings.Repeat("y", 2001)
	out := crushView(strings.Join(lines, "\n") + "\n")
	if !strings.Contains(out, "     1|"+strings.Repeat("y", 2000)+"...\n") || strings.Contains(out, "   201|") ||
		!strings.HasSuffix(out, "   200|x\n\n(File has more lines. Use 'offset' parameter to read beyond line 200)\n</file>\n") {
		t.Errorf("view of 201 lines ends %q", out[len(out)-120:])
	}
	if got := crushView("one\r\ntwo\n"); got != "<file>\n     1|one\n     2|two\n     3|\n</file>\n" {
		t.Errorf("view = %q", got)
	}
}

func TestOpencodeSamplesTenFiles(t *testing.T) {
	s := Skill{Name: "many", Dir: "/s/many", Body: "Body.", Files: manyFiles(12)}
	out := opencode{}.Activate(s, Request{}).ToolResult
	if n := strings.Count(out, "<file>"); n != 10 || strings.Contains(out, "SKILL.md</file>") || !strings.Contains(out, "<file>/s/many/refs/f000.md</file>") {
		t.Errorf("%d files:\n%s", n, out)
	}
}

func TestActivationTools(t *testing.T) {
	in := Input{Skills: []Skill{sk("one", "d"), sk("two", "d")}, NoBundled: true}
	// in Gemini CLI's read order: by folder, descending
	if tl := (geminiCLI{}).Tool(in); !strings.Contains(string(tl.Parameters), `"enum":["two","one"]`) || !strings.Contains(tl.Description, "(Available: 'two', 'one')") {
		t.Errorf("gemini tool %s: %s", tl.Description, tl.Parameters)
	}
	if tl := (geminiCLI{}).Tool(Input{NoBundled: true}); strings.Contains(string(tl.Parameters), "enum") {
		t.Errorf("no skills, still an enum: %s", tl.Parameters)
	}
	// opencode's skill tool does not list the skills: the system prompt does
	if empty, full := (opencode{}).Tool(Input{}), (opencode{}).Tool(in); empty.Description != full.Description || strings.Contains(full.Description, "one") {
		t.Errorf("opencode's tool description depends on the skills: %q, %q", empty.Description, full.Description)
	}
	if tl := (skillet{}).Tool(Input{}); tl != nil {
		t.Errorf("skillet without an engine list has a tool: %+v", tl)
	}
	for _, p := range []Profile{claudeCode{}, codex{}, crush{}} {
		if tl := p.Tool(in); tl == nil || len(tl.Parameters) == 0 {
			t.Errorf("%s: tool %+v", p.Name(), tl)
		}
	}
}

// Empty input: no blocks, no entries, no panic.
func TestEmptyCatalogues(t *testing.T) {
	for _, p := range All() {
		c := p.Catalogue(Input{Engine: &EngineList{}, NoBundled: true})
		if len(c.Blocks) != 0 || len(c.Entries) != 0 {
			t.Errorf("%s: %d blocks, %d entries", p.Name(), len(c.Blocks), len(c.Entries))
		}
	}
}

// Gemini CLI keeps one skill per name, the last read, in the place of the
// first; a user skill so replaces a built-in one at the top. Names lose
// the characters a file name cannot hold.
func TestGeminiPrecedence(t *testing.T) {
	in := Input{Skills: []Skill{sk("alpha", "first alpha"), sk("skill-creator", "mine"), sk("a:b", "colon"), sk("alpha", "second alpha")}}
	c := geminiCLI{}.Catalogue(in)
	text := c.Blocks[0].Text
	order := []string{"<name>skill-creator</name>\n    <description>mine</description>", "<name>antigravity-support</name>", "<name>alpha</name>\n    <description>second alpha</description>", "<name>a-b</name>"}
	last := -1
	for _, want := range order {
		i := strings.Index(text, want)
		if i <= last {
			t.Fatalf("%q not after the previous entry:\n%s", want, text)
		}
		last = i
	}
	if strings.Contains(text, "first alpha") || c.Entries[0].State != Omitted || !strings.Contains(c.Entries[0].Reason, "overrides it") {
		t.Errorf("the first alpha: %+v", c.Entries[0])
	}
	if len(c.Bundled) != 1 || c.Bundled[0].Name != "antigravity-support" {
		t.Errorf("bundled %+v, want antigravity-support only", c.Bundled)
	}
}

// A skill without a name: Claude Code and Codex list it under its folder's
// name (measured), opencode, Gemini CLI and Crush skip it, saying why, and
// Skillet leaves it out as invalid.
func TestSkillWithoutName(t *testing.T) {
	s := sk("no-name", "A skill without a name.")
	s.Breaches = []Breach{{Rule: BreachNameMissing, Message: "name: missing required field"}}
	in := Input{Skills: []Skill{sk("alpha", "a"), s}, NoBundled: true, Engine: &EngineList{Offered: []string{"alpha"}}}
	for _, p := range All() {
		c := p.Catalogue(in)
		e := c.Entries[1]
		listed := e.State != Omitted
		want := p.Name() == "claude-code" || p.Name() == "codex"
		if listed != want || c.Entries[0].State == Omitted || e.Warning == "" {
			t.Errorf("%s: %+v (alpha %s), want listed %v with the spec's warning", p.Name(), e, c.Entries[0].State, want)
		}
		if !want && p.Name() != "skillet" && !strings.Contains(e.Reason, "name") {
			t.Errorf("%s: reason %q does not say a name is needed", p.Name(), e.Reason)
		}
	}
}
