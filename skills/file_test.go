package skills

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes a file, making its folders.
func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// skillText is a small valid SKILL.md.
func skillText(name, extra, body string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill. Use when testing.\n" + extra + "---\n" + body + "\n"
}

func onlyProblem(t *testing.T, s *Skill, field, msg string) {
	t.Helper()
	if len(s.Problems) != 1 || s.Problems[0].Field != field || !strings.Contains(s.Problems[0].Message, msg) {
		t.Fatalf("want one %q problem containing %q, got %v", field, msg, s.Problems)
	}
}

func TestLoadSkillFile_BadFiles(t *testing.T) {
	dir := t.TempDir()
	huge := bytes.Repeat([]byte("x"), 2<<20)
	cases := map[string]struct {
		content []byte
		msg     string
	}{
		"binary":    {[]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "binary file (NUL byte at offset 8)"},
		"latin1":    {[]byte("---\nname: caf\xe9\ndescription: d\n---\n"), "not valid UTF-8"},
		"empty":     {nil, "file is empty"},
		"huge":      {append([]byte("---\nname: huge\n---\n"), huge...), "file is 2097171 bytes, over the 1 MiB limit"},
		"truncated": {[]byte("---\nname: truncated\n"), "not closed"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name, SkillFile)
			writeFile(t, path, string(c.content))
			s := LoadSkillFile(path)
			field := "file"
			if name == "truncated" {
				field = "frontmatter"
			}
			onlyProblem(t, s, field, c.msg)
			if s.Name != name || s.Dir != filepath.Join(dir, name) || s.Path != path {
				t.Errorf("a bad skill is still known by its folder: %q %q %q", s.Name, s.Dir, s.Path)
			}
		})
	}
}

func TestLoadSkillFile_Unreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files whatever their permissions")
	}
	path := filepath.Join(t.TempDir(), "locked", SkillFile)
	writeFile(t, path, skillText("locked", "", "Body"))
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	onlyProblem(t, LoadSkillFile(path), "file", "permission denied")
}

func TestLoadSkillFile_FolderNamedSkillMD(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "odd", SkillFile), 0o755); err != nil {
		t.Fatal(err)
	}
	onlyProblem(t, LoadSkillFile(filepath.Join(dir, "odd", SkillFile)), "file", "is a folder")
}

func TestLoadSkill_LowerCaseFileName(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "lower", SkillFileLower), skillText("lower", "", "Body"))
	c := NewCatalog([]Root{{Dir: root}}, nil)
	if _, err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	s := c.Get("lower")
	if s == nil {
		t.Fatalf("the catalog does not read skill.md: %v", c.All())
	}
	mustValid(t, s)
	if !hasField(s.Warnings, "file") || filepath.Base(s.Path) != SkillFileLower {
		t.Errorf("warnings %v, path %s", s.Warnings, s.Path)
	}
	missing := LoadSkillFile(filepath.Join(t.TempDir(), "none", SkillFile))
	onlyProblem(t, missing, "file", "does not exist")
}
