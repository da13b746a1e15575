package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// makeSkill builds a skill folder beside an outside folder holding a
// secret, and returns the skill's folder.
func makeSkill(t testing.TB) (skillDir, outside string) {
	t.Helper()
	base := t.TempDir()
	skillDir = filepath.Join(base, "skills", "demo")
	outside = filepath.Join(base, "outside")
	files := map[string]string{
		filepath.Join(skillDir, "SKILL.md"):                "---\nname: demo\n---\nBody.\n",
		filepath.Join(skillDir, "references", "guide.md"):  "# Guide\nRead me.\n",
		filepath.Join(skillDir, "assets", "template.txt"):  "Dear {{name}},\n",
		filepath.Join(skillDir, "scripts", "run.sh"):       "#!/bin/sh\necho hi\n",
		filepath.Join(skillDir, ".env"):                    "API_KEY=hidden\n",
		filepath.Join(skillDir, ".git", "config"):          "[core]\n",
		filepath.Join(skillDir, "references", ".draft.md"): "draft\n",
		filepath.Join(outside, "secret.txt"):               "top secret\n",
		filepath.Join(base, "skills", "x"):                 "sibling file\n",
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return skillDir, outside
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func TestReadResource_FilesOfTheSkill(t *testing.T) {
	dir, _ := makeSkill(t)
	for rel, want := range map[string]string{
		"references/guide.md":   "# Guide\nRead me.\n",
		"assets/template.txt":   "Dear {{name}},\n",
		"scripts/run.sh":        "#!/bin/sh\necho hi\n",
		"SKILL.md":              "---\nname: demo\n---\nBody.\n",
		"./references/guide.md": "# Guide\nRead me.\n",
	} {
		got, err := ReadResource(dir, rel, 0)
		if err != nil || got != want {
			t.Errorf("%s: got %q, %v", rel, got, err)
		}
	}
}

func TestReadResource_PathEscapesAreRefused(t *testing.T) {
	dir, outside := makeSkill(t)
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(dir, "references", "leak.md"))
	symlink(t, outside, filepath.Join(dir, "assets", "outdir"))
	symlink(t, "/", filepath.Join(dir, "up"))

	cases := map[string]string{
		"../x":                               `".." is not allowed`,
		"../outside/secret.txt":              `".." is not allowed`,
		"references/../../x":                 `".." is not allowed`,
		`references\..\..\x`:                 `".." is not allowed`,
		"/etc/passwd":                        "absolute paths are not allowed",
		filepath.Join(outside, "secret.txt"): "absolute paths are not allowed",
		"references/leak.md":                 "leads outside the skill's folder",
		"assets/outdir/secret.txt":           "leads outside the skill's folder",
		"up/etc/passwd":                      "leads outside the skill's folder",
		".env":                               "hidden files",
		".git/config":                        "hidden files",
		"references/.draft.md":               "hidden files",
		"":                                   "no file named",
		"references/missing.md":              "no such file in the skill",
		"references":                         "is a folder",
	}
	for rel, want := range cases {
		got, err := ReadResource(dir, rel, 0)
		if err == nil {
			t.Errorf("%q: read %q, want an error", rel, got)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %q, want %q", rel, err, want)
		}
		if strings.Contains(got, "top secret") {
			t.Errorf("%q: leaked the outside file", rel)
		}
	}
}

func TestReadResource_SymlinkStayingInsideIsAllowed(t *testing.T) {
	dir, _ := makeSkill(t)
	symlink(t, "../references/guide.md", filepath.Join(dir, "assets", "guide-link.md"))
	symlink(t, "references", filepath.Join(dir, "refs"))
	for _, rel := range []string{"assets/guide-link.md", "refs/guide.md"} {
		got, err := ReadResource(dir, rel, 0)
		if err != nil || got != "# Guide\nRead me.\n" {
			t.Errorf("%s: got %q, %v", rel, got, err)
		}
	}
	// A link inside that leads to a hidden file is still refused.
	symlink(t, "../.env", filepath.Join(dir, "references", "env.md"))
	if _, err := ReadResource(dir, "references/env.md", 0); err == nil || !strings.Contains(err.Error(), "hidden file") {
		t.Errorf("link to .env: %v", err)
	}
}

func TestReadResource_SkillFolderThroughSymlink(t *testing.T) {
	dir, _ := makeSkill(t)
	link := filepath.Join(t.TempDir(), "linked-skill")
	symlink(t, dir, link)
	got, err := ReadResource(link, "references/guide.md", 0)
	if err != nil || got != "# Guide\nRead me.\n" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestReadResource_BinaryIsRefused(t *testing.T) {
	dir, _ := makeSkill(t)
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 3000)...)
	if err := os.WriteFile(filepath.Join(dir, "assets", "logo.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	latin1 := []byte("caf\xe9 cr\xe8me\n")
	if err := os.WriteFile(filepath.Join(dir, "assets", "menu.txt"), latin1, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadResource(dir, "assets/logo.png", 0)
	if err == nil || !strings.Contains(err.Error(), "binary file") || !strings.Contains(err.Error(), "image/png") ||
		!strings.Contains(err.Error(), groupDigits(len(png))+" bytes") {
		t.Errorf("png: %v", err)
	}
	if _, err := ReadResource(dir, "assets/menu.txt", 0); err == nil || !strings.Contains(err.Error(), "binary file") {
		t.Errorf("invalid UTF-8: %v", err)
	}
}

func TestReadResource_SniffWindowMayEndInsideACharacter(t *testing.T) {
	dir, _ := makeSkill(t)
	// 8191 ASCII bytes then a 3-byte character straddling the 8 KiB window.
	text := strings.Repeat("a", sniffSize-1) + "€ and more"
	if err := os.WriteFile(filepath.Join(dir, "references", "long.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResource(dir, "references/long.md", 0)
	if err != nil || got != text {
		t.Fatalf("err %v, got %d bytes", err, len(got))
	}
}

func TestReadResource_LargeFileIsCut(t *testing.T) {
	dir, _ := makeSkill(t)
	text := strings.Repeat("é", 1000) // 2,000 bytes
	if err := os.WriteFile(filepath.Join(dir, "references", "big.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResource(dir, "references/big.md", 101)
	if err != nil {
		t.Fatal(err)
	}
	body, note, ok := strings.Cut(got, "\n[file cut: ")
	if !ok {
		t.Fatalf("no cut note: %q", got)
	}
	if body != strings.Repeat("é", 50) {
		t.Errorf("body %q should be 50 whole characters", body)
	}
	if !strings.Contains(note, "first 100 of 2,000 bytes") {
		t.Errorf("note %q", note)
	}
}

func TestReadResource_NonRegularFileIsRefused(t *testing.T) {
	dir, _ := makeSkill(t)
	fifo := filepath.Join(dir, "references", "pipe")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, err := ReadResource(dir, "references/pipe", 0); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("fifo: %v", err)
	}
}

func TestListResources(t *testing.T) {
	dir, outside := makeSkill(t)
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(dir, "references", "leak.md"))
	symlink(t, "guide.md", filepath.Join(dir, "references", "alias.md"))
	symlink(t, "references", filepath.Join(dir, "refs"))
	got, err := ListResources(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SKILL.md", "assets/template.txt", "references/alias.md", "references/guide.md", "scripts/run.sh"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestListResources_Capped(t *testing.T) {
	dir, _ := makeSkill(t)
	many := filepath.Join(dir, "assets", "many")
	if err := os.MkdirAll(many, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range MaxListedResources + 20 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("f%04d.txt", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ListResources(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != MaxListedResources+1 {
		t.Fatalf("got %d entries, want %d and a note", len(got), MaxListedResources)
	}
	// The skill holds 520 + 4 files: 24 are left out.
	if note := got[len(got)-1]; note != "(24 more files not listed)" {
		t.Errorf("note = %q", note)
	}
	if !slices.IsSorted(got[:MaxListedResources]) {
		t.Errorf("list not sorted")
	}
}

func TestListResources_MissingFolder(t *testing.T) {
	if _, err := ListResources(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Fatal("want an error")
	}
}
