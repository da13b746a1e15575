package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"skillet/harness/event"
	"skillet/harness/sandbox"
	wspace "skillet/harness/workspace"
)

// needSandbox skips where no sandbox can start, unless CI says it must.
func needSandbox(t *testing.T) {
	t.Helper()
	if _, err := sandbox.New(sandbox.Options{}); err != nil {
		if os.Getenv("SKILLET_REQUIRE_SANDBOX") != "" {
			t.Fatalf("no sandbox can start, and SKILLET_REQUIRE_SANDBOX is set: %v", err)
		}
		t.Skipf("no sandbox can start here: %v", err)
	}
}

func jsonArgs(v map[string]any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// agentRoot is the session's workspace folder.
func agentRoot(t *testing.T, s *Session) string {
	t.Helper()
	ws := read(s, func(f *frame) *event.WorkspaceInfo { return f.st.Workspace })
	if ws == nil || ws.Root == "" {
		t.Fatal("the session has no workspace")
	}
	return ws.Root
}

// TestAgentToolsWorkInTheWorkspaceAndAreJournaled: a shell command and the
// file tools change the workspace; every change is journaled with its
// content, shown as a diff, and the workspace can be written out as it was
// at any call.
func TestAgentToolsWorkInTheWorkspaceAndAreJournaled(t *testing.T) {
	needSandbox(t)
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", func(o *Options) { o.ApproveAll = true })
	root := agentRoot(t, f.s)
	f.turn("make files",
		call("shell", jsonArgs(map[string]any{"command": "mkdir -p out && echo hello > out/a.txt && pwd"})),
		call("write", jsonArgs(map[string]any{"path": "deep/er/b.txt", "content": "one\ntwo\n"})),
		call("edit", jsonArgs(map[string]any{"path": "deep/er/b.txt", "old_text": "two", "new_text": "three"})),
		call("shell", jsonArgs(map[string]any{"command": "rm out/a.txt"})),
		say("done"))
	res := f.results()
	if len(res) != 4 {
		t.Fatalf("%d results, want 4", len(res))
	}
	sh := res[0].Shell
	if sh == nil || sh.ExitCode != 0 || !strings.Contains(sh.Output, root) || sh.Sandbox != "bubblewrap" {
		t.Fatalf("shell run: %+v (%s)", sh, res[0].Text)
	}
	if !strings.Contains(res[0].Diff, "+hello") || !strings.Contains(res[2].Diff, "-two") || !strings.Contains(res[2].Diff, "+three") {
		t.Fatalf("diffs:\n%s\n---\n%s", res[0].Diff, res[2].Diff)
	}
	if b, err := os.ReadFile(filepath.Join(root, "deep/er/b.txt")); err != nil || string(b) != "one\nthree\n" {
		t.Fatalf("b.txt: %q %v", b, err)
	}
	changed := f.rec.ofType(event.TypeWorkspaceChanged)
	if len(changed) != 4 {
		t.Fatalf("%d workspace_changed events, want 4", len(changed))
	}
	// the fold keeps what changed, live and reopened alike
	files := read(f.s, func(f *frame) map[string]event.FileChange { return f.st.Files })
	if files["out/a.txt"].Op != event.FileDelete || files["deep/er/b.txt"].Op == "" {
		t.Fatalf("files: %+v", files)
	}
	journal := filepath.Join(f.s.Dir(), JournalFile)
	out := filepath.Join(t.TempDir(), "at")
	// after the first shell call: out/a.txt holds hello, b.txt is not yet
	rep, err := wspace.WriteAt(journal, wspace.Point{ToolCallID: res[0].ToolCallID}, out)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "out/a.txt")); err != nil || string(b) != "hello\n" || rep.Files == 0 {
		t.Fatalf("a.txt at the first call: %q %v (%+v)", b, err, rep)
	}
	if _, err := os.Stat(filepath.Join(out, "deep/er/b.txt")); err == nil {
		t.Fatal("b.txt is there before it was written")
	}
	end := filepath.Join(t.TempDir(), "end")
	if _, err := wspace.WriteAt(journal, wspace.Point{}, end); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(end, "deep/er/b.txt")); string(b) != "one\nthree\n" {
		t.Fatalf("b.txt at the end: %q", b)
	}
	if _, err := os.Stat(filepath.Join(end, "out/a.txt")); err == nil {
		t.Fatal("a.txt was deleted")
	}
	if _, err := wspace.WriteAt(journal, wspace.Point{}, end); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("writing into a full folder: %v", err)
	}
	// reopened, the session finds its workspace again
	f.s.Close()
	s2, err := Open(journal, Options{Config: f.cfg, Catalog: w.catalog(), Model: f.model, ModelName: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := agentRoot(t, s2); got != root {
		t.Fatalf("reopened workspace %s, want %s", got, root)
	}
	if len(read(s2, func(f *frame) map[string]event.FileChange { return f.st.Files })) != len(files) {
		t.Fatal("the reopened fold lost the changed files")
	}
}

// TestAgentToolsAskAndAreRefusedOutsideTheWorkspace: headless, a command
// is denied unless approved; the read-only tools never ask; paths outside
// the workspace and the skills are refused; the journal and the API key
// are out of a command's reach.
func TestAgentToolsAskAndAreRefusedOutsideTheWorkspace(t *testing.T) {
	needSandbox(t)
	t.Setenv("OPENAI_API_KEY", "sk-secret-for-the-harness-only")
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("try", call("shell", jsonArgs(map[string]any{"command": "echo hi"})),
		call("read", jsonArgs(map[string]any{"path": "/etc/passwd"})),
		call("read", jsonArgs(map[string]any{"path": filepath.Join(w.root, "alpha", "SKILL.md")})),
		say("done"))
	res := f.results()
	if !res[0].Refused || !strings.Contains(res[0].Text, "--approve") {
		t.Fatalf("an unapproved command ran: %+v", res[0])
	}
	if !res[1].IsError || strings.Contains(res[1].Text, "root:") {
		t.Fatalf("/etc/passwd: %+v", res[1])
	}
	if res[2].IsError || !strings.Contains(res[2].Text, "Alpha instructions") {
		t.Fatalf("a skill's file: %+v", res[2])
	}
	g := w.open("", func(o *Options) { o.ApproveAll = true })
	journal := filepath.Join(g.s.Dir(), JournalFile)
	g.turn("peek", call("shell", jsonArgs(map[string]any{"command": "cat " + journal + "; env; cat /proc/1/environ; echo x > " + filepath.Join(w.root, "alpha", "planted")})), say("done"))
	r := g.lastResult()
	if r.Shell == nil || strings.Contains(r.Shell.Output, "session_start") || strings.Contains(r.Shell.Output, "sk-secret") {
		t.Fatalf("the command reached the journal or the key: %+v", r.Shell)
	}
	if _, err := os.Stat(filepath.Join(w.root, "alpha", "planted")); err == nil {
		t.Fatal("a command wrote into a skill's folder")
	}
}

// TestAllowedToolsApproveUnderClaudeCodeOnly: a loaded skill's
// allowed-tools pre-approves matching calls under claude-code, and the
// call says so; under skillet R15 holds (a skill grants nothing) and the
// call shows what Claude Code would have approved.
func TestAllowedToolsApproveUnderClaudeCodeOnly(t *testing.T) {
	needSandbox(t)
	w := newWorkspace(t)
	w.skill("greeter", "Greets people by running echo.", "Run echo.", "allowed-tools: Bash(echo:*) Read\n")
	cc := w.open("", func(o *Options) { o.Profile = "claude-code" })
	cc.turn("greet", call("Skill", `{"skill":"greeter"}`), call("Bash", jsonArgs(map[string]any{"command": "echo hello"})),
		call("Bash", jsonArgs(map[string]any{"command": "rm -rf x"})), say("done"))
	res := cc.results()
	if res[1].IsError || !strings.Contains(res[1].ApprovedBy, "greeter") || !strings.Contains(res[1].Text, "hello") {
		t.Fatalf("echo under claude-code: %+v", res[1])
	}
	if !res[2].Refused {
		t.Fatalf("rm ran without approval: %+v", res[2])
	}
	sk := w.open("", nil)
	sk.turn("greet", load("greeter"), call("shell", jsonArgs(map[string]any{"command": "echo hello"})), say("done"))
	r := sk.lastResult()
	if !r.Refused || !strings.Contains(r.WouldApprove, "greeter") || r.ApprovedBy != "" {
		t.Fatalf("under skillet a skill granted something: %+v", r)
	}
}

// TestPermissionsDenyAndAllowByPattern: [[permissions]] rules in Claude
// Code's syntax refuse or approve calls without asking.
func TestPermissionsDenyAndAllowByPattern(t *testing.T) {
	needSandbox(t)
	w := newWorkspace(t)
	basicSkills(w)
	cfg := "[[permissions]]\nallow = \"Bash(echo:*)\"\n[[permissions]]\ndeny = \"Write(secret/**)\"\n"
	f := w.open(cfg, func(o *Options) { o.Profile = "claude-code"; o.ApproveAll = true })
	f.turn("go", call("Bash", jsonArgs(map[string]any{"command": "echo ok"})),
		call("Write", jsonArgs(map[string]any{"file_path": "secret/k.txt", "content": "x"})), say("done"))
	res := f.results()
	if !strings.Contains(res[0].ApprovedBy, "[[permissions]]") {
		t.Fatalf("allow rule: %+v", res[0])
	}
	if !res[1].Refused || !strings.Contains(res[1].Text, "deny") {
		t.Fatalf("deny rule: %+v", res[1])
	}
	if _, err := os.Stat(filepath.Join(agentRoot(t, f.s), "secret", "k.txt")); err == nil {
		t.Fatal("a denied write happened")
	}
}

// TestAgentToolsOffLeaveTheProfileAlone: agent_tools = false offers no
// agent tool and makes no workspace.
func TestAgentToolsOffLeaveTheProfileAlone(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\nagent_tools = false\n", nil)
	f.turn("hi", say("done"))
	for _, n := range toolNamesOf(f.model.last()) {
		if n == "shell" || n == "read" {
			t.Fatalf("agent tool %s offered with agent_tools = false", n)
		}
	}
	if read(f.s, func(f *frame) *event.WorkspaceInfo { return f.st.Workspace }) != nil {
		t.Fatal("a workspace without agent tools")
	}
}

// TestExportShowsCommandsAndDiffs: the Markdown export names where a
// command ran and how it ended, and shows the diff of what a call changed.
func TestExportShowsCommandsAndDiffs(t *testing.T) {
	needSandbox(t)
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", func(o *Options) { o.ApproveAll = true })
	f.turn("make a file", call("shell", jsonArgs(map[string]any{"command": "echo exported > e.txt"})), say("done"))
	var b strings.Builder
	if err := f.s.ExportMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bubblewrap sandbox): exit 0", "Changed files:", "+exported"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the export lacks %q:\n%s", want, b.String())
		}
	}
}
