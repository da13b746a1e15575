package skills

import (
	"slices"
	"strings"
	"testing"
)

// TestRealSkills checks the twelve public skills against the verdicts of
// SOURCES.md under our rules: unknown keys and comma-separated
// allowed-tools are warnings, a name unlike its folder and the R18 limits
// are problems.
func TestRealSkills(t *testing.T) {
	realSkills := sharedDir(t, "real-skills")
	if realSkills == "" {
		t.Skip("real skills not present: no shared/real-skills above the package")
	}
	c := NewCatalog([]Root{{Dir: realSkills}}, nil)
	refresh(t, c)
	all := c.All()
	if len(all) != 12 {
		t.Fatalf("want 12 skills, got %d: %q", len(all), names(all))
	}
	invalid := map[string][]string{}
	for _, s := range all {
		if !s.Valid() {
			invalid[s.Folder()] = fields(s.Problems)
		}
	}
	want := map[string][]string{
		"claude-api":             {"description", "body"}, // 1068 characters; 72k of instructions (R18)
		"react-view-transitions": {"name"},                // vercel-react-view-transitions
	}
	if len(invalid) != len(want) {
		t.Errorf("invalid = %q, want %q", invalid, want)
	}
	for name, f := range want {
		if !slices.Equal(invalid[name], f) {
			t.Errorf("%s: problem fields %q, want %q (%v)", name, invalid[name], f, c.Get(name).Problems)
		}
	}
	if p := c.Get("claude-api").Problems[0]; !strings.Contains(p.Message, "1068 characters") {
		t.Errorf("claude-api: %v", p)
	}
	rvt := c.Get("react-view-transitions")
	if rvt.Name != "vercel-react-view-transitions" || rvt.Version != "1.0.0" || rvt.Metadata["author"] != "vercel" {
		t.Errorf("react-view-transitions read as %q %q %v", rvt.Name, rvt.Version, rvt.Metadata)
	}

	warned := func(name, field string) bool { return hasField(c.Get(name).Warnings, field) }
	if !warned("iterate-pr", "disable-model-invocation") || c.Get("iterate-pr").Extra["disable-model-invocation"] != "false" {
		t.Errorf("iterate-pr: %v %v", c.Get("iterate-pr").Warnings, c.Get("iterate-pr").Extra)
	}
	for _, n := range []string{"django-access-review", "skill-scanner"} {
		if !warned(n, "allowed-tools") || !slices.Contains(c.Get(n).AllowedTools, "Grep") || slices.Contains(c.Get(n).AllowedTools, "Read,") {
			t.Errorf("%s: warnings %v, allowed-tools %q", n, c.Get(n).Warnings, c.Get(n).AllowedTools)
		}
	}
	if !warned("writing-skills", "body") {
		t.Errorf("writing-skills is over 500 lines: %v", c.Get("writing-skills").Warnings)
	}
	if d := c.Get("skill-scanner").Description; !strings.HasPrefix(d, "Scan agent skills for security issues.") || strings.Contains(d, "\n") {
		t.Errorf("multi-line plain description read as %q", d)
	}
	if got := c.Get("web-design-guidelines").Metadata["argument-hint"]; got != "<file-or-pattern>" {
		t.Errorf("web-design-guidelines argument-hint = %q", got)
	}
	if got := c.Get("django-access-review").Description; !strings.HasPrefix(got, "Django access control") {
		t.Errorf("single-quoted description = %q", got)
	}
	// Skills without any oddity have no warnings at all.
	for _, n := range []string{"brand-guidelines", "mcp-builder", "gh-fix-ci", "notion-spec-to-implementation", "using-superpowers", "web-design-guidelines"} {
		if s := c.Get(n); !s.Valid() || len(s.Warnings) != 0 {
			t.Errorf("%s: problems %v warnings %v", n, s.Problems, s.Warnings)
		}
	}
	sel, err := c.Select(nil)
	if err != nil || len(sel.Enabled) != 10 {
		t.Errorf("enabled %d, %v", len(sel.Enabled), err)
	}
}
