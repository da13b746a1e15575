package skills

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func refresh(t *testing.T, c *Catalog) Changes {
	t.Helper()
	ch, err := c.Refresh()
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	return ch
}

func names(list []*Skill) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.Folder()
	}
	return out
}

// touch moves a file's mtime forward so a change is seen even when the
// size is the same and the clock is coarse.
func touch(t *testing.T, path string, d time.Duration) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, info.ModTime().Add(d), info.ModTime().Add(d)); err != nil {
		t.Fatal(err)
	}
}

func TestCatalog_ColdLoadSortedAndBadSkillsStay(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "zeta", SkillFile), skillText("zeta", "", "Z"))
	writeFile(t, filepath.Join(root, "alpha", SkillFile), skillText("alpha", "", "A"))
	writeFile(t, filepath.Join(root, "broken", SkillFile), "---\nname: broken\ndescription: [\n---\n")
	writeFile(t, filepath.Join(root, "binary", SkillFile), "\x00\x01\x02")
	c := NewCatalog([]Root{{Dir: root, Label: "test"}}, nil)
	ch := refresh(t, c)
	if want := []string{"alpha", "binary", "broken", "zeta"}; !slices.Equal(names(c.All()), want) || !slices.Equal(ch.Added, want) {
		t.Fatalf("all %q, added %q", names(c.All()), ch.Added)
	}
	if c.Get("alpha") == nil || !c.Get("alpha").Valid() || c.Get("broken").Valid() || c.Get("binary").Valid() {
		t.Errorf("validity wrong")
	}
	if c.Get("alpha").Root != root || c.Get("alpha").Dir != filepath.Join(root, "alpha") {
		t.Errorf("alpha root %q dir %q", c.Get("alpha").Root, c.Get("alpha").Dir)
	}
	if c.Get("missing") != nil {
		t.Errorf("Get of a missing skill")
	}
}

func TestR17_RefreshSeesEditsNewAndRemovedFolders(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"keep", "edit", "drop"} {
		writeFile(t, filepath.Join(root, n, SkillFile), skillText(n, "", "Original body."))
	}
	c := NewCatalog([]Root{{Dir: root}}, nil)
	refresh(t, c)
	keep, edit := c.Get("keep"), c.Get("edit")

	if ch := refresh(t, c); !ch.Empty() {
		t.Fatalf("nothing changed, got %+v", ch)
	}
	if c.Get("keep") != keep || c.Get("edit") != edit {
		t.Fatalf("an unchanged skill must keep its pointer")
	}

	writeFile(t, filepath.Join(root, "edit", SkillFile), skillText("edit", "", "A new, longer body."))
	if err := os.RemoveAll(filepath.Join(root, "drop")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "new", SkillFile), skillText("new", "", "Body"))
	ch := refresh(t, c)
	if !slices.Equal(ch.Added, []string{"new"}) || !slices.Equal(ch.Removed, []string{"drop"}) || !slices.Equal(ch.Changed, []string{"edit"}) {
		t.Fatalf("changes = %+v", ch)
	}
	if c.Get("edit") == edit || c.Get("edit").Body != "A new, longer body." || edit.Body != "Original body." {
		t.Errorf("the edit gets a new pointer and the old skill is untouched")
	}
	if c.Get("keep") != keep {
		t.Errorf("unchanged skill re-read")
	}

	// Edited into an invalid file: still listed, with its problems.
	writeFile(t, filepath.Join(root, "edit", SkillFile), "---\nname: edit\n---\nno description\n")
	ch = refresh(t, c)
	if !slices.Equal(ch.Changed, []string{"edit"}) || c.Get("edit").Valid() || !hasField(c.Get("edit").Problems, "description") {
		t.Errorf("changes %+v, problems %v", ch, c.Get("edit").Problems)
	}
}

func TestR17_UnchangedStatMeansNotReread(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "same", SkillFile)
	writeFile(t, path, skillText("same", "", "Body AAAA"))
	c := NewCatalog([]Root{{Dir: root}}, nil)
	refresh(t, c)
	info, _ := os.Stat(path)
	// Same size, same mtime: only the stat is compared, so the file is not
	// read again (the body stays the old one)...
	writeFile(t, path, skillText("same", "", "Body BBBB"))
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	refresh(t, c)
	if got := c.Get("same").Body; got != "Body AAAA" {
		t.Fatalf("file re-read although its stat did not change: %q", got)
	}
	// ...and a new mtime is enough to read it.
	touch(t, path, time.Second)
	if ch := refresh(t, c); !slices.Equal(ch.Changed, []string{"same"}) || c.Get("same").Body != "Body BBBB" {
		t.Errorf("changes %+v, body %q", ch, c.Get("same").Body)
	}
}

