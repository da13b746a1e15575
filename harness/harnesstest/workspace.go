package harnesstest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"skillet/skills"
)

// ConfigFile is the name of a workspace's config (config.File).
const ConfigFile = "skillet.toml"

// Workspace is a folder of skills, tools and a config made for one test,
// removed when it ends. Every method fails the test on an I/O error.
type Workspace struct {
	// T is the test the workspace belongs to.
	T testing.TB
	// Root is the folder: a skills root, with workspace tools in Root/tools.
	Root string
}

// NewWorkspace makes an empty workspace in a temporary folder.
func NewWorkspace(t testing.TB) *Workspace {
	t.Helper()
	return &Workspace{T: t, Root: t.TempDir()}
}

// Write writes text to the file at rel (slash-separated, under Root),
// making its folders, and returns its path.
func (w *Workspace) Write(rel, text string) string {
	w.T.Helper()
	p := filepath.Join(w.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		w.T.Fatal(err)
	}
	return p
}

// Skill writes the skill NAME/SKILL.md with a description and a body;
// extra is YAML added to the frontmatter, each line ending in a newline.
// It returns the skill's folder.
func (w *Workspace) Skill(name, desc, body, extra string) string {
	w.T.Helper()
	text := fmt.Sprintf("---\nname: %s\ndescription: %s\n%s---\n%s\n", name, desc, extra, body)
	p := w.Write(filepath.Join(name, "SKILL.md"), text)
	// a rewrite within the same clock tick must still look changed
	future := time.Now().Add(time.Duration(len(text)) * time.Millisecond)
	_ = os.Chtimes(p, future, future)
	return filepath.Dir(p)
}

// Tool writes a workspace tool file (Root/tools/FILE).
func (w *Workspace) Tool(file, yamlText string) string {
	w.T.Helper()
	return w.Write(filepath.Join("tools", file), yamlText)
}

// SkillTool writes a tool file of one skill (Root/SKILL/tools/FILE).
func (w *Workspace) SkillTool(skill, file, yamlText string) string {
	w.T.Helper()
	return w.Write(filepath.Join(skill, "tools", file), yamlText)
}

// ResponseTool writes the workspace tool NAME version V, which takes a
// string q and answers response (a template over the arguments).
func (w *Workspace) ResponseTool(name string, version int, response string) string {
	w.T.Helper()
	return w.Tool(fmt.Sprintf("%s.v%d.yaml", name, version), fmt.Sprintf("name: %s\nversion: %d\ndescription: The %s tool.\nparameters:\n  type: object\n  properties:\n    q: {type: string}\nresponse: %q\n", name, version, name, response))
}

// Config writes the workspace config (TOML) and returns its path.
func (w *Workspace) Config(tomlText string) string {
	w.T.Helper()
	return w.Write(ConfigFile, tomlText)
}

// Catalog reads the workspace's skills: Root first, then the roots in
// more, each shadowed by those before it. Workspace tools come from each
// root's tools folder.
func (w *Workspace) Catalog(more ...string) *skills.Catalog {
	w.T.Helper()
	roots := []skills.Root{{Dir: w.Root, Label: "test"}}
	for _, r := range more {
		roots = append(roots, skills.Root{Dir: r, Label: "test"})
	}
	c := skills.NewCatalog(roots, nil)
	if _, err := c.Refresh(); err != nil {
		w.T.Fatal(fmt.Errorf("read the test skills: %w", err))
	}
	return c
}
