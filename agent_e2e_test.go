package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"skillet/harness/sandbox"
)

// These tests run real public skills end to end: the real binary, a
// loopback model scripted to follow each skill as its SKILL.md says (load
// it, then run the commands it gives with the profile's shell tool), the
// skills' own scripts in the real sandbox, and each task's own check of
// the outcome in the workspace.

// runnableDir holds the runnable skills and their tasks.
const runnableDir = "../shared/real-skills-runnable"

// runnableTask is a task.json, as far as these tests read it.
type runnableTask struct {
	Skill    string `json:"skill"`
	Message  string `json:"message"`
	Fixtures string `json:"fixtures"`
	Setup    string `json:"setup"`
	Apt      []string
	Outcome  struct {
		Kind      string     `json:"kind"`
		Path      string     `json:"path"`
		Check     string     `json:"check"`
		Command   string     `json:"command"`
		Strings   []string   `json:"strings"`
		AnyOf     [][]string `json:"any_of"`
		AlsoCheck *struct {
			Command string `json:"command"`
		} `json:"also_check"`
	} `json:"outcome"`
}

// requireSandbox skips a test where no sandbox can start, unless CI says
// it must.
func requireSandbox(t *testing.T) {
	t.Helper()
	if _, err := sandbox.New(sandbox.Options{}); err != nil {
		if os.Getenv("SKILLET_REQUIRE_SANDBOX") != "" {
			t.Fatalf("no sandbox can start, and SKILLET_REQUIRE_SANDBOX is set: %v", err)
		}
		t.Skipf("no sandbox can start here: %v", err)
	}
}

