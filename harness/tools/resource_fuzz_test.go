package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadResource reads arbitrary paths from a skill folder that sits
// beside a secret and holds every way out: symlinks to a file and a folder
// outside, a relative link to its parent, links to hidden files, hidden
// files, a named pipe. Whatever the path, what comes back is the text of a
// visible file inside the skill, or an error that says something.
func FuzzReadResource(f *testing.F) {
	dir, outside := makeSkill(f)
	symlink(f, filepath.Join(outside, "secret.txt"), filepath.Join(dir, "references", "leak.md"))
	symlink(f, outside, filepath.Join(dir, "assets", "outdir"))
	symlink(f, "..", filepath.Join(dir, "up"))
	symlink(f, "../../outside/secret.txt", filepath.Join(dir, "assets", "rel-leak.md"))
	symlink(f, filepath.Join(dir, ".env"), filepath.Join(dir, "assets", "env.txt"))
	symlink(f, filepath.Join(dir, "references", "guide.md"), filepath.Join(dir, "assets", "guide-link.md"))
	symlink(f, filepath.Join(dir, "no-such-file"), filepath.Join(dir, "assets", "dangling.md"))
	_ = mkfifo(filepath.Join(dir, "assets", "pipe"))

	// The texts a read may return: the visible regular files inside.
	allowed := map[string]bool{}
	for _, p := range []string{"SKILL.md", "references/guide.md", "assets/template.txt", "scripts/run.sh"} {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			f.Fatal(err)
		}
		allowed[string(b)] = true
	}

	for _, seed := range []string{
		"references/guide.md", "SKILL.md", "assets/guide-link.md", "./scripts/run.sh", "references//guide.md",
		"../outside/secret.txt", "references/../../outside/secret.txt", "references/leak.md", "assets/outdir/secret.txt",
		"assets/rel-leak.md", "up/outside/secret.txt", "up/demo/SKILL.md", "up/x", ".env", "assets/env.txt",
		".git/config", "references/.draft.md", "/etc/passwd", dir + "/SKILL.md", `..\outside\secret.txt`,
		`references\..\..\outside\secret.txt`, "references/guide.md\x00", "%2e%2e/outside/secret.txt", "assets/pipe",
		"assets/dangling.md", "assets", ".", "", " ", "~/x", "C:/Windows", `\\server\share`, "références/guide.md",
		strings.Repeat("a/", 300) + "b",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		text, err := ReadResource(dir, rel, 0)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("%q: an error with no message", rel)
			}
			return
		}
		if !allowed[text] {
			t.Fatalf("%q read text that is not a visible file of the skill: %q", rel, text)
		}
	})
}
