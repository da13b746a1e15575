//go:build linux

package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// shown is what a catalog holds, skill by skill, to compare two.
func shown(c *Catalog) []string {
	var out []string
	for _, s := range c.All() {
		out = append(out, fmt.Sprintf("%s %s %q %d", s.Folder(), s.Description, s.Body, len(s.Problems)))
	}
	return out
}

// A watched catalog sees every change a scan sees, and a refresh after
// none reads nothing: each change below is compared with a catalog read
// afresh, then quiet refreshes must not scan.
func TestCatalogWatchSeesEveryChange(t *testing.T) {
	old := minWatched
	minWatched = 0
	defer func() { minWatched = old }()
	root := t.TempDir()
	for i := range 5 {
		name := fmt.Sprintf("s%d", i)
		writeFile(t, filepath.Join(root, name, SkillFile), skillText(name, "", "body"))
	}
	if err := os.MkdirAll(filepath.Join(root, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := NewCatalog([]Root{{Dir: root, Label: "test"}}, nil)
	settle := func(step string) {
		t.Helper()
		for range 4 { // a change, new folders to watch, then quiet
			refresh(t, c)
		}
		before := c.scans
		for range 3 {
			if ch := refresh(t, c); !ch.Empty() {
				t.Fatalf("%s: a quiet refresh changed %+v", step, ch)
			}
		}
		if c.watch == nil || c.scans != before {
			t.Fatalf("%s: quiet refreshes scanned %d times (watching: %v)", step, c.scans-before, c.watch != nil)
		}
	}
	refresh(t, c)
	refresh(t, c)
	if c.watch != nil {
		t.Fatal("a catalog read twice is watched")
	}
	settle("start")
	skill := filepath.Join(root, "s1", SkillFile)
	steps := []struct {
		name string
		do   func()
	}{
		{"an edit in place", func() { writeFile(t, skill, skillText("s1", "", "a longer body now")) }},
		{"the same size, a new time", func() {
			writeFile(t, skill, skillText("s1", "", "a longer body wow"))
			touch(t, skill, time.Second)
		}},
		{"a new skill", func() { writeFile(t, filepath.Join(root, "s9", SkillFile), skillText("s9", "", "new")) }},
		{"a SKILL.md in a plain folder", func() { writeFile(t, filepath.Join(root, "notes", SkillFile), skillText("notes", "", "n")) }},
		{"a skill removed", func() { os.RemoveAll(filepath.Join(root, "s2")) }},
		{"a skill renamed", func() { os.Rename(filepath.Join(root, "s3"), filepath.Join(root, "s7")) }},
		{"a broken edit", func() { writeFile(t, filepath.Join(root, "s4", SkillFile), "---\nname: [\n---\n") }},
		{"replaced by a rename over it", func() {
			tmp := filepath.Join(root, "s0", ".tmp")
			writeFile(t, tmp, skillText("s0", "", "renamed in"))
			os.Rename(tmp, filepath.Join(root, "s0", SkillFile))
		}},
	}
	for _, st := range steps {
		st.do()
		ch := refresh(t, c)
		fresh := NewCatalog([]Root{{Dir: root, Label: "test"}}, nil)
		refresh(t, fresh)
		if ch.Empty() || !slices.Equal(shown(c), shown(fresh)) {
			t.Fatalf("%s: changes %+v; the watched catalog holds\n%q\na fresh one\n%q", st.name, ch, shown(c), shown(fresh))
		}
		settle(st.name)
	}
}

// A root that does not exist yet is watched from the folder above it:
// making it is seen.
func TestCatalogWatchMissingRoot(t *testing.T) {
	old := minWatched
	minWatched = 0
	defer func() { minWatched = old }()
	parent := t.TempDir()
	root := filepath.Join(parent, "skills")
	c := NewCatalog([]Root{{Dir: root, Label: "test"}}, nil)
	for range 4 {
		refresh(t, c)
	}
	if c.watch == nil {
		t.Fatal("a missing root is not watched")
	}
	writeFile(t, filepath.Join(root, "late", SkillFile), skillText("late", "", "b"))
	if ch := refresh(t, c); !slices.Equal(ch.Added, []string{"late"}) {
		t.Fatalf("a root made later: %+v", ch)
	}
}

// BenchmarkRefreshWatched10k is a refresh of 10,000 unchanged skills,
// watched and by stats (the scan each refresh does without a watch):
// scan/watched is what the watch saves.
func BenchmarkRefreshWatched10k(b *testing.B) {
	root := b.TempDir()
	for i := range 10000 {
		name := fmt.Sprintf("s%05d", i)
		writeFile(b, filepath.Join(root, name, SkillFile), skillText(name, "", "body"))
	}
	watched := NewCatalog([]Root{{Dir: root}}, nil)
	scanned := NewCatalog([]Root{{Dir: root}}, nil)
	for range 4 {
		watched.Refresh()
		scanned.Refresh()
	}
	if watched.watch == nil {
		b.Fatal("10,000 skills are not watched")
	}
	var tw, ts time.Duration
	for b.Loop() {
		t0 := time.Now()
		watched.Refresh()
		t1 := time.Now()
		scanned.scan()
		ts += time.Since(t1)
		tw += t1.Sub(t0)
	}
	b.ReportMetric(float64(tw.Nanoseconds())/float64(b.N), "ns/watched-refresh")
	b.ReportMetric(float64(ts)/float64(tw), "scan/watched")
}