func TestCatalog_ShadowingFirstRootWins(t *testing.T) {
	project, user := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(project, "review", SkillFile), skillText("review", "metadata:\n  version: \"2\"\n", "Project"))
	writeFile(t, filepath.Join(user, "review", SkillFile), skillText("review", "metadata:\n  version: \"1\"\n", "User"))
	writeFile(t, filepath.Join(user, "other", SkillFile), skillText("other", "", "User only"))
	c := NewCatalog([]Root{{Dir: project, Label: LabelProject}, {Dir: user, Label: LabelUser}}, nil)
	refresh(t, c)
	if got := c.Get("review"); got.Body != "Project" || got.Root != project {
		t.Errorf("winner = %q from %q", got.Body, got.Root)
	}
	sh := c.Shadowed()
	if len(sh) != 1 || sh[0].Body != "User" || sh[0].Root != user {
		t.Fatalf("shadowed = %+v", sh)
	}
	// Removing the winner promotes the shadowed skill: a change, not a
	// removal.
	if err := os.RemoveAll(filepath.Join(project, "review")); err != nil {
		t.Fatal(err)
	}
	ch := refresh(t, c)
	if !slices.Equal(ch.Changed, []string{"review"}) || c.Get("review").Body != "User" || len(c.Shadowed()) != 0 {
		t.Errorf("changes %+v, winner %q", ch, c.Get("review").Body)
	}
}

func TestCatalog_RootHoldingSkillMDIsOneSkill(t *testing.T) {
	root := filepath.Join(t.TempDir(), "solo")
	writeFile(t, filepath.Join(root, SkillFile), skillText("solo", "tools:\n  - name: own\n", "Body"))
	writeFile(t, filepath.Join(root, "tools", "own.yaml"), "name: own\nversion: 1\ndescription: d\nresponse: x\n")
	writeFile(t, filepath.Join(root, "sub", SkillFile), skillText("sub", "", "Not a skill of this root"))
	c := NewCatalog([]Root{{Dir: root}}, nil)
	refresh(t, c)
	if got := names(c.All()); !slices.Equal(got, []string{"solo"}) {
		t.Fatalf("all = %q", got)
	}
	if def, err := c.Tool(c.Get("solo"), ToolRef{Name: "own"}); err != nil || def.Key() != "own@1" {
		t.Errorf("own tool: %v %v", def, err)
	}
}

func TestCatalog_UnreadableRootIsAnErrorOthersLoad(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads folders whatever their permissions")
	}
	locked, open := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(open, "ok", SkillFile), skillText("ok", "", "Body"))
	writeFile(t, filepath.Join(locked, "hidden", SkillFile), skillText("hidden", "", "Body"))
	if err := os.Chmod(locked, 0o300); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	c := NewCatalog([]Root{{Dir: locked}, {Dir: open}}, nil)
	_, err := c.Refresh()
	if err == nil || !strings.Contains(err.Error(), locked) {
		t.Errorf("err = %v", err)
	}
	if got := names(c.All()); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("all = %q", got)
	}
}

func TestCatalog_UnreadableSkillFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their permissions")
	}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ok", SkillFile), skillText("ok", "", "Body"))
	path := filepath.Join(root, "locked", SkillFile)
	writeFile(t, path, skillText("locked", "", "Body"))
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	c := NewCatalog([]Root{{Dir: root}}, nil)
	refresh(t, c)
	if !c.Get("ok").Valid() {
		t.Errorf("ok invalid")
	}
	onlyProblem(t, c.Get("locked"), "file", "permission denied")
}

