package skills

import (
	"slices"
	"testing"
)

// TestRealCorpus reads every skill of the public corpus (1,180 skills from
// 15 repositories) both ways, as validate and as a catalog, and checks the
// verdicts that once were wrong: an unquoted date in metadata and another
// agent's `tools:` string leave a skill valid.
func TestRealCorpus(t *testing.T) {
	realCorpus := sharedDir(t, "real-corpus/skills")
	if realCorpus == "" {
		t.Skip("real corpus not present: no shared/real-corpus/skills above the package")
	}
	rep, err := Validate(realCorpus)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCatalog([]Root{{Dir: realCorpus}}, nil)
	if _, err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	if len(rep.Skills) != 1180 || len(c.All()) != 1180 {
		t.Fatalf("validate found %d skills, the catalog %d; want 1180", len(rep.Skills), len(c.All()))
	}
	var valid, invalid, warned, loadable int
	for _, s := range rep.Skills {
		if s.Valid() {
			valid++
		} else {
			invalid++
		}
		if len(s.Warnings) > 0 {
			warned++
		}
		loaded := c.Get(s.Folder())
		if loaded == nil {
			t.Errorf("%s: validated but not in the catalog", s.Folder())
			continue
		}
		if loaded.Valid() {
			loadable++
		}
		// Loading is never stricter than validate.
		if s.Valid() && !loaded.Valid() {
			t.Errorf("%s: valid for validate, invalid when loaded: %v", s.Folder(), loaded.Problems)
		}
	}
	t.Logf("real corpus: %d skills; validate: %d valid, %d invalid, %d with warnings; loading: %d valid", len(rep.Skills), valid, invalid, warned, loadable)

	get := func(folder string) *Skill {
		i := slices.IndexFunc(rep.Skills, func(s *Skill) bool { return s.Folder() == folder })
		if i < 0 {
			t.Fatalf("%s is not in the corpus", folder)
		}
		return rep.Skills[i]
	}
	// 78 skills of one repository write `updated: 2026-03-06` unquoted.
	dated := 0
	for _, s := range rep.Skills {
		if d := s.Metadata["updated"]; len(d) == 10 && d[4] == '-' && d[7] == '-' {
			dated++
			if !s.Valid() && s.Folder() != "c-level-skills" { // its name differs from its folder
				t.Errorf("%s: metadata.updated %q, problems %v", s.Folder(), d, s.Problems)
			}
		}
	}
	if dated < 79 {
		t.Errorf("%d skills with a date in metadata.updated, want at least 79", dated)
	}
	if s := get("ab-test-setup"); !s.Valid() || s.Metadata["updated"] != "2026-03-06" {
		t.Errorf("ab-test-setup: %q %v", s.Metadata, s.Problems)
	}
	for _, folder := range []string{"claude-automation-recommender", "claude-md-improver"} {
		s := get(folder)
		if !s.Valid() || len(s.Tools) != 0 || !hasField(s.Warnings, "tools") || s.Extra["tools"] == "" {
			t.Errorf("%s: problems %v, warnings %v, tools %v, extra %q", folder, s.Problems, s.Warnings, s.Tools, s.Extra)
		}
	}
	// What stays invalid breaks a rule of the spec or R18.
	for folder, field := range map[string]string{
		"react-view-transitions":     "name",                        // vercel-react-view-transitions
		"database-lookup":            "description",                 // 1,929 characters
		"markdown-mermaid-writing":   "metadata.skill-contributors", // a list
		"quality-playbook":           "body",                        // 291,205 characters
		"claude-api":                 "description",
		"acquire-codebase-knowledge": "metadata.enhancements",
	} {
		if s := get(folder); !hasField(s.Problems, field) {
			t.Errorf("%s: want a %s problem, got %v", folder, field, s.Problems)
		}
	}
	// Each of them breaks only rules some agent reads past, so the agents'
	// profiles still see them.
	readable := 0
	for _, s := range rep.Skills {
		if !s.Valid() && s.Readable() {
			readable++
		}
	}
	if readable != invalid {
		t.Errorf("%d of the %d invalid skills are readable by a lax agent, want all", readable, invalid)
	}
	if invalid > 30 {
		t.Errorf("%d invalid skills; the corpus has 30 that break a rule", invalid)
	}
}
