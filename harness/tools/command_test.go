//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"skillet/skills"
)

// scriptTool is a command tool whose file sits in testdata/, running one of
// testdata/scripts/ through a path relative to that file.
func scriptTool(t testing.TB, script string) *skills.ToolDef {
	t.Helper()
	return &skills.ToolDef{
		Name:    strings.TrimSuffix(script, ".sh"),
		Version: 1,
		Kind:    skills.KindCommand,
		Command: []string{"./scripts/" + script},
		File:    testdata(t, "tool.yaml"),
	}
}

func TestCommand_ArgumentsOnStdinStdoutIsResult(t *testing.T) {
	r := NewRunner(Options{})
	args := `{"account_id":"acc-7","limit":3}`
	res := r.Run(context.Background(), Call{ID: "c1", Def: scriptTool(t, "echo_args.sh"), Args: json.RawMessage(args), Dir: t.TempDir()})
	if res.IsError {
		t.Fatalf("unexpected error: %s", res.Content)
	}
	if res.Content != args {
		t.Fatalf("content = %q, want the arguments %q", res.Content, args)
	}
}

func TestCommand_EmptyArgumentsAreAnEmptyObject(t *testing.T) {
	r := NewRunner(Options{})
	res := r.Run(context.Background(), Call{Def: scriptTool(t, "echo_args.sh"), Dir: t.TempDir()})
	if res.IsError || res.Content != "{}" {
		t.Fatalf("got %+v, want {}", res)
	}
}

func TestCommand_RelativeProgramIsRelativeToToolFile(t *testing.T) {
	// The working folder is elsewhere: the program must still be found
	// beside the tool file, and run in the working folder.
	dir := t.TempDir()
	r := NewRunner(Options{})
	res := r.Run(context.Background(), Call{Def: scriptTool(t, "env.sh"), Dir: dir})
	if res.IsError {
		t.Fatalf("unexpected error: %s", res.Content)
	}
	first, _, _ := strings.Cut(res.Content, "\n")
	want, _ := filepath.EvalSymlinks(dir)
	got, _ := filepath.EvalSymlinks(first)
	if got != want {
		t.Fatalf("working folder = %q, want the call's folder %q", first, dir)
	}
}

func TestCommand_BareNameIsLookedUpInPath(t *testing.T) {
	r := NewRunner(Options{})
	def := &skills.ToolDef{Name: "cat", Version: 1, Kind: skills.KindCommand, Command: []string{"cat"}}
	res := r.Run(context.Background(), Call{Def: def, Args: json.RawMessage(`{"x":1}`), Dir: t.TempDir()})
	if res.IsError || res.Content != `{"x":1}` {
		t.Fatalf("got %+v", res)
	}
}

func TestCommand_MissingOrNonExecutableProgram(t *testing.T) {
	r := NewRunner(Options{})
	cases := map[string]struct {
		cmd  string
		want string
	}{
		"missing relative": {"./scripts/nope.sh", "nope.sh"},
		"not executable":   {"./scripts/notexec.sh", "not executable"},
		"not in PATH":      {"skillet-no-such-program", `"skillet-no-such-program" not found in PATH`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			def := &skills.ToolDef{Name: "x", Version: 2, Kind: skills.KindCommand, Command: []string{c.cmd}, File: testdata(t, "tool.yaml")}
			res := r.Run(context.Background(), Call{Def: def, Dir: t.TempDir()})
			if !res.IsError {
				t.Fatalf("want an error, got %+v", res)
			}
			if !strings.Contains(res.Content, "x@2") || !strings.Contains(res.Content, c.want) {
				t.Fatalf("content %q should name the tool and say %q", res.Content, c.want)
			}
		})
	}
}

func TestCommand_NonZeroExitCarriesCodeAndStderr(t *testing.T) {
	r := NewRunner(Options{})
	res := r.Run(context.Background(), Call{Def: scriptTool(t, "fail.sh"), Dir: t.TempDir()})
	if !res.IsError {
		t.Fatalf("want a tool error, got %+v", res)
	}
	for _, want := range []string{"fail@1", "exit code 3", "error: account 42 not found", "partial result"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("content %q lacks %q", res.Content, want)
		}
	}
	if !strings.Contains(res.Stderr, "warming up") || !strings.Contains(res.Stderr, "account 42") {
		t.Errorf("stderr %q not kept", res.Stderr)
	}
}

