package agenttools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealSkillScript runs a real skill's script the way its SKILL.md
// says, through each profile's shell tool, in a workspace holding the
// task's input: the analysis reaches the model in the agent's framing and
// Read can open the skill's script by its absolute path.
func TestRealSkillScript(t *testing.T) {
	const corpus = "/work/shared/real-skills-runnable"
	const name = "terraform-azurerm-set-diff-analyzer"
	skillDir := filepath.Join(corpus, "skills", name)
	taskDir := filepath.Join(corpus, "tasks", name)
	if _, err := os.Stat(filepath.Join(skillDir, "scripts", "analyze_plan.py")); err != nil {
		t.Skipf("the runnable skills corpus is not on this machine: %v", err)
	}
	var task struct {
		Outcome struct{ Strings []string } `json:"outcome"`
	}
	raw, err := os.ReadFile(filepath.Join(taskDir, "task.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &task); err != nil {
		t.Fatal(err)
	}
	plan, err := os.ReadFile(filepath.Join(taskDir, "fixtures", "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := "PYTHONDONTWRITEBYTECODE=1 python3 " + filepath.Join(skillDir, "scripts", "analyze_plan.py") + " plan.json"
	for _, c := range []struct{ profile, tool, key string }{
		{"claude-code", "Bash", "command"}, {"codex", "exec_command", "cmd"}, {"skillet", "shell", "command"},
		{"crush", "bash", "command"}, {"opencode", "bash", "command"}, {"gemini-cli", "run_shell_command", "command"},
	} {
		t.Run(c.profile, func(t *testing.T) {
			w := newWorkspace(t, map[string]string{"plan.json": string(plan)})
			w.env.Files = testResolver{root: w.root, readOnly: []string{skillDir}}
			w.env.SkillDirs = []string{skillDir}
			res := w.call(c.profile, c.tool, map[string]any{c.key: cmd, "description": "analyze the plan"})
			if res.IsError {
				t.Fatalf("script failed: %s", res.Content)
			}
			for _, s := range task.Outcome.Strings {
				if !strings.Contains(res.Content, s) {
					t.Errorf("output lacks %q:\n%s", s, res.Content)
				}
			}
			if res.Shell == nil || res.Shell.Dir != w.root || res.Shell.ExitCode != 0 {
				t.Errorf("ShellRun = %+v", res.Shell)
			}
		})
	}
	w := newWorkspace(t, nil)
	w.env.Files = testResolver{root: w.root, readOnly: []string{skillDir}}
	w.env.SkillDirs = []string{skillDir}
	res := w.call("claude-code", "Read", map[string]any{"file_path": filepath.Join(skillDir, "scripts", "analyze_plan.py"), "limit": 5})
	wantContains(t, res, false, "1\t")
	res = w.call("claude-code", "Edit", map[string]any{"file_path": filepath.Join(skillDir, "SKILL.md"), "old_string": "a", "new_string": "b"})
	wantContains(t, res, true, "which tools may only read")
}
