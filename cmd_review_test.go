package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"skillet/harness/event"
	"skillet/harness/harnesstest"
)

// writeSkill writes a minimal valid skill, with extra frontmatter lines.
func writeSkill(t *testing.T, root, name, extra string) {
	t.Helper()
	w := &harnesstest.Workspace{T: t, Root: root}
	w.Skill(name, fmt.Sprintf("The %s skill. Use when testing %s.", name, name), fmt.Sprintf("Do the %s thing.", name), extra)
}

// sessionStart returns the session_start event among JSON event lines.
func sessionStart(t *testing.T, lines string) map[string]any {
	t.Helper()
	for _, e := range events(t, lines) {
		if e["type"] == "session_start" {
			return e
		}
	}
	t.Fatalf("no session_start in:\n%s", lines)
	return nil
}

func TestRunResumeFindsTheSessionsSkillsAgain(t *testing.T) {
	tmp := isolate(t)
	first, second := filepath.Join(tmp, "first"), filepath.Join(tmp, "second")
	writeSkill(t, first, "alpha", "")
	writeSkill(t, second, "beta", "")
	code, out, errOut := runCmd(t, "", "run", "--skills", first, "--skills", second, "--events", "-", "load alpha", "load beta")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	start := sessionStart(t, out)
	id := start["session_id"].(string)
	if roots := fmt.Sprint(start["roots"]); roots != fmt.Sprint([]any{first, second}) {
		t.Fatalf("session_start roots = %v, want the two --skills folders", roots)
	}

	// from a folder with no skills of its own, without --skills
	elsewhere := filepath.Join(tmp, "elsewhere")
	os.MkdirAll(elsewhere, 0o755)
	t.Chdir(elsewhere)
	code, out, errOut = runCmd(t, "", "run", "--resume", id, "--events", "-", "load alpha")
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, "built-in sample skills") || strings.Contains(errOut, "no longer") {
		t.Fatalf("the resumed session lost its skills:\n%s", errOut)
	}
	if !strings.Contains(out, `"type":"skill_activated"`) || strings.Contains(out, `"type":"skill_loaded"`) {
		t.Fatalf("alpha should still be loaded and only become active again:\n%s", out)
	}

	// a folder that went away is named; a loaded skill that went with it
	// is the engine's warning, printed
	if err := os.RemoveAll(second); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCmd(t, "", "run", "--resume", id, "hello")
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"skillet: the session's skills folder " + second + " no longer exists: left out",
		"skillet: warning: skill beta was removed from disk: unloaded",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}

	// --skills wins over the session's folders
	other := filepath.Join(tmp, "other")
	writeSkill(t, other, "gamma", "")
	code, out, errOut = runCmd(t, "", "run", "--resume", id, "--skills", other, "--events", "-", "load gamma")
	if code != 0 || !strings.Contains(out, `"skill":"gamma"`) || !strings.Contains(errOut, "skill alpha was removed from disk: unloaded") {
		t.Fatalf("--skills on resume: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestRunResumeOfTheBuiltinSamplesKeepsTheirConfig(t *testing.T) {
	isolate(t)
	code, out, errOut := runCmd(t, "", "run", "--events", "-", "review account ACC-1042 for anomalies")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	start := sessionStart(t, out)
	if cfg, _ := start["config"].(string); !strings.HasSuffix(cfg, filepath.Join("sample-skills", filepath.Base(filepath.Dir(cfg)), "skillet.toml")) {
		t.Fatalf("session_start config = %q, want the samples' skillet.toml", cfg)
	}
	code, _, errOut = runCmd(t, "", "run", "--resume", start["session_id"].(string), "hello")
	if code != 0 || strings.Contains(errOut, "no longer") || strings.Contains(errOut, "warning") {
		t.Fatalf("resume of the samples: exit %d\n%s", code, errOut)
	}
}

func TestResumeCommandWorks(t *testing.T) {
	tmp := isolate(t)
	def := sessionsDir("")
	for _, tc := range []struct {
		c    common
		dir  string
		want string
	}{
		{common{}, filepath.Join(def, "abc"), "skillet --resume abc"},
		{common{offline: true, model: "my model"}, filepath.Join(def, "abc"), "skillet --offline --model 'my model' --resume abc"},
		{common{sessionDir: tmp}, filepath.Join(tmp, "abc"), "skillet --resume " + filepath.Join(tmp, "abc")},
		{common{baseURL: "http://localhost:11434/v1"}, "/x/it's", `skillet --base-url http://localhost:11434/v1 --resume '/x/it'\''s'`},
	} {
		if got := resumeCommand(&tc.c, "abc", tc.dir); got != tc.want {
			t.Errorf("resumeCommand = %s, want %s", got, tc.want)
		}
	}
	// the printed form of a session in its own folder reopens it
	code, out, errOut := runCmd(t, "", "run", "--session-dir", filepath.Join(tmp, "own"), "--events", "-", "hello")
	if code != 0 {
		t.Fatal(errOut)
	}
	id := sessionStart(t, out)["session_id"].(string)
	cmd := resumeCommand(&common{sessionDir: filepath.Join(tmp, "own")}, id, filepath.Join(tmp, "own", id))
	args := strings.Fields(strings.TrimPrefix(cmd, "skillet "))
	if code, _, errOut := runCmd(t, "", append([]string{"run"}, append(args, "again")...)...); code != 0 {
		t.Fatalf("%s: exit %d: %s", cmd, code, errOut)
	}
}

func TestRunUsageErrorsSayWhatAndExitTwo(t *testing.T) {
	tmp := isolate(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--config", filepath.Join(tmp, "nope.toml"), "x"}, "--config " + filepath.Join(tmp, "nope.toml") + ": no such file"},
		{[]string{"run", "--base-url", "localhost:8080/v1", "x"}, "--base-url localhost:8080/v1: want an http:// or https:// URL"},
		{[]string{"run", "--base-url", "ftp://example.com", "x"}, "want an http:// or https:// URL"},
		{[]string{"run", "--resume", "nosuch", "x"}, "--resume: no session nosuch in " + filepath.Join(tmp, "state", "skillet", "sessions")},
		{[]string{"run", "--set", "max_loaded_skills=many", "x"}, `skillet: --set max_loaded_skills=many: want a whole number, got "many"`},
		{[]string{"run", "--set", "max_loaded_skills", "x"}, "--set max_loaded_skills: want KEY=VALUE"},
		{[]string{"run", "--set", "bogus=1", "x"}, `--set bogus=1: unknown setting "bogus"`},
	} {
		code, out, errOut := runCmd(t, "", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
		if strings.Count(errOut, "--set") > 1 || strings.Contains(errOut, "max_loaded_skills=many: max_loaded_skills") {
			t.Errorf("%v: said twice: %q", tc.args, errOut)
		}
	}
}

func TestRunEventsFileIsKeptWhenFlagsAreWrong(t *testing.T) {
	tmp := isolate(t)
	file := filepath.Join(tmp, "events.jsonl")
	os.WriteFile(file, []byte("precious\n"), 0o644)
	for _, args := range [][]string{
		{"run", "--events", file, "--set", "bogus=1", "x"},
		{"run", "--events", file, "--config", filepath.Join(tmp, "missing.toml"), "x"},
		{"run", "--events", file, "--resume", "nosuch", "x"},
		{"run", "--events", file, "--base-url", "nope", "x"},
	} {
		if code, _, _ := runCmd(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if b, _ := os.ReadFile(file); string(b) != "precious\n" {
			t.Fatalf("%v emptied the events file: %q", args, b)
		}
	}
}

func TestRunNoticesForFoldersWithoutSkills(t *testing.T) {
	tmp := isolate(t)
	empty := filepath.Join(tmp, "empty")
	os.MkdirAll(empty, 0o755)
	code, _, errOut := runCmd(t, "", "run", "--skills", empty, "hello")
	if code != 0 || !strings.Contains(errOut, "skillet: --skills folder "+empty+" holds no skills") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	os.WriteFile(filepath.Join(tmp, "skillet.toml"), []byte("skills_dirs = [\"typo\", \"empty\"]\n"), 0o644)
	_, _, errOut = runCmd(t, "", "run", "hello")
	for _, want := range []string{
		"skills_dirs entry " + filepath.Join(tmp, "typo") + " of " + filepath.Join(tmp, "skillet.toml") + " is not a folder",
		"skills_dirs folder " + empty + " holds no skills",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// fakeEndpoint answers every chat request with an error naming itself and
// the model asked for, so which endpoint and model were used shows in the
// exit message.
func fakeEndpoint(t *testing.T, name string) (url string, hits func() int) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		var req struct{ Model string }
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &req)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":"endpoint %s got model %s"}}`, name, req.Model)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() int { mu.Lock(); defer mu.Unlock(); return n }
}

func TestModelEndpointPrecedence(t *testing.T) {
	tmp := isolate(t)
	flagURL, _ := fakeEndpoint(t, "flag")
	cfgURL, _ := fakeEndpoint(t, "config")
	envURL, _ := fakeEndpoint(t, "env")
	cfg := filepath.Join(tmp, "with-model.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("[model]\nname = \"cfg-model\"\nbase_url = %q\n", cfgURL)), 0o644)
	bare := filepath.Join(tmp, "bare.toml")
	os.WriteFile(bare, []byte("\n"), 0o644)
	t.Setenv("OPENAI_BASE_URL", envURL)
	t.Setenv("OPENAI_MODEL", "env-model")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", cfg, "--base-url", flagURL, "--model", "flag-model"}, "endpoint flag got model flag-model"},
		{[]string{"--config", cfg}, "endpoint config got model cfg-model"},
		{[]string{"--config", bare}, "endpoint env got model env-model"},
		{[]string{"--config", bare, "--model", "flag-model"}, "endpoint env got model flag-model"},
	} {
		args := append(append([]string{"run"}, tc.args...), "hello")
		code, _, errOut := runCmd(t, "", args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
	t.Setenv("OPENAI_MODEL", "")
	if _, _, errOut := runCmd(t, "", "run", "--config", bare, "hello"); !strings.Contains(errOut, "endpoint env got model gpt-4o-mini") {
		t.Errorf("default model: %q", errOut)
	}
}

func TestRunOfflineWinsOverAKey(t *testing.T) {
	isolate(t)
	url, hits := fakeEndpoint(t, "real")
	t.Setenv("OPENAI_API_KEY", "sk-test-offline")
	t.Setenv("OPENAI_BASE_URL", url)
	code, out, errOut := runCmd(t, "", "run", "--offline", "--model", "gpt-4o", "hello")
	if code != 0 || !strings.Contains(out, "[demo model]") || hits() != 0 {
		t.Fatalf("exit %d, %d requests to the endpoint\n%s\n%s", code, hits(), out, errOut)
	}
	if !strings.Contains(errOut, "--model gpt-4o is ignored: --offline uses the built-in demo model") {
		t.Fatalf("stderr lacks the ignored --model notice:\n%s", errOut)
	}
}

func TestRunModelWithoutKeyOrEndpointSaysTheDemoAnswers(t *testing.T) {
	isolate(t)
	code, out, errOut := runCmd(t, "", "run", "--model", "gpt-4o", "hello")
	if code != 0 || !strings.Contains(out, "[demo model]") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "--model gpt-4o is ignored: with no OPENAI_API_KEY and no endpoint") {
		t.Fatalf("stderr lacks the notice:\n%s", errOut)
	}
}

func TestRunApproveNamingNoToolWarns(t *testing.T) {
	isolate(t)
	code, _, errOut := runCmd(t, "", "run", "--approve", "run_check", "--approve", "run_checks", "hello")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "skillet: warning: --approve run_check: no enabled skill nor the agent lists a tool run_check; closest: run_checks") {
		t.Fatalf("stderr:\n%s", errOut)
	}
	if strings.Contains(errOut, "--approve run_checks:") {
		t.Fatalf("a known tool was warned about:\n%s", errOut)
	}
}