func TestCommand_StderrIsCappedAndErrorKeepsItsEnd(t *testing.T) {
	r := NewRunner(Options{})
	res := r.Run(context.Background(), Call{Def: scriptTool(t, "bigerr.sh"), Dir: t.TempDir()})
	if !res.IsError {
		t.Fatalf("want a tool error, got %+v", res.Content)
	}
	if !strings.Contains(res.Content, "final: disk full") {
		t.Errorf("content lacks the last stderr line: %q", res.Content)
	}
	if len(res.Content) > 3*stderrTail {
		t.Errorf("content is %d bytes; the stderr excerpt should be about %d", len(res.Content), stderrTail)
	}
	if len(res.Stderr) > DefaultMaxOutput+200 {
		t.Errorf("stderr kept %d bytes, cap is %d", len(res.Stderr), DefaultMaxOutput)
	}
	if !strings.HasSuffix(strings.TrimSpace(res.Stderr), "final: disk full") || !strings.Contains(res.Stderr, "not shown") {
		t.Errorf("stderr should keep its end with a note: %q...", res.Stderr[:min(200, len(res.Stderr))])
	}
}

func TestCommand_HugeOutputIsCutWithNote(t *testing.T) {
	r := NewRunner(Options{})
	res := r.Run(context.Background(), Call{Def: scriptTool(t, "huge.sh"), Dir: t.TempDir()})
	if res.IsError {
		t.Fatalf("unexpected error: %.300s", res.Content)
	}
	body, note, ok := strings.Cut(res.Content, "\n[output cut: ")
	if !ok {
		t.Fatalf("no cut note in the last bytes: %q", res.Content[max(0, len(res.Content)-200):])
	}
	if len(body) > DefaultMaxOutput || len(body) < DefaultMaxOutput-16 {
		t.Errorf("kept %d bytes, want about %d", len(body), DefaultMaxOutput)
	}
	if !strings.HasPrefix(body, "0123456789abcdef\n") {
		t.Errorf("the start of the output should be kept: %q", body[:40])
	}
	wantCut := groupDigits(4000000 - len(body))
	if !strings.Contains(note, wantCut+" of 4,000,000 bytes") {
		t.Errorf("note %q should say %s of 4,000,000 bytes were cut", note, wantCut)
	}
}

func TestCommand_MaxOutputFromDefinition(t *testing.T) {
	r := NewRunner(Options{})
	def := scriptTool(t, "huge.sh")
	def.MaxOutput = 100
	res := r.Run(context.Background(), Call{Def: def, Dir: t.TempDir()})
	body, _, ok := strings.Cut(res.Content, "\n[output cut: ")
	if !ok || len(body) != 100 {
		t.Fatalf("want 100 bytes and a note, got %q", res.Content)
	}
}

func TestCommand_ToolThatNeverReadsStdin(t *testing.T) {
	// Arguments far larger than a pipe's buffer: writing them fails with
	// EPIPE once the tool exits, and that must not fail the call.
	big := `{"blob":"` + strings.Repeat("x", 1<<20) + `"}`
	r := NewRunner(Options{})
	res := r.Run(context.Background(), Call{Def: scriptTool(t, "nostdin.sh"), Args: json.RawMessage(big), Dir: t.TempDir()})
	if res.IsError || strings.TrimSpace(res.Content) != "did not read" {
		t.Fatalf("got %+v", res)
	}
}

func TestCommand_TimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	def := scriptTool(t, "sleeper.sh")
	def.Timeout = 300 * time.Millisecond
	r := NewRunner(Options{})
	res := r.Run(context.Background(), Call{Def: def, Dir: dir})
	if !res.IsError || !strings.Contains(res.Content, "timed out after 300ms") {
		t.Fatalf("want a timeout error, got %+v", res)
	}
	if !strings.Contains(res.Content, "started") {
		t.Errorf("output before the timeout should be kept: %q", res.Content)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "grandchild.pid")))
}

func TestCommand_DefaultTimeoutFromOptions(t *testing.T) {
	dir := t.TempDir()
	r := NewRunner(Options{DefaultTimeout: 200 * time.Millisecond})
	res := r.Run(context.Background(), Call{Def: scriptTool(t, "sleeper.sh"), Dir: dir})
	if !res.IsError || !strings.Contains(res.Content, "timed out after 200ms") {
		t.Fatalf("want a timeout error, got %+v", res)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "grandchild.pid")))
}

func TestR25_CancelKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	r := NewRunner(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan Result, 1)
	go func() { done <- r.Run(ctx, Call{Def: scriptTool(t, "sleeper.sh"), Dir: dir}) }()
	pid := readPid(t, filepath.Join(dir, "grandchild.pid"))
	cancel()
	res := <-done
	if !res.IsError || !strings.Contains(res.Content, "cancelled") {
		t.Fatalf("want a cancelled error, got %+v", res)
	}
	waitGone(t, pid)
}

