package skills

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseFrontmatter checks that no input makes the SKILL.md parser
// panic, and that what it reports is well formed.
func FuzzParseFrontmatter(f *testing.F) {
	seeds := []string{
		skillText("fuzz-skill", "", "# Body\n\nText."),
		"\ufeff" + skillText("fuzz-skill", "", "BOM"),
		strings.ReplaceAll(skillText("fuzz-skill", "license: MIT\n", "CRLF"), "\n", "\r\n"),
		"---\nname: fuzz-skill\ndescription: never closed\n",
		"---\nname: fuzz-skill\x00\n---\n",
		"\x89PNG\r\n\x1a\n\x00\x00",
		"---\nname: fuzz-skill\ndescription: Use when: a colon\n---\n",
		"---\nname: fuzz-skill\ndescription: d\ntools:\n  - name: a\n    version: 2\n  - name: s/t\nexamples:\n  - situation: s\n    resolution: r\n---\nbody",
		"---\nname: fuzz-skill\ndescription: &a d\nmetadata: {version: *a, x: [1]}\n---\n",
		"---\n- a list\n---\n",
		"---\n---\n",
		"",
		"---\nname: [\n---\n",
		"---\nname: fuzz-skill\ndescription: d\nallowed-tools: Bash(a b) , Read\n---\n",
		"---\nname: fuzz-skill\ndescription: d\nmetadata:\n  updated: 2026-03-06\n  v: 1.10\n  b: yes\n  n:\n  t: 2001-12-14t21:59:43.10-05:00\n---\n",
		"---\nname: fuzz-skill\ndescription: d\ntools: Read, Glob, Grep, Bash\n---\n",
		"---\nname: fuzz-skill\ndescription: d\ntools: [Read, {name: x}]\n---\n",
		"---\nname: fuzz-skill\ndescription: d\ncompatibility: \"\"\n---\n",
		"---\nname: fuzz-skill\ndescription: d\ncompatibility:\n---\n" + strings.Repeat("word ", 5000),
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := ParseSkill(data, "fuzz-skill")
		// Validate's strict reading only turns warnings into problems.
		if strict := parseSkill(data, "fuzz-skill", true); strict.Valid() && !s.Valid() {
			t.Fatalf("valid when validated but not when loaded: %v", s.Problems)
		} else if len(strict.Problems)+len(strict.Warnings) != len(s.Problems)+len(s.Warnings) {
			t.Fatalf("strict reading found other things: %v %v, loading %v %v", strict.Problems, strict.Warnings, s.Problems, s.Warnings)
		}
		for _, list := range [][]Problem{s.Problems, s.Warnings} {
			for _, p := range list {
				if p.Field == "" || p.Message == "" {
					t.Fatalf("problem without a field or message: %#v", p)
				}
			}
		}
		if !s.Valid() {
			return
		}
		if s.Name != "fuzz-skill" {
			t.Fatalf("a valid skill has its folder's name, got %q", s.Name)
		}
		if strings.TrimSpace(s.Description) == "" || utf8.RuneCountInString(s.Description) > MaxDescriptionLen {
			t.Fatalf("valid skill with description %q", s.Description)
		}
		if len(s.Examples) > MaxExamples || utf8.RuneCountInString(s.Body) > MaxBodyChars {
			t.Fatalf("valid skill over the R18 limits")
		}
		if s.Body != strings.TrimSpace(s.Body) {
			t.Fatalf("body not trimmed: %q", s.Body)
		}
		for _, ex := range s.Examples {
			if strings.TrimSpace(ex.Situation) == "" || strings.TrimSpace(ex.Resolution) == "" {
				t.Fatalf("valid skill with an empty example: %+v", ex)
			}
		}
		for _, r := range s.Tools {
			if r.Name == "" || r.Version < 0 {
				t.Fatalf("valid skill with tool ref %+v", r)
			}
		}
	})
}

// FuzzParseToolDef checks that no tool file makes the parser panic and
// that a definition without problems is complete.
func FuzzParseToolDef(f *testing.F) {
	for _, s := range []string{
		"name: t\nversion: 1\ndescription: d\nresponse: x\n",
		"name: t\nversion: 2\ndescription: d\nparameters: {type: object, properties: {a: {type: string}}}\ncommand: [echo, hi]\ntimeout: 5s\n",
		"name: t\nversion: 1\ndescription: d\nmcp: {server: s, tool: t}\n",
		"? [a]\n: b\n",
		"parameters: {type: object, properties: {a: {$ref: '#/x'}}}\n",
		"name: t\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		def, probs := ParseToolDef(data, "")
		for _, p := range probs {
			if p.Field == "" || p.Message == "" {
				t.Fatalf("problem without a field or message: %#v", p)
			}
		}
		if len(probs) > 0 {
			return
		}
		if def.Name == "" || def.Version < 1 || def.Description == "" || def.Kind == "" || !json.Valid(def.Parameters) {
			t.Fatalf("valid definition is incomplete: %+v", def)
		}
	})
}
