package skills

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// ages makes each call of age another time.
var ages = time.Now().Add(-time.Hour).Truncate(time.Second)

// age sets the modification time of each path an hour back, as for a
// workspace at rest, so that their listings are trusted. Each call sets a
// later time than the last: a change moves a folder's time.
func age(t *testing.T, paths ...string) time.Time {
	t.Helper()
	ages = ages.Add(time.Second)
	old := ages
	for _, p := range paths {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	return old
}

// TestRefresh_ReusedListingsSeeEveryChange checks that skipping unchanged
// folders by modification time misses nothing: folders added and removed,
// a SKILL.md made in an existing folder, tool files added, edited in place
// and removed, in a skill's tools/ and in the workspace tools/.
func TestRefresh_ReusedListingsSeeEveryChange(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "alpha", SkillFile), skillText("alpha", "tools:\n  - name: lint\n", "A"))
	writeFile(t, filepath.Join(root, "alpha", "tools", "lint.yaml"), "name: lint\nversion: 1\ndescription: d\nresponse: one\n")
	writeFile(t, filepath.Join(root, "tools", "shared.yaml"), "name: shared\nversion: 1\ndescription: d\nresponse: s\n")
	mkdirs(t, filepath.Join(root, "empty"))
	alphaTools := filepath.Join(root, "alpha", "tools")
	age(t, root, alphaTools, filepath.Join(root, "tools"))
	c := NewCatalog([]Root{{Dir: root}}, nil)
	refresh(t, c)
	alpha := c.Get("alpha")
	snap := c.current()
	if ch := refresh(t, c); !ch.Empty() || c.current() != snap {
		t.Fatalf("nothing changed, yet %+v (snapshot kept: %v)", ch, c.current() == snap)
	}
	response := func(name string, owner *Skill) string {
		t.Helper()
		def, err := c.Tool(owner, ToolRef{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		return def.Response
	}

	// A new folder changes the root's time.
	writeFile(t, filepath.Join(root, "beta", SkillFile), skillText("beta", "", "B"))
	age(t, root)
	if ch := refresh(t, c); !slices.Equal(ch.Added, []string{"beta"}) {
		t.Errorf("added beta: %+v", ch)
	}
	// A SKILL.md written into a folder that was there does not.
	writeFile(t, filepath.Join(root, "empty", SkillFile), skillText("empty", "", "E"))
	if ch := refresh(t, c); !slices.Equal(ch.Added, []string{"empty"}) {
		t.Errorf("SKILL.md in an existing folder: %+v", ch)
	}
	// A tool file edited in place changes neither folder.
	lint := filepath.Join(root, "alpha", "tools", "lint.yaml")
	writeFile(t, lint, "name: lint\nversion: 1\ndescription: d\nresponse: two\n")
	touch(t, lint, time.Second)
	if ch := refresh(t, c); !slices.Equal(ch.Changed, []string{"alpha"}) || response("lint", c.Get("alpha")) != "two" {
		t.Errorf("edited tool file: %+v, %q", ch, response("lint", c.Get("alpha")))
	}
	if c.Get("alpha") == alpha {
		t.Error("a changed skill keeps its pointer")
	}
	// A tool file added to, then removed from, the skill's tools/.
	writeFile(t, filepath.Join(root, "alpha", "tools", "lint-2.yaml"), "name: lint\nversion: 2\ndescription: d\nresponse: v2\n")
	age(t, alphaTools)
	if ch := refresh(t, c); !slices.Equal(ch.Changed, []string{"alpha"}) || response("lint", c.Get("alpha")) != "v2" {
		t.Errorf("added tool file: %+v", ch)
	}
	if err := os.Remove(filepath.Join(root, "alpha", "tools", "lint-2.yaml")); err != nil {
		t.Fatal(err)
	}
	age(t, alphaTools)
	if ch := refresh(t, c); !slices.Equal(ch.Changed, []string{"alpha"}) || response("lint", c.Get("alpha")) != "two" {
		t.Errorf("removed tool file: %+v", ch)
	}
	// The workspace tools/, edited in place.
	shared := filepath.Join(root, "tools", "shared.yaml")
	writeFile(t, shared, "name: shared\nversion: 1\ndescription: d\nresponse: S2\n")
	touch(t, shared, time.Second)
	if ch := refresh(t, c); !ch.ToolsChanged || response("shared", nil) != "S2" {
		t.Errorf("edited workspace tool: %+v", ch)
	}
	// A folder removed.
	if err := os.RemoveAll(filepath.Join(root, "beta")); err != nil {
		t.Fatal(err)
	}
	age(t, root)
	if ch := refresh(t, c); !slices.Equal(ch.Removed, []string{"beta"}) {
		t.Errorf("removed beta: %+v", ch)
	}
	snap = c.current()
	if ch := refresh(t, c); !ch.Empty() || c.current() != snap {
		t.Errorf("nothing changed, yet %+v", ch)
	}
}

// TestRefresh_RecentListingIsNotTrusted checks the coarse clock: a folder
// changed within the same tick as its listing keeps the same time, so a
// listing of a recently changed folder is read again next time.
func TestRefresh_RecentListingIsNotTrusted(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "alpha", SkillFile), skillText("alpha", "", "A"))
	recent := time.Now().Add(-racyWindow / 2)
	if err := os.Chtimes(root, recent, recent); err != nil {
		t.Fatal(err)
	}
	c := NewCatalog([]Root{{Dir: root}}, nil)
	refresh(t, c)
	writeFile(t, filepath.Join(root, "beta", SkillFile), skillText("beta", "", "B"))
	// The same time again, as a change in the same tick would leave it.
	if err := os.Chtimes(root, recent, recent); err != nil {
		t.Fatal(err)
	}
	if ch := refresh(t, c); !slices.Equal(ch.Added, []string{"beta"}) {
		t.Errorf("a change within the listing's tick was missed: %+v", ch)
	}
	// Once the time is old, the listing is trusted: the same trick on an
	// old time is not seen, which is why recent times are not trusted.
	old := age(t, root)
	refresh(t, c)
	writeFile(t, filepath.Join(root, "gamma", SkillFile), skillText("gamma", "", "G"))
	if err := os.Chtimes(root, old, old); err != nil {
		t.Fatal(err)
	}
	if ch := refresh(t, c); !ch.Empty() {
		t.Errorf("a trusted listing was read again: %+v", ch)
	}
	age(t, root) // a real change moves the time
	if ch := refresh(t, c); !slices.Equal(ch.Added, []string{"gamma"}) {
		t.Errorf("gamma: %+v", ch)
	}
}

// TestRefresh_LinkToFolderInSameRoot checks that a link to a skill folder
// of the same root is seen once.
func TestRefresh_LinkToFolderInSameRoot(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "alpha", SkillFile), skillText("alpha", "", "A"))
	if err := os.Symlink(filepath.Join(root, "alpha"), filepath.Join(root, "zeta")); err != nil {
		t.Skipf("symlinks: %v", err)
	}
	age(t, root)
	c := NewCatalog([]Root{{Dir: root}}, nil)
	for range 2 {
		refresh(t, c)
		if got := names(c.All()); !slices.Equal(got, []string{"alpha"}) {
			t.Errorf("skills %q", got)
		}
	}
}
