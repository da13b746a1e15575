package skills

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// fields lists the Field of each problem, in order.
func fields(ps []Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Field
	}
	return out
}

func hasField(ps []Problem, field string) bool { return slices.Contains(fields(ps), field) }

func mustValid(t *testing.T, s *Skill) {
	t.Helper()
	if !s.Valid() {
		t.Fatalf("want a valid skill, got problems %v", s.Problems)
	}
}

func TestParseSkill_AllFields(t *testing.T) {
	src := `---
name: account-review
description: Review account activity. Use when asked to review an account.
license: MIT
compatibility: Needs network access.
allowed-tools: Bash(git add:*) Read Grep
metadata:
  version: "2"
  author: someone
tools:
  - name: get_account_activity
    version: 1
  - name: files/read_file
examples:
  - situation: A page of activity failed to load.
    resolution: Mark the review incomplete.
    reason: A partial read is not evidence that the rest was clean.
---

# Account review

Do the thing.
`
	s := ParseSkill([]byte(src), "account-review")
	mustValid(t, s)
	if len(s.Warnings) != 0 {
		t.Errorf("want no warnings, got %v", s.Warnings)
	}
	if s.Name != "account-review" || s.License != "MIT" || s.Compatibility != "Needs network access." {
		t.Errorf("scalar fields: %+v", s)
	}
	if s.Version != "2" || s.Metadata["author"] != "someone" {
		t.Errorf("metadata: version %q, %v", s.Version, s.Metadata)
	}
	if want := []string{"Bash(git add:*)", "Read", "Grep"}; !slices.Equal(s.AllowedTools, want) {
		t.Errorf("allowed-tools = %q, want %q", s.AllowedTools, want)
	}
	if want := []ToolRef{{Name: "get_account_activity", Version: 1}, {Name: "files/read_file"}}; !slices.Equal(s.Tools, want) {
		t.Errorf("tools = %v, want %v", s.Tools, want)
	}
	if len(s.Examples) != 1 || s.Examples[0].Reason == "" {
		t.Errorf("examples = %+v", s.Examples)
	}
	if s.Body != "# Account review\n\nDo the thing." {
		t.Errorf("body = %q", s.Body)
	}
}

func TestParseSkill_BOMAndCRLF(t *testing.T) {
	src := "\ufeff---\r\nname: crlf\r\ndescription: Works with CRLF. Use when testing.\r\n---\r\nLine one.\r\nLine two.\r\n"
	s := ParseSkill([]byte(src), "crlf")
	mustValid(t, s)
	if s.Description != "Works with CRLF. Use when testing." {
		t.Errorf("description = %q", s.Description)
	}
	if s.Body != "Line one.\nLine two." {
		t.Errorf("body = %q", s.Body)
	}
}

func TestParseSkill_FenceIsAWholeLine(t *testing.T) {
	// A "---" inside a value or a longer dash line does not close the
	// frontmatter, unlike the reference validator's split on "---".
	src := "---\nname: dashes\ndescription: Before --- after. Use when testing.\nnotes: |\n  ---\n  ----\n---  \nBody --- text.\n"
	s := ParseSkill([]byte(src), "dashes")
	if hasField(s.Problems, "frontmatter") {
		t.Fatalf("unexpected frontmatter problem: %v", s.Problems)
	}
	if s.Description != "Before --- after. Use when testing." {
		t.Errorf("description = %q", s.Description)
	}
	if s.Body != "Body --- text." {
		t.Errorf("body = %q", s.Body)
	}
}

