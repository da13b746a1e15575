package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"skillet/harness"
)

func closest(name string, names []string) []string { return harness.Closest(name, names, 3) }

func TestParseQueries_SkillCreatorFileVerbatim(t *testing.T) {
	data := `[
  {"query": "review account ACC-1 for anomalies", "should_trigger": true},
  {"query": "what's the weather", "should_trigger": false, "note": "fields skill-creator never had are ignored"}
]`
	qs, err := ParseQueries([]byte(data), "q.json", "account-review")
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || !qs[0].ShouldTrigger || qs[1].ShouldTrigger || qs[1].Skill != "account-review" {
		t.Fatalf("rows: %+v", qs)
	}
	if qs[1].Source != "q.json row 2" {
		t.Errorf("source = %q", qs[1].Source)
	}
}

func TestParseQueries_OptionalFields(t *testing.T) {
	data := `[{"query": "q", "should_trigger": true, "skill": "sql-review", "type": "implicit", "weight": 2,
	  "expect": {"must_include": ["sql-review"], "must_not_include": ["house-style"], "max_skills": 1}}]`
	qs, err := ParseQueries([]byte(data), "q.json", "other")
	if err != nil {
		t.Fatal(err)
	}
	q := qs[0]
	if q.Skill != "sql-review" || q.Type != TypeImplicit || q.Weight != 2 || q.Expect == nil || q.Expect.MaxSkills != 1 {
		t.Fatalf("row: %+v", q)
	}
	if !q.Expect.Met([]string{"sql-review"}) || q.Expect.Met([]string{"sql-review", "house-style"}) || q.Expect.Met(nil) {
		t.Error("expect checks are wrong")
	}
}

func TestParseQueries_BadInputIsNamed(t *testing.T) {
	cases := map[string]struct{ data, want string }{
		"not JSON":            {`[{"query": "a", "should_trigger": true},`, "not JSON: line 1"},
		"not a list":          {`{"query": "a"}`, "not a list of rows: the file holds a JSON object"},
		"no query":            {`[{"should_trigger": true}]`, `row 1: no "query"`},
		"no should_trigger":   {`[{"query": "a"}, {"query": "b", "should_trigger": false}]`, `row 1: no "should_trigger" (query "a")`},
		"string bool":         {`[{"query": "a", "should_trigger": "yes"}]`, `"should_trigger" must be true or false, got "yes"`},
		"null bool":           {`[{"query": "a", "should_trigger": true}, {"query": "b", "should_trigger": null}]`, `row 2: "should_trigger" must be true or false, got null (query "b")`},
		"empty query":         {`[{"query": " ", "should_trigger": true}]`, `"query" must be a non-empty string`},
		"bad type":            {`[{"query": "a", "should_trigger": true, "type": "vague"}]`, `"type" "vague": want explicit, implicit, contextual or negative`},
		"bad weight":          {`[{"query": "a", "should_trigger": true, "weight": 0}]`, `"weight" must be more than 0`},
		"empty list":          {`[]`, "no rows"},
		"row is not object":   {`[3]`, "row 1: want an object"},
		"every bad row named": {`[{"query": "a"}, {}, {"query": "c", "should_trigger": true}]`, "row 2: no \"query\""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseQueries([]byte(c.data), "q.json", "")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "queries q.json") {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestCheckSkills_UnknownSkillNamesTheClosest(t *testing.T) {
	qs := []Query{{Query: "a", Skill: "acount-review", Source: "q.json row 1"}, {Query: "b", Source: "q.json row 2"}}
	err := CheckSkills(qs, nil, []string{"account-review", "sql-review"}, closest, nil)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{`q.json row 1: no skill "acount-review" is enabled; closest: account-review`, "q.json row 2 names no skill"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	err = CheckSkills(nil, []string{"sql-reveiw"}, []string{"account-review", "sql-review"}, closest, nil)
	if err == nil || !strings.Contains(err.Error(), "closest: sql-review") {
		t.Errorf("evaluated skill: %v", err)
	}
}

func TestSkillQueries_ReadsTheSkillsOwnFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := SkillQueries(dir, "s"); err == nil || !strings.Contains(err.Error(), "has no evals/triggers.json") {
		t.Fatalf("missing file: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "evals"), 0o755)
	os.WriteFile(filepath.Join(dir, "evals", "triggers.json"), []byte(`[{"query": "x", "should_trigger": true}]`), 0o644)
	qs, err := SkillQueries(dir, "s")
	if err != nil || len(qs) != 1 || qs[0].Skill != "s" {
		t.Fatalf("%v %+v", err, qs)
	}
}