// scriptedAgent answers like a model that follows a skill: first it
// activates the skill the profile's way, then it runs script with the
// profile's shell tool, then it answers with what the command printed.
func scriptedAgent(t *testing.T, activate, shell func() (string, string)) *httptest.Server {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream   bool `json:"stream"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		assistants, lastTool := 0, ""
		for _, m := range req.Messages {
			switch m.Role {
			case "assistant":
				assistants++
			case "tool":
				var s string
				_ = json.Unmarshal(m.Content, &s)
				lastTool = s
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(delta map[string]any, finish string) {
			c := map[string]any{"index": 0, "delta": delta}
			if finish != "" {
				c["finish_reason"] = finish
			}
			b, _ := json.Marshal(map[string]any{"choices": []any{c}})
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
		call := func(name, args string) {
			send(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", len(req.Messages)), "type": "function",
				"function": map[string]any{"name": name, "arguments": args}}}}, "")
			send(map[string]any{}, "tool_calls")
		}
		switch assistants {
		case 0:
			call(activate())
		case 1:
			call(shell())
		default:
			send(map[string]any{"role": "assistant", "content": "Here is what the skill's script found:\n" + lastTool}, "stop")
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// activationCall is how a model activates a skill under each profile.
func activationCall(prof, skill, skillDir string) (string, string) {
	switch prof {
	case "claude-code":
		return "Skill", fmt.Sprintf(`{"skill":%q}`, skill)
	case "codex":
		return shellCall(prof, "cat "+filepath.Join(skillDir, "SKILL.md"))
	}
	return "load_skill", fmt.Sprintf(`{"name":%q}`, skill)
}

// shellCall is a call of each profile's shell tool.
func shellCall(prof, command string) (string, string) {
	args := func(key string) string {
		b, _ := json.Marshal(map[string]any{key: command})
		return string(b)
	}
	switch prof {
	case "claude-code":
		return "Bash", args("command")
	case "codex":
		return "exec_command", args("cmd")
	}
	return "shell", args("command")
}

func TestRealSkillsRunEndToEndInTheSandbox(t *testing.T) {
	requireSandbox(t)
	if _, err := os.Stat(runnableDir); err != nil {
		t.Skipf("the runnable skills are not here (%s): %v", runnableDir, err)
	}
	// real paths: a script that compares its own path with argv (as
	// validate.mjs does) does nothing when run through a link
	skillsRoot, _ := filepath.EvalSymlinks(filepath.Join(runnableDir, "skills"))
	tasksRoot, _ := filepath.EvalSymlinks(filepath.Join(runnableDir, "tasks"))
	skillsRoot, _ = filepath.Abs(skillsRoot)
	tasksRoot, _ = filepath.Abs(tasksRoot)
	// a user's skills folder is theirs to write (a script that copies its
	// templates keeps their modes); the sandbox makes it read-only
	own := filepath.Join(t.TempDir(), "skills")
	if out, err := exec.Command("cp", "-a", skillsRoot, own).CombinedOutput(); err != nil {
		t.Fatalf("copy the skills: %v\n%s", err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", own).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v\n%s", err, out)
	}
	skillsRoot = own
	bin := skilletBinary(t)
	names, _ := os.ReadDir(tasksRoot)
	for _, prof := range []string{"skillet", "claude-code", "codex"} {
		for _, n := range names {
			taskDir := filepath.Join(tasksRoot, n.Name())
			var task runnableTask
			raw, err := os.ReadFile(filepath.Join(taskDir, "task.json"))
			if err != nil {
				continue
			}
			if err := json.Unmarshal(raw, &task); err != nil {
				t.Fatalf("%s: %v", n.Name(), err)
			}
			t.Run(prof+"/"+task.Skill, func(t *testing.T) {
				runTask(t, bin, prof, task, taskDir, filepath.Join(skillsRoot, task.Skill))
			})
		}
	}
}

// missingPackage names a Debian package a task needs that is not here.
func missingPackage(apt []string) string {
	for _, p := range apt {
		probe := map[string][]string{
			"python3-yaml":   {"/usr/bin/python3", "-c", "import yaml"},
			"python3-psutil": {"/usr/bin/python3", "-c", "import psutil"},
			"nodejs":         {"node", "--version"},
			"npm":            {"npm", "--version"},
			"git":            {"git", "--version"},
		}[p]
		if probe != nil && exec.Command(probe[0], probe[1:]...).Run() != nil {
			return p
		}
	}
	return ""
}

func runTask(t *testing.T, bin, prof string, task runnableTask, taskDir, skillDir string) {
	if p := missingPackage(task.Apt); p != "" {
		if os.Getenv("SKILLET_REQUIRE_SANDBOX") != "" {
			t.Fatalf("the task needs the Debian package %s, which CI installs", p)
		}
		t.Skipf("needs the Debian package %s", p)
	}
	tmp := t.TempDir()
	src := filepath.Join(tmp, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	judgeEnv := append(os.Environ(), "TASK_DIR="+taskDir, "SKILL_DIR="+skillDir, "WORKDIR="+src, "PYTHONDONTWRITEBYTECODE=1")
	if task.Fixtures != "" {
		if out, err := exec.Command("cp", "-a", filepath.Join(taskDir, task.Fixtures)+"/.", src).CombinedOutput(); err != nil {
			t.Fatalf("copy fixtures: %v\n%s", err, out)
		}
	}
	// the fixtures come from a read-only tree; a user's files are theirs
	if out, err := exec.Command("chmod", "-R", "u+w", src).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v\n%s", err, out)
	}
	if task.Setup != "" {
		cmd := exec.Command("bash", "-c", task.Setup)
		cmd.Dir, cmd.Env = src, judgeEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("setup: %v\n%s", err, out)
		}
	}
	solve, err := os.ReadFile(filepath.Join(taskDir, "solve.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// the commands the skill gives, with its folder where SKILL.md says
	// the scripts are
	script := strings.ReplaceAll(string(solve), "$SKILL_DIR", skillDir)
	script = strings.ReplaceAll(script, "${SKILL_DIR}", skillDir)
	srv := scriptedAgent(t, func() (string, string) { return activationCall(prof, task.Skill, skillDir) },
		func() (string, string) { return shellCall(prof, script) })
	cmd := exec.Command(bin, "run", "--skills", filepath.Dir(skillDir), "--profile", prof, "--workspace", src, "--approve-all",
		"--base-url", srv.URL+"/v1", "--events", filepath.Join(tmp, "events.jsonl"), task.Message)
	cmd.Env, cmd.Dir = procEnv(tmp, "OPENAI_API_KEY="+testAPIKey), tmp
	out, err := cmd.CombinedOutput()
	if prof == "skillet" && strings.Contains(string(out), "skill "+task.Skill+" is invalid and left out") {
		// Skillet's own profile follows the spec, which this skill breaks
		// (the agents list it; their profiles do too): the user is told
		// why, and the skill never loads
		for _, e := range journalEvents(t, tmp) {
			if e["type"] == "skill_loaded" && e["skill"] == task.Skill {
				t.Fatalf("an invalid skill loaded under skillet\n%s", out)
			}
		}
		return
	}
	if err != nil {
		t.Fatalf("skillet run: %v\n%s", err, out)
	}
	evs := journalEvents(t, tmp)
	var root string
	var shellOut strings.Builder
	activated := false
	for _, e := range evs {
		switch e["type"] {
		case "session_start":
			if ws, ok := e["workspace"].(map[string]any); ok {
				root, _ = ws["root"].(string)
			}
		case "skill_loaded":
			activated = activated || e["skill"] == task.Skill
		case "tool_result":
			if sh, ok := e["shell"].(map[string]any); ok {
				o, _ := sh["output"].(string)
				shellOut.WriteString(o)
			}
		}
	}
	if root == "" {
		t.Fatalf("the session recorded no workspace\n%s", out)
	}
	if !activated {
		t.Fatalf("%s was never loaded\n%s", task.Skill, out)
	}
	if shellOut.Len() == 0 {
		raw, _ := os.ReadFile(filepath.Join(tmp, "events.jsonl"))
		t.Fatalf("no shell call ran\n%s\n%s", out, raw)
	}
	// the source folder is never touched
	if task.Fixtures != "" {
		if diff, err := exec.Command("diff", "-r", filepath.Join(taskDir, task.Fixtures), src).CombinedOutput(); err != nil {
			t.Fatalf("the workspace's source changed:\n%s", diff)
		}
	}
	judge := func(command string) {
		c := exec.Command("bash", "-c", command)
		c.Dir = root
		c.Env = append(judgeEnv, "WORKDIR="+root)
		if res, err := c.CombinedOutput(); err != nil {
			t.Fatalf("the task's check failed in the workspace: %v\n%s\nshell output:\n%s", err, res, shellOut.String())
		}
	}
	o := task.Outcome
	switch o.Kind {
	case "file":
		if _, err := os.Stat(filepath.Join(root, o.Path)); err != nil {
			t.Fatalf("%s was not made: %v\nshell output:\n%s", o.Path, err, shellOut.String())
		}
		judge(o.Check)
	case "command":
		judge(o.Command)
	case "stdout-contains":
		for _, s := range o.Strings {
			if !strings.Contains(shellOut.String(), s) {
				t.Fatalf("the shell output lacks %q:\n%s", s, shellOut.String())
			}
		}
		if len(o.AnyOf) > 0 {
			ok := false
			for _, group := range o.AnyOf {
				all := true
				for _, s := range group {
					all = all && strings.Contains(shellOut.String(), s)
				}
				ok = ok || all
			}
			if !ok {
				t.Fatalf("the shell output has no group of %v:\n%s", o.AnyOf, shellOut.String())
			}
		}
		if o.AlsoCheck != nil {
			judge(o.AlsoCheck.Command)
		}
	default:
		t.Fatalf("outcome kind %q", o.Kind)
	}
}

// TestWorkspaceCommandWritesTheSessionsFiles: with the offline demo model
// told to call the shell tool, the command runs in the sandbox, skillet
// show lists the file it made, and skillet workspace writes it out, at the
// end and as it was before the call.
func TestWorkspaceCommandWritesTheSessionsFiles(t *testing.T) {
	requireSandbox(t)
	bin := skilletBinary(t)
	tmp := t.TempDir()
	env := procEnv(tmp)
	run := func(args ...string) (string, string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = env, tmp
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}
	out, errOut, err := run("run", "--approve-all", `call shell {"command":"mkdir -p notes && echo made in the sandbox > notes/a.txt && echo done"}`)
	if err != nil {
		t.Fatalf("skillet run: %v\n%s\n%s", err, out, errOut)
	}
	evs := journalEvents(t, tmp)
	id, _ := evs[0]["session_id"].(string)
	var callID string
	for _, e := range evs {
		if e["type"] == "tool_result" && e["shell"] != nil {
			callID, _ = e["tool_call_id"].(string)
		}
	}
	if callID == "" {
		t.Fatalf("no shell call ran:\n%s\n%s", out, errOut)
	}
	show, errOut, err := run("show", "--json", id)
	if err != nil {
		t.Fatalf("skillet show: %v\n%s", err, errOut)
	}
	var v struct {
		Workspace struct{ Root, Mode string }
		Files     []struct{ Path, Op string }
	}
	if err := json.Unmarshal([]byte(show), &v); err != nil {
		t.Fatal(err)
	}
	if v.Workspace.Mode != "scratch" || len(v.Files) == 0 {
		t.Fatalf("show --json: %s", show)
	}
	dir := filepath.Join(tmp, "out")
	if _, errOut, err := run("workspace", id, "--out", dir); err != nil {
		t.Fatalf("skillet workspace: %v\n%s", err, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "notes", "a.txt")); err != nil || string(b) != "made in the sandbox\n" {
		t.Fatalf("notes/a.txt: %q %v", b, err)
	}
	before := filepath.Join(tmp, "before")
	if _, errOut, err := run("workspace", id, "--at", "1", "--out", before); err != nil {
		t.Fatalf("skillet workspace --at 1: %v\n%s", err, errOut)
	}
	if _, err := os.Stat(filepath.Join(before, "notes", "a.txt")); err == nil {
		t.Fatal("the file is there before the call that made it")
	}
	if _, errOut, err := run("workspace", id, "--out", dir); err == nil || !strings.Contains(errOut, "not empty") {
		t.Fatalf("a full folder: %v %s", err, errOut)
	}
	if _, errOut, err := run("workspace", id, "--at", "nosuchcall", "--out", filepath.Join(tmp, "x")); err == nil || !strings.Contains(errOut, "no tool call") {
		t.Fatalf("an unknown call: %v %s", err, errOut)
	}
}

// TestReplayToolsMakesTheRecordedFileChangesAgain: a session recorded to a
// cassette ran a command that wrote a file; replayed with --replay-tools,
// no command runs, and the new workspace gets the file with its recorded
// content.
func TestReplayToolsMakesTheRecordedFileChangesAgain(t *testing.T) {
	requireSandbox(t)
	bin := skilletBinary(t)
	tmp := t.TempDir()
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = procEnv(tmp), tmp
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	cas := filepath.Join(tmp, "take.cassette")
	msg := `call shell {"command":"date +%s%N > stamp.txt; echo ran"}`
	if out, err := run("run", "--approve-all", "--record", cas, msg); err != nil {
		t.Fatalf("record: %v\n%s", err, out)
	}
	first, _ := filepath.Glob(filepath.Join(tmp, "state", "skillet", "sessions", "*", "workspace", "stamp.txt"))
	if len(first) != 1 {
		t.Fatalf("the recorded run wrote no stamp: %v", first)
	}
	b, _ := os.ReadFile(first[0])
	recorded := string(b)
	if out, err := run("run", "--replay", cas, "--replay-tools", msg); err != nil {
		t.Fatalf("replay: %v\n%s", err, out)
	}
	paths, _ := filepath.Glob(filepath.Join(tmp, "state", "skillet", "sessions", "*", "workspace", "stamp.txt"))
	if len(paths) != 2 {
		t.Fatalf("want the stamp in both workspaces, found %v", paths)
	}
	for _, p := range paths {
		if b, _ := os.ReadFile(p); string(b) != recorded {
			t.Fatalf("%s holds %q, the recording %q: the command ran again", p, b, recorded)
		}
	}
}