func TestParseSkill_FrontmatterErrors(t *testing.T) {
	cases := map[string]struct {
		src, field, msg string
	}{
		"no opening fence":  {"# Title\n---\nname: x\n---\n", "frontmatter", "must start with"},
		"dashes then text":  {"---x\nname: x\n---\n", "frontmatter", "must start with"},
		"blank line first":  {"\n---\nname: x\n---\n", "frontmatter", "must start with"},
		"missing close":     {"---\nname: x\ndescription: y\n", "frontmatter", "not closed"},
		"only opening":      {"---", "frontmatter", "not closed"},
		"bad yaml":          {"---\nname: x\ndescription: [unclosed\n---\n", "frontmatter", "invalid YAML: line"},
		"not a mapping":     {"---\n- a\n- b\n---\n", "frontmatter", "must be a YAML mapping"},
		"empty frontmatter": {"---\n---\nbody\n", "name", "missing required field"},
		"duplicate key":     {"---\nname: x\nname: x\ndescription: d\n---\n", "name", "defined twice"},
		"binary":            {"---\nname: x\x00\n---\n", "file", "NUL byte at offset 11"},
		"not utf-8":         {"---\nname: \xff\xfe\n---\n", "file", "not valid UTF-8 (first bad byte at offset 10)"},
		"empty":             {"", "file", "file is empty"},
		"only whitespace":   {" \n\t\n", "file", "file is empty"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			s := ParseSkill([]byte(c.src), "x")
			if s.Valid() {
				t.Fatalf("want invalid")
			}
			found := false
			for _, p := range s.Problems {
				if p.Field == c.field && strings.Contains(p.Message, c.msg) {
					found = true
				}
			}
			if !found {
				t.Errorf("want a %q problem containing %q, got %v", c.field, c.msg, s.Problems)
			}
		})
	}
}

func TestParseSkill_YAMLErrorNamesFileLine(t *testing.T) {
	// Line 4 of the frontmatter is line 5 of the file.
	src := "---\nname: x\ndescription: ok\nmetadata:\n  k: a: b\n---\n"
	s := ParseSkill([]byte(src), "x")
	if len(s.Problems) != 1 || s.Problems[0].Message != `invalid YAML: line 5 of the file, "  k: a: b": mapping values are not allowed in this context` {
		t.Fatalf("problems = %v", s.Problems)
	}
}

func TestParseSkill_UnclosedBracketNamesTheLineThatOpensIt(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"---\nname: x\ndescription: ok\nallowed-tools: [Read, Grep\nlicense: MIT\n---\n",
			`invalid YAML: line 4 of the file, "allowed-tools: [Read, Grep": did not find expected ',' or ']': the [ opened on this line is never closed`},
		{"---\nname: x\ndescription: {ok\nlicense: MIT\n---\n",
			`invalid YAML: line 3 of the file, "description: {ok": did not find expected ',' or '}': the { opened on this line is never closed`},
		{"---\nallowed-tools: [Read, Grep\nname: x\ndescription: ok\n---\n",
			`invalid YAML: line 2 of the file, "allowed-tools: [Read, Grep": did not find expected ',' or ']': the [ opened on this line is never closed`},
		{"---\nname: x\ndescription: \"a [quoted bracket\"\nmetadata:\n  tags: [a,\n    b\n---\n",
			`invalid YAML: line 5 of the file, "  tags: [a,": did not find expected ',' or ']': the [ opened on this line is never closed`},
	} {
		s := ParseSkill([]byte(c.src), "x")
		if len(s.Problems) != 1 || s.Problems[0].Message != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.src, s.Problems, c.want)
		}
	}
}