// boomSkills is a skills root with a skill whose command tool fails
// (exit 3), or with "sleep", blocks until killed after marking that it
// started.
func boomSkills(t *testing.T, root, script string) {
	t.Helper()
	writeSkill(t, root, "boomer", "tools:\n  - name: boom\n")
	tools := filepath.Join(root, "boomer", "tools")
	os.MkdirAll(tools, 0o755)
	os.WriteFile(filepath.Join(tools, "boom.yaml"), []byte("name: boom\nversion: 1\ndescription: Fail.\ncommand: [\"./boom.sh\"]\n"), 0o644)
	os.WriteFile(filepath.Join(tools, "boom.sh"), []byte("#!/bin/sh\n"+script+"\n"), 0o755)
}

func TestRunToolFailureIsSaidOnce(t *testing.T) {
	tmp := isolate(t)
	boomSkills(t, filepath.Join(tmp, "skills"), "echo broken >&2; exit 3")
	code, _, errOut := runCmd(t, "", "run", "--skills", filepath.Join(tmp, "skills"), "--approve", "boom", "load boomer", "call boom {}")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "skillet run: tool boom@1 failed: exit code 3") || strings.Count(errOut, "failed") != 1 {
		t.Fatalf("stderr:\n%s", errOut)
	}
}

func TestToolFailureLeavesOutRefusalsAndCancels(t *testing.T) {
	for _, tc := range []struct {
		r    event.ToolResult
		want string
	}{
		{event.ToolResult{Name: "boom", Content: "tool boom@1 failed: exit code 3\nstderr...", IsError: true}, "tool boom@1 failed: exit code 3"},
		{event.ToolResult{Name: "x", Content: "no such account", IsError: true}, "tool x failed: no such account"},
		{event.ToolResult{Name: "x", Content: "cancelled by user while x ran", IsError: true, Cancelled: true}, ""},
		// the engine's mark, not the words, says a call was cancelled
		{event.ToolResult{Name: "x", Content: "cancelled by user, says the tool", IsError: true}, "tool x failed: cancelled by user, says the tool"},
		{event.ToolResult{Name: "x", Content: "denied by the user", IsError: true, Refused: true}, ""},
		{event.ToolResult{Name: "x", Content: "fine"}, ""},
	} {
		if got := toolFailure(&tc.r); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.r.Content, got, tc.want)
		}
	}
}