func TestCommand_GrandchildHoldingPipesDoesNotHang(t *testing.T) {
	dir := t.TempDir()
	r := NewRunner(Options{})
	res := r.Run(context.Background(), Call{Def: scriptTool(t, "leaver.sh"), Dir: dir})
	if res.IsError || strings.TrimSpace(res.Content) != "done" {
		t.Fatalf("got %+v", res)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "grandchild.pid")))
}

// TestCommand_EnvironmentIsAllowlisted runs a real tool printing its
// environment: only the default variables and those its file names reach
// it, whatever their names look like.
func TestCommand_EnvironmentIsAllowlisted(t *testing.T) {
	base := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=/home/someone",
		"LANG=C.UTF-8",
		"LC_TIME=en_GB.UTF-8",
		"TZ=Europe/Paris",
		"PGPASSWORD=pg-hunter2",
		"DATABASE_URL=postgres://app:db-hunter2@db.internal/app",
		"STRIPE_APIKEY=stripe-apikey",
		"AWS_ACCESS_KEY_ID=AKIAEXAMPLE",
		"SSH_AUTH_SOCK=/tmp/ssh-agent.sock",
		"OPENAI_BASE_URL=https://gw.example/v1?key=gw-key",
		"FOO_TOKEN=foo-secret",
		"BAR_TOKEN=bar-visible",
		"OPENAI_API_KEY=sk-never",
		"PLAIN=not-named",
		"NAMED_PLAIN=named",
		"SKILLET_STATE=/stale/state.json",
	}
	def := scriptTool(t, "env.sh")
	def.Env = []string{"BAR_TOKEN", "NAMED_PLAIN", "OPENAI_API_KEY"}
	r := NewRunner(Options{Env: base})
	dir := t.TempDir()
	state, store := filepath.Join(dir, "state.json"), filepath.Join(dir, "store.json")
	res := r.Run(context.Background(), Call{Def: def, Dir: dir, StateFile: state, StoreFile: store})
	if res.IsError {
		t.Fatalf("unexpected error: %s", res.Content)
	}
	env := map[string]string{}
	for _, line := range strings.Split(res.Content, "\n")[1:] {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	for _, hidden := range []string{"PGPASSWORD", "DATABASE_URL", "STRIPE_APIKEY", "AWS_ACCESS_KEY_ID",
		"SSH_AUTH_SOCK", "OPENAI_BASE_URL", "FOO_TOKEN", "OPENAI_API_KEY", "PLAIN"} {
		if v, ok := env[hidden]; ok {
			t.Errorf("%s is visible (%q)", hidden, v)
		}
	}
	for _, leak := range []string{"hunter2", "stripe-apikey", "AKIAEXAMPLE", "gw-key", "sk-never"} {
		if strings.Contains(res.Content, leak) {
			t.Errorf("the tool saw %q:\n%s", leak, res.Content)
		}
	}
	want := map[string]string{
		"BAR_TOKEN":     "bar-visible",
		"NAMED_PLAIN":   "named",
		"HOME":          "/home/someone",
		"LANG":          "C.UTF-8",
		"LC_TIME":       "en_GB.UTF-8",
		"TZ":            "Europe/Paris",
		"SKILLET_STATE": state,
		"SKILLET_STORE": store,
		"SKILLET_TOOL":  "env@1",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
}

func TestCommand_NoStateVariablesForAgentTools(t *testing.T) {
	r := NewRunner(Options{Env: []string{"PATH=" + os.Getenv("PATH"), "SKILLET_STORE=/stale"}})
	res := r.Run(context.Background(), Call{Def: scriptTool(t, "env.sh"), Dir: t.TempDir()})
	if strings.Contains(res.Content, "SKILLET_STATE=") || strings.Contains(res.Content, "SKILLET_STORE=") {
		t.Fatalf("agent tool sees state variables:\n%s", res.Content)
	}
}

func TestR26_CommandToolWritesStoreThroughEnvironment(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store.json")
	r := NewRunner(Options{})
	res := r.Run(context.Background(), Call{Def: scriptTool(t, "store.sh"), Dir: dir, StoreFile: store})
	if res.IsError {
		t.Fatalf("unexpected error: %s", res.Content)
	}
	got, err := ReadJSONObject(store)
	if err != nil || got["from"] != "command" {
		t.Fatalf("store = %v, %v", got, err)
	}
}

func TestPassedToTools(t *testing.T) {
	for name, want := range map[string]bool{
		"PATH": true, "LC_ALL": true, "LC_": true, "TMPDIR": true, "SHELL": true,
		"GITHUB_TOKEN": false, "PGPASSWORD": false, "path": false, "LCX": false, "XDG_CONFIG_HOME": false,
	} {
		if got := passedToTools(name); got != want {
			t.Errorf("passedToTools(%q) = %v, want %v", name, got, want)
		}
	}
}
