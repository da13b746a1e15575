package skills

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func rootDirs(roots []Root) []string {
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = r.Dir + " " + r.Label
	}
	return out
}

func TestDefaultRoots_OrderExistingDeduplicated(t *testing.T) {
	base := t.TempDir()
	cwd, home := filepath.Join(base, "work"), filepath.Join(base, "home")
	flagDir, cfgDir := filepath.Join(base, "flag"), filepath.Join(cwd, "cfg-skills")
	mkdirs(t, flagDir, cfgDir,
		filepath.Join(cwd, ".agents", "skills"),
		filepath.Join(home, ".claude", "skills"))
	// ~/.agents/skills is a link to the project's folder: the same folder
	// reached twice appears once, at its first place.
	mkdirs(t, filepath.Join(home, ".agents"))
	if err := os.Symlink(filepath.Join(cwd, ".agents", "skills"), filepath.Join(home, ".agents", "skills")); err != nil {
		t.Skipf("symlinks unsupported: %v", err)
	}
	roots := DefaultRoots([]string{flagDir, "missing"}, []string{"cfg-skills", "~/.claude/skills"}, cwd, home)
	want := []string{
		flagDir + " " + LabelFlag,
		cfgDir + " " + LabelConfig,
		filepath.Join(home, ".claude", "skills") + " " + LabelConfig,
		filepath.Join(cwd, ".agents", "skills") + " " + LabelProject,
	}
	if got := rootDirs(roots); !slices.Equal(got, want) {
		t.Errorf("roots =\n%q\nwant\n%q", got, want)
	}
	if got := DefaultRoots(nil, nil, filepath.Join(base, "empty"), ""); len(got) != 0 {
		t.Errorf("no folder exists: %v", got)
	}
}

func TestScanRoot_SkipsAndFinds(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "good", SkillFile), skillText("good", "", "Body"))
	writeFile(t, filepath.Join(root, "lower", SkillFileLower), skillText("lower", "", "Body"))
	writeFile(t, filepath.Join(root, ".hidden", SkillFile), skillText("hidden", "", "Body"))
	writeFile(t, filepath.Join(root, ".git", SkillFile), skillText("git", "", "Body"))
	writeFile(t, filepath.Join(root, "node_modules", SkillFile), skillText("node-modules", "", "Body"))
	writeFile(t, filepath.Join(root, "notes", "README.md"), "no skill here")
	writeFile(t, filepath.Join(root, "deep", "nested", SkillFile), skillText("nested", "", "Body"))
	writeFile(t, filepath.Join(root, "tools", "t.yaml"), "name: t\n")
	writeFile(t, filepath.Join(root, "README.md"), "a file, not a folder")
	rs, err := scanRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range rs.skills {
		names = append(names, filepath.Base(c.dir))
	}
	if !slices.Equal(names, []string{"good", "lower"}) {
		t.Errorf("skills = %q", names)
	}
	if rs.toolsDir != filepath.Join(root, "tools") {
		t.Errorf("tools dir = %q", rs.toolsDir)
	}
	// A root holding SKILL.md is one skill, and its children are not looked at.
	single, _ := scanRoot(filepath.Join(root, "good"))
	if len(single.skills) != 1 || single.skills[0].dir != filepath.Join(root, "good") {
		t.Errorf("single = %+v", single)
	}
	gone, err := scanRoot(filepath.Join(root, "missing"))
	if err != nil || len(gone.skills) != 0 {
		t.Errorf("missing root: %v %v", gone, err)
	}
}

func TestScanRoot_SymlinksFollowedLoopsDoNotHang(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	elsewhere := filepath.Join(base, "elsewhere", "linked")
	writeFile(t, filepath.Join(elsewhere, SkillFile), skillText("linked", "", "Body"))
	mkdirs(t, root)
	links := map[string]string{
		"linked":   elsewhere,                   // a skill kept elsewhere
		"self":     filepath.Join(root, "self"), // a link to itself
		"up":       root,                        // a link back to the root
		"dangling": filepath.Join(base, "gone"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skipf("symlinks unsupported: %v", err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "b"), filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "b")); err != nil {
		t.Fatal(err)
	}
	rs, err := scanRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.skills) != 1 || rs.skills[0].dir != filepath.Join(root, "linked") {
		t.Fatalf("skills = %+v", rs.skills)
	}
	real, _ := filepath.EvalSymlinks(elsewhere)
	if rs.skills[0].real != real {
		t.Errorf("real path = %q, want %q", rs.skills[0].real, real)
	}

	// The same folder reached through two roots (one a link into the
	// other) is one skill, not a shadowed copy of itself.
	c := NewCatalog([]Root{{Dir: root}, {Dir: filepath.Dir(elsewhere)}}, nil)
	if _, err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	if len(c.All()) != 1 || len(c.Shadowed()) != 0 {
		t.Errorf("all %v, shadowed %v", c.All(), c.Shadowed())
	}
}