// toolTree is a root with workspace tools and two skills with own tools.
func toolTree(t *testing.T) (root, extra string) {
	base := t.TempDir()
	root, extra = filepath.Join(base, "root"), filepath.Join(base, "extra-tools")
	writeFile(t, filepath.Join(root, "tools", "shared.v1.yaml"), "name: shared\nversion: 1\ndescription: d\nresponse: ws1\n")
	writeFile(t, filepath.Join(root, "tools", "shared.v2.yaml"), "name: shared\nversion: 2\ndescription: d\nresponse: ws2\n")
	writeFile(t, filepath.Join(root, "tools", "broken.yaml"), "name: wobbly\nversion: 1\n")
	writeFile(t, filepath.Join(extra, "extra.yaml"), "name: extra\nversion: 3\ndescription: d\nresponse: extra\n")
	writeFile(t, filepath.Join(root, "owner", SkillFile), skillText("owner", "tools:\n  - name: shared\n  - name: mine\n", "Body"))
	writeFile(t, filepath.Join(root, "owner", "tools", "shared.yaml"), "name: shared\nversion: 1\ndescription: d\nresponse: own1\n")
	writeFile(t, filepath.Join(root, "owner", "tools", "mine.yaml"), "name: mine\nversion: 1\ndescription: d\nresponse: mine\n")
	writeFile(t, filepath.Join(root, "plain", SkillFile), skillText("plain", "tools:\n  - name: shared\n    version: 1\n", "Body"))
	return root, extra
}

func TestCatalog_ToolResolution(t *testing.T) {
	root, extra := toolTree(t)
	c := NewCatalog([]Root{{Dir: root}}, []string{extra})
	refresh(t, c)
	owner, plain := c.Get("owner"), c.Get("plain")
	cases := []struct {
		owner *Skill
		ref   ToolRef
		want  string // response of the def found
	}{
		{owner, ToolRef{Name: "shared"}, "own1"},             // own tools first
		{owner, ToolRef{Name: "shared", Version: 1}, "own1"}, // pinned, own
		{owner, ToolRef{Name: "shared", Version: 2}, "ws2"},  // pinned, only in the workspace
		{plain, ToolRef{Name: "shared"}, "ws2"},              // latest = highest
		{plain, ToolRef{Name: "shared", Version: 1}, "ws1"},  // pinned
		{nil, ToolRef{Name: "extra"}, "extra"},               // a tools_dirs folder
		{owner, ToolRef{Name: "mine"}, "mine"},               // own only
	}
	for _, tc := range cases {
		def, err := c.Tool(tc.owner, tc.ref)
		if err != nil || def.Response != tc.want {
			t.Errorf("Tool(%v, %v) = %v, %v; want %q", tc.owner != nil, tc.ref, def, err, tc.want)
		}
	}
	_, err := c.Tool(plain, ToolRef{Name: "shared", Version: 7})
	if err == nil || !strings.Contains(err.Error(), `tool "shared" version 7 not found`) || !strings.Contains(err.Error(), "versions 1, 2 in the workspace tool folders") {
		t.Errorf("pinned missing: %v", err)
	}
	_, err = c.Tool(plain, ToolRef{Name: "mine"})
	if err == nil || !strings.Contains(err.Error(), `tool "mine" not found (listed by skill "plain")`) {
		t.Errorf("another skill's own tool must not resolve: %v", err)
	}
	_, err = c.Tool(nil, ToolRef{Name: "wobbly"})
	if err == nil || !strings.Contains(err.Error(), "invalid files: "+filepath.Join(root, "tools", "broken.yaml")) {
		t.Errorf("an invalid file is named: %v", err)
	}
	if _, err = c.Tool(owner, ToolRef{Name: "files/read"}); !errors.Is(err, ErrMCPTool) {
		t.Errorf("mcp ref: %v", err)
	}
	probs := c.ToolProblems()
	if len(probs) != 1 || probs[0].File != filepath.Join(root, "tools", "broken.yaml") {
		t.Errorf("tool problems = %v", probs)
	}
}

func TestCatalog_DuplicateToolIsAnErrorNamingBothFiles(t *testing.T) {
	root, extra := toolTree(t)
	dup := filepath.Join(extra, "shared-again.yaml")
	writeFile(t, dup, "name: shared\nversion: 2\ndescription: d\nresponse: again\n")
	c := NewCatalog([]Root{{Dir: root}}, []string{extra})
	refresh(t, c)
	_, err := c.Tool(nil, ToolRef{Name: "shared"})
	first := filepath.Join(root, "tools", "shared.v2.yaml")
	if err == nil || !strings.Contains(err.Error(), first) || !strings.Contains(err.Error(), dup) {
		t.Errorf("err = %v", err)
	}
	if def, err := c.Tool(nil, ToolRef{Name: "shared", Version: 1}); err != nil || def.Response != "ws1" {
		t.Errorf("the other version still resolves: %v %v", def, err)
	}
	var files []string
	for _, p := range c.ToolProblems() {
		files = append(files, p.File)
	}
	if !slices.Contains(files, first) || !slices.Contains(files, dup) {
		t.Errorf("tool problems name %q", files)
	}
}