func TestRunSIGINTCancelsWithoutAToolFailure(t *testing.T) {
	tmp := isolate(t)
	started := filepath.Join(tmp, "started")
	boomSkills(t, filepath.Join(tmp, "skills"), "touch "+started+"; exec sleep 60")
	// our own handler first, so the signal can never end the test process
	ours := make(chan os.Signal, 1)
	signal.Notify(ours, syscall.SIGINT)
	defer signal.Stop(ours)
	go func() {
		for range 600 {
			if _, err := os.Stat(started); err == nil {
				syscall.Kill(os.Getpid(), syscall.SIGINT)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	code, _, errOut := runCmd(t, "", "run", "--skills", filepath.Join(tmp, "skills"), "--approve", "boom", "load boomer", "call boom {}")
	if code != 130 || !strings.Contains(errOut, "skillet run: cancelled by SIGINT") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if strings.Contains(errOut, "failed") {
		t.Fatalf("a cancelled call reported as a tool failure:\n%s", errOut)
	}
}

func TestRunSkipsEmptyAnswers(t *testing.T) {
	isolate(t)
	url, _ := fakeEndpoint(t, "down")
	code, out, _ := runCmd(t, "", "run", "--base-url", url, "hello", "again")
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q; want 1 and nothing on stdout", code, out)
	}
}

func TestHelpGoesToStdoutAndExitsZero(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-h"}, []string{"skillet run [flags] MESSAGE...", "skillet validate", "-base-url", "-style"}},
		{[]string{"--help"}, []string{"skillet run [flags] MESSAGE...", "-resume"}},
		{[]string{"help"}, []string{"skillet validate", "-offline"}},
		{[]string{"run", "-h"}, []string{"usage: skillet run", "-approve-all", "-events"}},
		{[]string{"run", "--help"}, []string{"usage: skillet run"}},
		{[]string{"validate", "-h"}, []string{"usage: skillet validate", "tools_dirs"}},
		{[]string{"--version"}, []string{"skillet ", "go1."}},
		{[]string{"show", "-h"}, []string{"usage: skillet show", "-json"}},
	} {
		code, out, errOut := runCmd(t, "", tc.args...)
		if code != 0 || errOut != "" {
			t.Errorf("%v: exit %d, stderr %q; want 0 and nothing on stderr", tc.args, code, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: stdout lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
}

func TestTUIFlagErrorsAndNoTerminal(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"--style"}, "flag needs an argument: -style"},
		{[]string{"--style", "bogus"}, "--style bogus: not a style; the styles are ascii, dark, dracula, light, notty, pink, tokyo-night"},
		{[]string{"hello"}, `unexpected argument "hello"`},
		{[]string{"--offline"}, "skillet needs a terminal; for headless turns use: skillet run MESSAGE..."},
		{nil, "skillet needs a terminal"},
	} {
		code, out, errOut := runCmd(t, "", tc.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
	// no session is written when the UI cannot start
	if dirs, _ := filepath.Glob(filepath.Join(sessionsDir(""), "*")); len(dirs) != 0 {
		t.Fatalf("sessions written: %v", dirs)
	}
}

func TestValidateEmptyFolderFails(t *testing.T) {
	dir := t.TempDir()
	stdout, _, code := validate(t, dir)
	if code != 1 || !strings.Contains(stdout, "no skills found in "+dir) {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	stdout, _, code = validate(t, "--json", dir)
	if doc := decodeValidate(t, stdout); code != 1 || doc.OK {
		t.Fatalf("--json: exit %d, %+v", code, doc)
	}
}
