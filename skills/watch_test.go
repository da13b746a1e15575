package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// state is what a catalog holds, for comparing two catalogs.
func state(c *Catalog) []string {
	var out []string
	for _, s := range append(c.All(), c.Shadowed()...) {
		out = append(out, fmt.Sprintf("%s|%s|%s|%d tools|%d problems", s.Dir, s.Description, s.Body, len(s.ToolDefs), len(s.Problems)))
	}
	for _, p := range c.ToolProblems() {
		out = append(out, p.File)
	}
	return out
}

// TestR17_WatchedRefreshAnswersAsTheStatsDo runs a catalog that watches
// its folders beside one that reads them at every refresh, through every
// kind of change a library sees: both must report the same changes and
// hold the same skills after each, and while nothing changes the watched
// one must not read the folders.
func TestR17_WatchedRefreshAnswersAsTheStatsDo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("folders are watched on Linux only")
	}
	defer func(n int) { watchMin = n }(watchMin)
	watchMin = 1
	root, extra := toolTree(t)
	for i := range 5 {
		n := fmt.Sprintf("s%d", i)
		writeFile(t, filepath.Join(root, n, SkillFile), skillText(n, "", "Body "+n))
	}
	watched := NewCatalog([]Root{{Dir: root}}, []string{extra})
	ref := NewCatalog([]Root{{Dir: root}}, []string{extra})
	ref.noWatch = true
	both := func(step string) {
		t.Helper()
		got, gerr := watched.Refresh()
		want, werr := ref.Refresh()
		if !reflect.DeepEqual(got, want) || (gerr == nil) != (werr == nil) {
			t.Fatalf("%s: watched catalog saw %+v (%v), the stats %+v (%v)", step, got, gerr, want, werr)
		}
		if g, w := state(watched), state(ref); !reflect.DeepEqual(g, w) {
			t.Fatalf("%s: watched catalog holds\n%q\nthe stats\n%q", step, g, w)
		}
	}
	// quiet refreshes until the watcher vouches for one
	quiet := func(step string) {
		t.Helper()
		both(step + ", then nothing")
		both(step + ", then nothing again")
		before := watched.fullRefreshes
		both(step + ", then still nothing")
		if watched.watch == nil || watched.fullRefreshes != before {
			t.Fatalf("%s: a quiet refresh read the folders (watcher %v, off: %s)", step, watched.watch != nil, watched.watchOff)
		}
	}
	later := time.Now().Add(time.Hour)
	steps := []struct {
		name   string
		change func()
	}{
		{"an edit", func() { writeFile(t, filepath.Join(root, "s1", SkillFile), skillText("s1", "", "A longer new body")) }},
		{"an edit of the same size and time", func() {
			p := filepath.Join(root, "s2", SkillFile)
			info, _ := os.Stat(p)
			writeFile(t, p, skillText("s2", "", "Body XX"))
			_ = os.Chtimes(p, info.ModTime(), info.ModTime())
		}},
		{"a touch", func() { _ = os.Chtimes(filepath.Join(root, "s2", SkillFile), later, later) }},
		{"a new skill", func() { writeFile(t, filepath.Join(root, "s9", SkillFile), skillText("s9", "", "New")) }},
		{"a removed skill", func() { _ = os.RemoveAll(filepath.Join(root, "s0")) }},
		{"a renamed folder", func() { _ = os.Rename(filepath.Join(root, "s3"), filepath.Join(root, "s3b")) }},
		{"a skill's own tool edited", func() {
			writeFile(t, filepath.Join(root, "owner", "tools", "mine.yaml"), "name: mine\nversion: 1\ndescription: d\nresponse: mine, edited at length\n")
		}},
		{"a skill's own tool added", func() {
			writeFile(t, filepath.Join(root, "owner", "tools", "more.yaml"), "name: more\nversion: 1\ndescription: d\nresponse: more\n")
		}},
		{"a workspace tool added", func() {
			writeFile(t, filepath.Join(root, "tools", "shared.v3.yaml"), "name: shared\nversion: 3\ndescription: d\nresponse: ws3\n")
		}},
		{"a tools_dirs file edited", func() {
			writeFile(t, filepath.Join(extra, "extra.yaml"), "name: extra\nversion: 3\ndescription: d\nresponse: extra, edited\n")
		}},
		{"SKILL.md replaced by skill.md", func() {
			d := filepath.Join(root, "s4")
			_ = os.Remove(filepath.Join(d, SkillFile))
			writeFile(t, filepath.Join(d, SkillFileLower), skillText("s4", "", "Lower"))
		}},
		{"the tools_dirs folder removed", func() { _ = os.RemoveAll(extra) }},
		{"the tools_dirs folder back", func() {
			writeFile(t, filepath.Join(extra, "extra.yaml"), "name: extra\nversion: 4\ndescription: d\nresponse: back\n")
		}},
		{"the root's parent swapped for another", func() {
			base := filepath.Dir(root)
			old := base + ".old"
			if err := os.Rename(base, old); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(old) })
			writeFile(t, filepath.Join(root, "fresh", SkillFile), skillText("fresh", "", "Fresh"))
			writeFile(t, filepath.Join(extra, "extra.yaml"), "name: extra\nversion: 5\ndescription: d\nresponse: fresh\n")
		}},
	}
	both("the first read")
	quiet("the first read")
	for _, st := range steps {
		st.change()
		both(st.name)
		quiet(st.name)
	}
	// a SKILL.md that is a link may change where no watch sees: the
	// catalog reads the folders again at every refresh
	target := filepath.Join(t.TempDir(), "elsewhere.md")
	writeFile(t, target, skillText("fresh", "", "Linked"))
	_ = os.Remove(filepath.Join(root, "fresh", SkillFile))
	if err := os.Symlink(target, filepath.Join(root, "fresh", SkillFile)); err != nil {
		t.Fatal(err)
	}
	both("a linked SKILL.md")
	writeFile(t, target, skillText("fresh", "", "Linked, and edited where no watch is"))
	both("a linked SKILL.md edited")
	if watched.watch != nil {
		t.Fatal("a catalog with a linked SKILL.md is still watched")
	}
}