func TestR17_ToolFileEditsAreSeen(t *testing.T) {
	root, extra := toolTree(t)
	c := NewCatalog([]Root{{Dir: root}}, []string{extra})
	refresh(t, c)
	owner, plain := c.Get("owner"), c.Get("plain")

	// An own tool file changes: its skill changes.
	mine := filepath.Join(root, "owner", "tools", "mine.yaml")
	writeFile(t, mine, "name: mine\nversion: 1\ndescription: d\nresponse: mine, edited\n")
	touch(t, mine, time.Second)
	ch := refresh(t, c)
	if !slices.Equal(ch.Changed, []string{"owner"}) || ch.ToolsChanged || c.Get("plain") != plain {
		t.Fatalf("changes = %+v", ch)
	}
	if def, _ := c.Tool(c.Get("owner"), ToolRef{Name: "mine"}); def == nil || def.Response != "mine, edited" {
		t.Errorf("edited tool not seen: %v", def)
	}
	if c.Get("owner") == owner || len(owner.ToolDefs) != 2 {
		t.Errorf("old skill must be left as it was")
	}

	// A new workspace tool version: the workspace changes, no skill does.
	writeFile(t, filepath.Join(root, "tools", "shared.v3.yaml"), "name: shared\nversion: 3\ndescription: d\nresponse: ws3\n")
	ch = refresh(t, c)
	if !ch.ToolsChanged || len(ch.Changed) != 0 {
		t.Fatalf("changes = %+v", ch)
	}
	if def, _ := c.Tool(plain, ToolRef{Name: "shared"}); def == nil || def.Response != "ws3" {
		t.Errorf("latest = %v", def)
	}
	if ch := refresh(t, c); !ch.Empty() {
		t.Errorf("nothing changed: %+v", ch)
	}
}

func TestCatalog_ConcurrentUse(t *testing.T) {
	root, extra := toolTree(t)
	c := NewCatalog([]Root{{Dir: root}}, []string{extra})
	refresh(t, c)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 20 {
				if i == 0 {
					path := filepath.Join(root, "plain", SkillFile)
					writeFile(t, path, skillText("plain", "", strings.Repeat("x", j)))
					c.Refresh()
					continue
				}
				_ = c.All()
				_ = c.Shadowed()
				_ = c.ToolProblems()
				if s := c.Get("owner"); s != nil {
					c.Tool(s, ToolRef{Name: "mine"})
				}
				c.Select(nil)
			}
		})
	}
	wg.Wait()
}

func TestValidate_PathKinds(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "one", SkillFile), skillText("one", "tools:\n  - name: shared\n", "Body"))
	writeFile(t, filepath.Join(root, "tools", "shared.yaml"), "name: shared\nversion: 1\ndescription: d\nresponse: x\n")
	t.Chdir(root)
	// A lone skill folder resolves its references against the root's
	// tools/ beside it, without reporting those files.
	for _, p := range []string{"one", "./one/", filepath.Join("one", SkillFile)} {
		rep, err := Validate(p)
		if err != nil || len(rep.Skills) != 1 || len(rep.Skills[0].Warnings) != 0 || len(rep.ToolFiles) != 0 || !rep.Valid() {
			t.Errorf("%s: %+v %v", p, rep, err)
		}
	}
	rep, err := Validate("./tools/shared.yaml")
	if err != nil || len(rep.ToolFiles) != 1 || rep.ToolFiles[0].Tool != "shared@1" {
		t.Errorf("tool file: %+v %v", rep, err)
	}
	if _, err := Validate("nope"); err == nil || !strings.Contains(err.Error(), "no such file or folder") {
		t.Errorf("missing: %v", err)
	}
	writeFile(t, filepath.Join(root, "notes.txt"), "x")
	if _, err := Validate("notes.txt"); !errors.Is(err, ErrNotSkillPath) {
		t.Errorf("not a skill path: %v", err)
	}
}
