package skills

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// selectTree: a project root and a user root; "review" is in both (v2 in
// the project, v1 in the user root); "broken" is invalid.
func selectTree(t *testing.T) (*Catalog, string, string) {
	project, user := t.TempDir(), t.TempDir()
	v := func(ver string) string { return "metadata:\n  version: \"" + ver + "\"\n" }
	writeFile(t, filepath.Join(project, "review", SkillFile), skillText("review", v("2"), "Project v2"))
	writeFile(t, filepath.Join(user, "review", SkillFile), skillText("review", v("1"), "User v1"))
	writeFile(t, filepath.Join(project, "style", SkillFile), skillText("style", v("1"), "Style"))
	writeFile(t, filepath.Join(project, "notes", SkillFile), skillText("notes", "", "Notes"))
	writeFile(t, filepath.Join(user, "broken", SkillFile), "---\nname: broken\n---\n")
	c := NewCatalog([]Root{{Dir: project}, {Dir: user}}, nil)
	refresh(t, c)
	return c, project, user
}

func TestR19_NoRefsEnablesEveryValidSkill(t *testing.T) {
	c, _, _ := selectTree(t)
	sel, err := c.Select(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(sel.Enabled); !slices.Equal(got, []string{"notes", "review", "style"}) {
		t.Errorf("enabled = %q", got)
	}
	if len(sel.Preload) != 0 || len(sel.Unnamed) != 0 {
		t.Errorf("preload %v, unnamed %v", sel.Preload, sel.Unnamed)
	}
}

func TestR19_OnlyNamedSkillsInConfigOrder(t *testing.T) {
	c, _, _ := selectTree(t)
	sel, err := c.Select([]Ref{{Name: "style", Preload: true}, {Name: "review"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(sel.Enabled); !slices.Equal(got, []string{"style", "review"}) {
		t.Errorf("enabled = %q", got)
	}
	if got := names(sel.Preload); !slices.Equal(got, []string{"style"}) {
		t.Errorf("preload = %q", got)
	}
	// Folders the config does not name are listed for a notice, invalid
	// ones included.
	if !slices.Equal(sel.Unnamed, []string{"broken", "notes"}) {
		t.Errorf("unnamed = %q", sel.Unnamed)
	}
}

func TestR19_PinChoosesAmongShadowed(t *testing.T) {
	c, _, user := selectTree(t)
	sel, err := c.Select([]Ref{{Name: "review", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Enabled) != 1 || sel.Enabled[0].Body != "User v1" || sel.Enabled[0].Root != user {
		t.Errorf("enabled = %+v", sel.Enabled)
	}
	sel, err = c.Select([]Ref{{Name: "review", Version: "2"}})
	if err != nil || sel.Enabled[0].Body != "Project v2" {
		t.Errorf("v2: %v %v", sel, err)
	}
}

func TestR19_BadRefsFailNamingEach(t *testing.T) {
	c, project, user := selectTree(t)
	_, err := c.Select([]Ref{
		{Name: "review", Version: "3"},
		{Name: "ghost"},
		{Name: "style"},
		{Name: "style"},
		{Name: "broken"},
		{Name: " "},
	})
	if err == nil {
		t.Fatal("want an error")
	}
	msg := err.Error()
	for _, want := range []string{
		`skill "review" is pinned to version "3", which was not found: version "2" in ` + filepath.Join(project, "review") + `, version "1" in ` + filepath.Join(user, "review"),
		`skill "ghost" is named in the config but was not found in ` + project + ", " + user,
		`skill "style" is named more than once in the config`,
		`skill "broken" (` + filepath.Join(user, "broken", SkillFile) + `) is invalid: description: missing required field`,
		`skills entry 6 has no name`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if n := strings.Count(msg, "\n") + 1; n != 5 {
		t.Errorf("want 5 joined errors, got %d:\n%s", n, msg)
	}
}

func TestR16_AtMost8Preloads(t *testing.T) {
	root := t.TempDir()
	var refs []Ref
	for i := range 9 {
		n := fmt.Sprintf("s%d", i)
		writeFile(t, filepath.Join(root, n, SkillFile), skillText(n, "", "Body"))
		refs = append(refs, Ref{Name: n, Preload: true})
	}
	c := NewCatalog([]Root{{Dir: root}}, nil)
	refresh(t, c)
	if _, err := c.Select(refs[:8]); err != nil {
		t.Errorf("8 preloads: %v", err)
	}
	_, err := c.Select(refs)
	if err == nil || !strings.Contains(err.Error(), "9 skills are preloaded") || !strings.Contains(err.Error(), "at most 8") {
		t.Errorf("9 preloads: %v", err)
	}
}

// TestSelectAgainIsTheSameAndFollowsRefreshes: a selection repeated over
// an unchanged catalog is the same and the caller's copy is its own; a
// refresh that changes a skill changes the answer.
func TestSelectAgainIsTheSameAndFollowsRefreshes(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"a", "b", "c"} {
		writeFile(t, filepath.Join(root, n, SkillFile), skillText(n, "", "Body "+n))
	}
	c := NewCatalog([]Root{{Dir: root}}, nil)
	refresh(t, c)
	refs := []Ref{{Name: "c"}, {Name: "a", Preload: true}, {Name: "nope"}}
	first, err1 := c.Select(refs)
	if err1 == nil || len(first.Enabled) != 2 || first.Enabled[0].Name != "c" {
		t.Fatalf("first selection %v, %v", names(first.Enabled), err1)
	}
	first.Enabled[0] = nil // the caller's to change
	again, err2 := c.Select(refs)
	if err2 == nil || err2.Error() != err1.Error() || again.Enabled[0] == nil || !slices.Equal(names(again.Enabled), []string{"c", "a"}) || !slices.Equal(again.Unnamed, []string{"b"}) {
		t.Fatalf("again %v %v, %v", names(again.Enabled), again.Unnamed, err2)
	}
	if other, _ := c.Select([]Ref{{Name: "a"}, {Name: "c"}}); !slices.Equal(names(other.Enabled), []string{"a", "c"}) {
		t.Fatalf("other order: %v", names(other.Enabled))
	}
	writeFile(t, filepath.Join(root, "c", SkillFile), skillText("c", "", "A new body for c"))
	refresh(t, c)
	after, _ := c.Select(refs)
	if after.Enabled[0].Body != "A new body for c" {
		t.Fatalf("selection after the edit has %q", after.Enabled[0].Body)
	}
}