// TestR17_WatchedRootThroughALink: a root whose path runs through a link
// is watched along that path, so pointing the link elsewhere is seen.
func TestR17_WatchedRootThroughALink(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("folders are watched on Linux only")
	}
	defer func(n int) { watchMin = n }(watchMin)
	watchMin = 1
	base := t.TempDir()
	for _, tree := range []string{"a", "b"} {
		writeFile(t, filepath.Join(base, tree, "skills", "s", SkillFile), skillText("s", "", "Tree "+tree))
	}
	link := filepath.Join(base, "lib")
	if err := os.Symlink(filepath.Join(base, "a"), link); err != nil {
		t.Fatal(err)
	}
	c := NewCatalog([]Root{{Dir: filepath.Join(link, "skills")}}, nil)
	for range 3 {
		refresh(t, c)
	}
	if c.watch == nil || !c.watch.trusted {
		t.Fatalf("not watched: %s", c.watchOff)
	}
	// the link is replaced in one rename, as a deploy swaps a library
	tmp := filepath.Join(base, "lib.new")
	if err := os.Symlink(filepath.Join(base, "b"), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
	ch := refresh(t, c)
	if len(ch.Changed) != 1 || c.Get("s").Body != "Tree b" {
		t.Fatalf("changes %+v, body %q", ch, c.Get("s").Body)
	}
}

// TestWatchNeedsManySkills: a small catalog reads its folders each time,
// where a watcher would cost more than it saves.
func TestWatchNeedsManySkills(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "one", SkillFile), skillText("one", "", "Body"))
	c := NewCatalog([]Root{{Dir: root}}, nil)
	for range 3 {
		refresh(t, c)
	}
	if c.watch != nil || c.fullRefreshes != 3 {
		t.Fatalf("watcher %v, %d full refreshes of 3", c.watch != nil, c.fullRefreshes)
	}
}
