package harnesstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorkspaceWritesSkillsToolsAndConfig(t *testing.T) {
	w := NewWorkspace(t)
	dir := w.Skill("alpha", "Alpha reviews accounts.", "Alpha body.", "tools:\n  - name: alpha_tool\nmetadata:\n  version: \"2\"\n")
	w.ResponseTool("alpha_tool", 1, "alpha says {{.q}}")
	w.SkillTool("alpha", "own.yaml", "name: own\nversion: 1\ndescription: Its own tool.\nresponse: ok\n")
	cfg := w.Config("[session]\nmax_loaded_skills = 2\n")
	if dir != filepath.Join(w.Root, "alpha") || cfg != filepath.Join(w.Root, ConfigFile) {
		t.Fatalf("paths %s %s", dir, cfg)
	}
	other := NewWorkspace(t)
	other.Skill("alpha", "An older alpha.", "Old.", "")
	other.Skill("beta", "Beta drafts notes.", "Beta body.", "")
	c := w.Catalog(other.Root)
	a := c.Get("alpha")
	if a == nil || a.Description != "Alpha reviews accounts." || !strings.Contains(a.Body, "Alpha body.") || a.Version != "2" {
		t.Fatalf("alpha: %+v", a)
	}
	if c.Get("beta") == nil || len(c.Shadowed()) != 1 {
		t.Fatalf("beta %v, %d shadowed", c.Get("beta"), len(c.Shadowed()))
	}
	if _, err := os.Stat(filepath.Join(w.Root, "tools", "alpha_tool.v1.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tools", "own.yaml")); err != nil {
		t.Fatal(err)
	}
}
