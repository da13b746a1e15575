package skills

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"
)

func testFS() fstest.MapFS {
	return fstest.MapFS{
		"skillet.toml":                   {Data: []byte("[agent]\n")},
		"demo/SKILL.md":                  {Data: []byte(skillText("demo", "", "Body"))},
		"demo/scripts/run.py":            {Data: []byte("print('hi')\n")},
		"demo/tools/check.sh":            {Data: []byte("#!/bin/sh\necho ok\n")},
		"demo/references/notes.md":       {Data: []byte("# Notes\n")},
		"demo/references/scripts.md":     {Data: []byte("not a script folder\n")},
		"demo/assets/empty-folder/.keep": {Data: nil},
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

func TestMaterialize_WritesFilesAndExecutableScripts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache", "abc")
	if err := Materialize(testFS(), dir); err != nil {
		t.Fatal(err)
	}
	for path, exec := range map[string]bool{
		"skillet.toml":               false,
		"demo/SKILL.md":              false,
		"demo/scripts/run.py":        true,
		"demo/tools/check.sh":        true,
		"demo/references/scripts.md": false,
	} {
		got := mode(t, filepath.Join(dir, path))&0o111 != 0
		if got != exec {
			t.Errorf("%s executable = %v, want %v", path, got, exec)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "demo", "SKILL.md"))
	if err != nil || string(data) != skillText("demo", "", "Body") {
		t.Errorf("content: %q %v", data, err)
	}
	if s := LoadSkillFile(filepath.Join(dir, "demo", SkillFile)); !s.Valid() {
		t.Errorf("materialized skill invalid: %v", s.Problems)
	}
}

func TestMaterialize_IdempotentAndReadOnlySafe(t *testing.T) {
	dir := t.TempDir()
	fsys := testFS()
	if err := Materialize(fsys, dir); err != nil {
		t.Fatal(err)
	}
	// Files already right are not written again: their mtimes stay.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	skill := filepath.Join(dir, "demo", "SKILL.md")
	if err := os.Chtimes(skill, old, old); err != nil {
		t.Fatal(err)
	}
	if err := Materialize(fsys, dir); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(skill); !info.ModTime().Equal(old) {
		t.Errorf("unchanged file rewritten")
	}
	// A read-only copy is fine as long as nothing needs writing.
	var dirs []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil {
			if d.IsDir() {
				dirs = append(dirs, p)
			} else {
				os.Chmod(p, mode(t, p)&^0o222)
			}
		}
		return nil
	})
	for _, d := range dirs {
		os.Chmod(d, 0o555)
	}
	t.Cleanup(func() {
		for _, d := range dirs {
			os.Chmod(d, 0o755)
		}
	})
	if err := Materialize(fsys, dir); err != nil {
		t.Errorf("second materialize of a read-only copy: %v", err)
	}
	for _, d := range dirs {
		os.Chmod(d, 0o755)
	}
	// A file that differs is replaced, even if it was read-only.
	fsys["demo/SKILL.md"] = &fstest.MapFile{Data: []byte(skillText("demo", "", "New body"))}
	if err := Materialize(fsys, dir); err != nil {
		t.Fatal(err)
	}
	if s := LoadSkillFile(filepath.Join(dir, "demo", SkillFile)); s.Body != "New body" {
		t.Errorf("body = %q", s.Body)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "demo"))
	for _, e := range entries {
		if e.Name()[0] == '.' {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestContentHash_ChangesWithContent(t *testing.T) {
	a, err := ContentHash(testFS())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ContentHash(testFS())
	fsys := testFS()
	fsys["demo/SKILL.md"] = &fstest.MapFile{Data: []byte("changed")}
	c, _ := ContentHash(fsys)
	if a != b || a == c || len(a) != 16 {
		t.Errorf("hashes %q %q %q", a, b, c)
	}
	root, err := BuiltinRoot(testFS(), t.TempDir())
	if err != nil || !root.Builtin || root.Label != LabelBuiltin || filepath.Base(root.Dir) != a {
		t.Errorf("root = %+v, %v", root, err)
	}
}