func TestParseSkill_NameRules(t *testing.T) {
	cases := []struct {
		name, folder, msg string
	}{
		{"My-Skill", "My-Skill", "must be lowercase"},
		{"-skill", "-skill", "must not start or end with a hyphen"},
		{"skill-", "skill-", "must not start or end with a hyphen"},
		{"my--skill", "my--skill", "consecutive hyphens"},
		{"my_skill", "my_skill", "holds characters other than"},
		{"навык", "навык", "holds characters other than"},
		{strings.Repeat("a", 65), strings.Repeat("a", 65), "over the 64 limit"},
		{"vercel-react", "react", `does not match the folder name "react"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ParseSkill(fmt.Appendf(nil, "---\nname: %s\ndescription: d\n---\n", c.name), c.folder)
			var msgs []string
			for _, p := range s.Problems {
				if p.Field == "name" {
					msgs = append(msgs, p.Message)
				}
			}
			if !strings.Contains(strings.Join(msgs, "|"), c.msg) {
				t.Errorf("name problems %q do not contain %q", msgs, c.msg)
			}
		})
	}
	// Every rule broken is reported, not only the first.
	all := ParseSkill([]byte("---\nname: -Bad--na_me\ndescription: d\n---\n"), "-Bad--na_me")
	if len(all.Problems) != 4 {
		t.Errorf("want lowercase, hyphen, consecutive hyphens and characters: %v", all.Problems)
	}
	ok := ParseSkill([]byte("---\nname: a1-b2-c3\ndescription: d\n---\n"), "a1-b2-c3")
	mustValid(t, ok)
	long := strings.Repeat("a", 64)
	mustValid(t, ParseSkill(fmt.Appendf(nil, "---\nname: %s\ndescription: d\n---\n", long), long))
}

func TestParseSkill_TypesAreChecked(t *testing.T) {
	src := `---
name: 123
description: [a, b]
license: true
compatibility: 1.5
metadata:
  version: 2
  tags: [a, b]
  author: me
---
`
	s := ParseSkill([]byte(src), "123")
	// A metadata scalar keeps its source text (the reference validator's
	// reading), with a warning when YAML types it otherwise.
	want := []string{"name", "description", "license", "compatibility", "metadata.tags"}
	if got := fields(s.Problems); !slices.Equal(got, want) {
		t.Fatalf("problem fields = %q, want %q (%v)", got, want, s.Problems)
	}
	if s.Metadata["version"] != "2" || !hasField(s.Warnings, "metadata.version") {
		t.Errorf("metadata.version: %q, warnings %v", s.Metadata["version"], s.Warnings)
	}
	if !strings.Contains(s.Problems[0].Message, `not the number "123" (quote it)`) {
		t.Errorf("name message = %q", s.Problems[0].Message)
	}
	if s.Metadata["author"] != "me" {
		t.Errorf("the valid metadata keys are still read: %v", s.Metadata)
	}
	bad := ParseSkill([]byte("---\nname: x\ndescription: d\nmetadata: [a]\n---\n"), "x")
	if !hasField(bad.Problems, "metadata") {
		t.Errorf("metadata as a list: %v", bad.Problems)
	}
}

func TestParseSkill_MissingRequiredFields(t *testing.T) {
	s := ParseSkill([]byte("---\nlicense: MIT\n---\nBody\n"), "folder")
	if got := fields(s.Problems); !slices.Equal(got, []string{"name", "description"}) {
		t.Fatalf("problems = %v", s.Problems)
	}
	if s.Name != "folder" {
		t.Errorf("a skill without a name is known by its folder, got %q", s.Name)
	}
	empty := ParseSkill([]byte("---\nname: x\ndescription: \"  \"\n---\n"), "x")
	if !hasField(empty.Problems, "description") {
		t.Errorf("blank description: %v", empty.Problems)
	}
}

func TestParseSkill_LengthsCountRunes(t *testing.T) {
	desc := func(n int) []byte {
		return fmt.Appendf(nil, "---\nname: x\ndescription: %s\n---\n", strings.Repeat("é", n))
	}
	mustValid(t, ParseSkill(desc(1024), "x"))
	s := ParseSkill(desc(1025), "x")
	if len(s.Problems) != 1 || s.Problems[0].Field != "description" || !strings.Contains(s.Problems[0].Message, "1025 characters") {
		t.Errorf("problems = %v", s.Problems)
	}
	compat := func(n int) []byte {
		return fmt.Appendf(nil, "---\nname: x\ndescription: d\ncompatibility: %s\n---\n", strings.Repeat("ü", n))
	}
	mustValid(t, ParseSkill(compat(500), "x"))
	if s := ParseSkill(compat(501), "x"); !hasField(s.Problems, "compatibility") {
		t.Errorf("compatibility 501: %v", s.Problems)
	}
}

func TestParseSkill_AllowedTools(t *testing.T) {
	cases := []struct {
		value string
		want  []string
		warn  bool
	}{
		{"Read Grep", []string{"Read", "Grep"}, false},
		{"Bash(git:*) Bash(jq:*) Read", []string{"Bash(git:*)", "Bash(jq:*)", "Read"}, false},
		{"Read, Grep, Glob, Bash, Task", []string{"Read", "Grep", "Glob", "Bash", "Task"}, true},
		{"[Read, Grep]", []string{"Read", "Grep"}, true},
	}
	for _, c := range cases {
		s := ParseSkill(fmt.Appendf(nil, "---\nname: x\ndescription: d\nallowed-tools: %s\n---\n", c.value), "x")
		mustValid(t, s)
		if !slices.Equal(s.AllowedTools, c.want) {
			t.Errorf("%q: got %q, want %q", c.value, s.AllowedTools, c.want)
		}
		if got := hasField(s.Warnings, "allowed-tools"); got != c.warn {
			t.Errorf("%q: warning %v, want %v (%v)", c.value, got, c.warn, s.Warnings)
		}
	}
}

func TestParseSkill_UnknownKeysAreWarnings(t *testing.T) {
	src := "---\nname: x\ndescription: d\ndisable-model-invocation: true\nhooks:\n  pre: [a]\n---\n"
	s := ParseSkill([]byte(src), "x")
	mustValid(t, s)
	if got := fields(s.Warnings); !slices.Equal(got, []string{"disable-model-invocation", "hooks"}) {
		t.Errorf("warnings = %v", s.Warnings)
	}
	if s.Extra["disable-model-invocation"] != "true" || !strings.Contains(s.Extra["hooks"], "pre:") {
		t.Errorf("extra = %q", s.Extra)
	}
}

func TestParseSkill_ToolRefs(t *testing.T) {
	src := `---
name: x
description: d
tools:
  - name: ok_tool
  - name: pinned
    version: 3
  - name: zero
    version: 0
  - name: quoted
    version: "1"
  - name: bad name
  - name: srv/tool
    version: 2
  - name: ok_tool
  - verison: 1
    name: typo
  - just-a-string
  - version: 1
---
`
	s := ParseSkill([]byte(src), "x")
	want := []string{"tools[2].version", "tools[3].version", "tools[4].name", "tools[5].name", "tools[6].name",
		"tools[7].verison", "tools[8]", "tools[9].name"}
	if got := fields(s.Problems); !slices.Equal(got, want) {
		t.Fatalf("problem fields = %q\nwant %q\n%v", got, want, s.Problems)
	}
	if wantRefs := []ToolRef{{Name: "ok_tool"}, {Name: "pinned", Version: 3}}; !slices.Equal(s.Tools, wantRefs) {
		t.Errorf("tools = %v", s.Tools)
	}
}

// TestParseSkill_ForeignTools checks that another agent's tools value
// (a string, a list of names, a map) leaves a spec-valid skill valid.
func TestParseSkill_ForeignTools(t *testing.T) {
	for _, value := range []string{"Read, Glob, Grep, Bash", "ok_tool", "[Read, Grep]", "\n  - Read\n  - Grep", "{Read: true}", "42"} {
		for _, strict := range []bool{false, true} {
			s := parseSkill(fmt.Appendf(nil, "---\nname: x\ndescription: d\ntools: %s\n---\n", value), "x", strict)
			mustValid(t, s)
			if len(s.Tools) != 0 || !hasField(s.Warnings, "tools") || s.Extra["tools"] == "" {
				t.Errorf("tools: %q (strict %v): tools %v, warnings %v, extra %q", value, strict, s.Tools, s.Warnings, s.Extra)
			}
		}
	}
	// An empty list is Skillet's form, with nothing in it.
	if s := ParseSkill([]byte("---\nname: x\ndescription: d\ntools: []\n---\n"), "x"); len(s.Warnings)+len(s.Problems) != 0 {
		t.Errorf("tools: []: %v %v", s.Problems, s.Warnings)
	}
}

func TestR18_AtMost20Examples(t *testing.T) {
	ex := func(n int) []byte {
		var b strings.Builder
		b.WriteString("---\nname: x\ndescription: d\nexamples:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - situation: s%d\n    resolution: r%d\n", i, i)
		}
		b.WriteString("---\n")
		return []byte(b.String())
	}
	s := ParseSkill(ex(20), "x")
	mustValid(t, s)
	if len(s.Examples) != 20 {
		t.Errorf("examples = %d", len(s.Examples))
	}
	if s := ParseSkill(ex(21), "x"); !hasField(s.Problems, "examples") {
		t.Errorf("21 examples: %v", s.Problems)
	}
}

func TestR18_ExampleAtMost4KiB(t *testing.T) {
	ex := func(resolutionLen int) []byte {
		return fmt.Appendf(nil, "---\nname: x\ndescription: d\nexamples:\n  - situation: ab\n    resolution: %s\n    reason: cd\n---\n",
			strings.Repeat("r", resolutionLen))
	}
	mustValid(t, ParseSkill(ex(4096-4), "x"))
	s := ParseSkill(ex(4096-3), "x")
	if !hasField(s.Problems, "examples[0]") || !strings.Contains(s.Problems[0].Message, "4097 bytes") {
		t.Errorf("problems = %v", s.Problems)
	}
}

func TestR18_ExampleNeedsSituationAndResolution(t *testing.T) {
	src := `---
name: x
description: d
examples:
  - situation: ""
    resolution: r
  - situation: s
  - situation: s
    resolution: r
    source: {actionId: a}
  - a plain string
---
`
	s := ParseSkill([]byte(src), "x")
	want := []string{"examples[0].situation", "examples[1].resolution", "examples[3]"}
	if got := fields(s.Problems); !slices.Equal(got, want) {
		t.Fatalf("problem fields = %q, want %q", got, want)
	}
	if !hasField(s.Warnings, "examples[2].source") {
		t.Errorf("unknown example key should warn: %v", s.Warnings)
	}
}

func TestR18_InstructionsAtMost65536Chars(t *testing.T) {
	body := func(n int) []byte {
		return fmt.Appendf(nil, "---\nname: x\ndescription: d\n---\n%s\n", strings.Repeat("ß", n))
	}
	mustValid(t, ParseSkill(body(65536), "x"))
	s := ParseSkill(body(65537), "x")
	if len(s.Problems) != 1 || s.Problems[0].Field != "body" {
		t.Errorf("problems = %v", s.Problems)
	}
}

func TestParseSkill_LongBodyIsAWarning(t *testing.T) {
	s := ParseSkill(fmt.Appendf(nil, "---\nname: x\ndescription: d\n---\n%s", strings.Repeat("line\n", 501)), "x")
	mustValid(t, s)
	if !hasField(s.Warnings, "body") {
		t.Errorf("warnings = %v", s.Warnings)
	}
	short := ParseSkill(fmt.Appendf(nil, "---\nname: x\ndescription: d\n---\n%s", strings.Repeat("line\n", 500)), "x")
	if hasField(short.Warnings, "body") {
		t.Errorf("500 lines should not warn: %v", short.Warnings)
	}
}

func TestParseSkill_AllProblemsAtOnce(t *testing.T) {
	src := fmt.Sprintf("---\nname: Bad--Name\ndescription: %s\ncompatibility: %s\nmetadata:\n  version: 1\nexamples:\n  - situation: s\n---\n",
		strings.Repeat("d", 1100), strings.Repeat("c", 600))
	s := ParseSkill([]byte(src), "bad-name")
	for _, f := range []string{"name", "description", "compatibility", "examples[0].resolution"} {
		if !hasField(s.Problems, f) {
			t.Errorf("missing a %q problem in %v", f, s.Problems)
		}
	}
	if !hasField(s.Warnings, "metadata.version") {
		t.Errorf("missing a metadata.version warning in %v", s.Warnings)
	}
}

func TestParseSkill_UnquotedColonIsReadLeniently(t *testing.T) {
	src := "---\nname: x\ndescription: Use when: the user asks for a review\nlicense: MIT\n---\nBody\n"
	s := ParseSkill([]byte(src), "x")
	mustValid(t, s)
	if s.Description != "Use when: the user asks for a review" || s.License != "MIT" {
		t.Errorf("description %q, license %q", s.Description, s.License)
	}
	if !hasField(s.Warnings, "description") {
		t.Errorf("warnings = %v", s.Warnings)
	}
	// A plain value going on over indented lines is quoted whole.
	multi := "---\nname: x\ndescription: Scan skills. Use when: asked to \"scan\",\n  or to audit one.\n---\n"
	m := ParseSkill([]byte(multi), "x")
	mustValid(t, m)
	if m.Description != `Scan skills. Use when: asked to "scan", or to audit one.` {
		t.Errorf("description = %q", m.Description)
	}
	// YAML that is broken for another reason is still a problem.
	broken := ParseSkill([]byte("---\nname: x\ndescription: a: b\nother: [\n---\n"), "x")
	if !hasField(broken.Problems, "frontmatter") {
		t.Errorf("problems = %v", broken.Problems)
	}
}

func TestParseSkill_AliasesDoNotExpand(t *testing.T) {
	src := "---\nname: x\ndescription: &d A description. Use when testing.\nmetadata:\n  summary: *d\nextra: &big [a, b]\nmore: *big\n---\n"
	s := ParseSkill([]byte(src), "x")
	mustValid(t, s)
	if s.Metadata["summary"] != s.Description {
		t.Errorf("alias in metadata: %q", s.Metadata["summary"])
	}
}

// TestParseSkill_MetadataKeepsSourceText checks YAML 1.2's reading of
// unquoted scalars in metadata: a date is text, silently; a number, a
// boolean or an empty value keeps its text, with a warning.
func TestParseSkill_MetadataKeepsSourceText(t *testing.T) {
	src := "---\nname: x\ndescription: d\nmetadata:\n  updated: 2026-03-06\n  stamp: 2026-03-06T10:00:00Z\n" +
		"  version: 1.10\n  beta: true\n  hex: 0x1F\n  none:\n  author: me\n---\n"
	for _, strict := range []bool{false, true} {
		s := parseSkill([]byte(src), "x", strict)
		mustValid(t, s)
		want := map[string]string{"updated": "2026-03-06", "stamp": "2026-03-06T10:00:00Z", "version": "1.10",
			"beta": "true", "hex": "0x1F", "none": "", "author": "me"}
		if !maps.Equal(s.Metadata, want) || s.Version != "1.10" {
			t.Errorf("strict %v: metadata %q, version %q", strict, s.Metadata, s.Version)
		}
		if got := fields(s.Warnings); !slices.Equal(got, []string{"metadata.version", "metadata.beta", "metadata.hex", "metadata.none"}) {
			t.Errorf("strict %v: warnings %v", strict, s.Warnings)
		}
	}
	// A date is text in the spec's string fields too.
	s := ParseSkill([]byte("---\nname: x\ndescription: 2026-03-06\nlicense: 2026-01-01\n---\n"), "x")
	mustValid(t, s)
	if s.Description != "2026-03-06" || s.License != "2026-01-01" {
		t.Errorf("description %q, license %q", s.Description, s.License)
	}
}

// TestParseSkill_StrictReading checks what validate refuses and loading
// tolerates: an unquoted ": " in a plain value and an empty compatibility.
func TestParseSkill_StrictReading(t *testing.T) {
	cases := []struct{ name, src, field string }{
		{"colon", "---\nname: x\ndescription: Use when: asked\n---\nBody\n", "description"},
		{"empty compatibility", "---\nname: x\ndescription: d\ncompatibility: \"\"\n---\n", "compatibility"},
		{"blank compatibility", "---\nname: x\ndescription: d\ncompatibility: '  '\n---\n", "compatibility"},
		{"no compatibility value", "---\nname: x\ndescription: d\ncompatibility:\n---\n", "compatibility"},
	}
	for _, c := range cases {
		loose := parseSkill([]byte(c.src), "x", false)
		mustValid(t, loose)
		if !hasField(loose.Warnings, c.field) {
			t.Errorf("%s: loading warns: %v", c.name, loose.Warnings)
		}
		strict := parseSkill([]byte(c.src), "x", true)
		if !hasField(strict.Problems, c.field) || hasField(strict.Warnings, c.field) {
			t.Errorf("%s: validate: problems %v warnings %v", c.name, strict.Problems, strict.Warnings)
		}
	}
	// Validate still reads the quoted value, so the other fields are checked.
	s := parseSkill([]byte("---\nname: X\ndescription: Use when: asked\n---\n"), "x", true)
	if got := fields(s.Problems); !slices.Equal(got, []string{"description", "name", "name"}) {
		t.Errorf("problems %v", s.Problems)
	}
	if !strings.Contains(s.Problems[0].Message, "other tools cannot read the file") {
		t.Errorf("message %q", s.Problems[0].Message)
	}
}

func TestParseSkill_BOMWarns(t *testing.T) {
	s := ParseSkill([]byte("\ufeff---\nname: x\ndescription: d\n---\n"), "x")
	mustValid(t, s)
	if !hasField(s.Warnings, "file") {
		t.Errorf("warnings %v", s.Warnings)
	}
}

func TestParseSkill_BodyOverRecommendedTokens(t *testing.T) {
	body := strings.Repeat("word ", 4001) // 20,005 characters, about 5,002 tokens, one line
	s := ParseSkill([]byte("---\nname: x\ndescription: d\n---\n"+body), "x")
	mustValid(t, s)
	if len(s.Warnings) != 1 || s.Warnings[0].Field != "body" || !strings.Contains(s.Warnings[0].Message, "about 5001 tokens (estimated") {
		t.Errorf("warnings %v", s.Warnings)
	}
	if s := ParseSkill([]byte("---\nname: x\ndescription: d\n---\n"+strings.Repeat("w", 20000)), "x"); len(s.Warnings) != 0 {
		t.Errorf("5000 tokens should not warn: %v", s.Warnings)
	}
}

// A skill breaking only rules agents read past is readable; one that lacks
// what every agent needs is not.
func TestReadable(t *testing.T) {
	long := strings.Repeat("d", MaxDescriptionLen+1)
	for _, c := range []struct {
		src, folder string
		readable    bool
		rule        LaxRule
	}{
		{"---\nname: other\ndescription: d\n---\nbody", "folder", true, LaxNameFolder},
		{"---\nname: Upper\ndescription: d\n---\nbody", "Upper", true, LaxNameFormat},
		{"---\nname: x\ndescription: " + long + "\n---\nbody", "x", true, LaxDescriptionLength},
		{"---\nname: x\ndescription: d\nmetadata:\n  tags: [a, b]\n---\nbody", "x", true, LaxMetadataValue},
		{"---\nname: x\ndescription: d\n---\n" + strings.Repeat("b", MaxBodyChars+1), "x", true, LaxBodyLength},
		{"---\ndescription: d\n---\nbody", "folder", true, LaxNameMissing},
		{"---\nname: x\n---\nbody", "x", false, ""},
		{"---\nname: other\n---\nbody", "x", false, ""},
	} {
		s := ParseSkill([]byte(c.src), c.folder)
		if s.Valid() || s.Readable() != c.readable {
			t.Errorf("%.40q: valid %v, readable %v, want invalid and readable %v: %v", c.src, s.Valid(), s.Readable(), c.readable, s.Problems)
		}
		if c.rule != "" && (len(s.Problems) != 1 || s.Problems[0].Lax != c.rule) {
			t.Errorf("%.40q: problems %v, want one breaking %s", c.src, s.Problems, c.rule)
		}
	}
}
