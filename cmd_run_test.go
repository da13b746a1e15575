package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"skillet/harness/event"
	"skillet/harness/journal"
	"strings"
	"testing"
)

// isolate points every folder skillet reads or writes at a temporary one.
func isolate(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("HOME", tmp)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(tmp, "state"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(tmp, "config"))
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_MODEL", "")
	// a skillet.toml or .agents/skills in the repository must not change
	// what the tests see
	t.Chdir(tmp)
	return tmp
}

func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func events(t *testing.T, text string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON event line: %q", line)
		}
		out = append(out, m)
	}
	return out
}

func TestRunOfflineDemoShowsTheLifecycle(t *testing.T) {
	tmp := isolate(t)
	evFile := filepath.Join(tmp, "events.jsonl")
	code, out, errOut := runCmd(t, "", "run", "--events", evFile,
		"review account ACC-1042 for anomalies",
		"write an incident report for yesterday's outage",
		"capture meeting notes: we decided to ship on Friday, task=\"ship v1.4\" owner=Ana",
		"run the release checks for v1.4.0",
		"get account activity for ACC-1042 again")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "offline demo model") || strings.Count(out, "[demo model]") != 5 {
		t.Fatalf("want five demo answers, labelled:\n%s\n%s", out, errOut)
	}
	raw, err := os.ReadFile(evFile)
	if err != nil {
		t.Fatal(err)
	}
	evs := events(t, string(raw))
	var loads, unloads, unknown, turns int
	for _, e := range evs {
		switch e["type"] {
		case "skill_loaded":
			loads++
		case "skill_unloaded":
			unloads++
			if e["reason"] != "lru" {
				t.Errorf("unload for %v", e["reason"])
			}
		case "tool_result":
			if strings.HasPrefix(e["content"].(string), "Unknown tool") {
				unknown++
			}
		case "turn_end":
			turns++
		case "session_start":
			if e["model"] != "skillet-demo" || e["demo"] != true {
				t.Errorf("session_start %v", e)
			}
		}
		if _, ok := e["turn"]; !ok {
			t.Errorf("event without turn: %v", e)
		}
	}
	if loads != 5 || unloads != 2 || unknown != 1 || turns != 5 {
		t.Fatalf("loads %d unloads %d unknown %d turns %d; want 5, 2, 1, 5", loads, unloads, unknown, turns)
	}
	// the journal holds the same lines
	journals, _ := filepath.Glob(filepath.Join(tmp, "state", "skillet", "sessions", "*", "journal.jsonl"))
	if len(journals) != 1 {
		t.Fatalf("journals: %v", journals)
	}
	// the journal stores what repeats once; read back, it holds the same
	// events as --events wrote, byte for byte
	f, err := os.Open(journals[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	journaled, problems, err := journal.Read(f)
	if err != nil || len(problems) > 0 {
		t.Fatalf("read journal: %v %v", err, problems)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(journaled) != len(lines) {
		t.Fatalf("--events has %d lines, the journal %d events", len(lines), len(journaled))
	}
	for i, e := range journaled {
		b, _ := event.Marshal(e)
		if string(b) != lines[i] {
			t.Fatalf("event %d differs:\n--events: %.300s\njournal:  %.300s", i+1, lines[i], b)
		}
	}
}

func TestRunApprovalFlags(t *testing.T) {
	isolate(t)
	msg := "run the release checks for v1.4.0"
	code, out, errOut := runCmd(t, "", "run", "--offline", msg)
	if code != 0 || !strings.Contains(out, "needs approval") || strings.Contains(out, "3 checks") {
		t.Fatalf("headless ask should be denied, the turn finishing: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, flags := range [][]string{{"--approve", "run_checks"}, {"--approve-all"}} {
		args := append(append([]string{"run", "--offline"}, flags...), msg)
		code, out, errOut := runCmd(t, "", args...)
		if code != 0 || !strings.Contains(out, "3 checks") || strings.Contains(out, "needs approval") {
			t.Fatalf("%v should run it: exit %d\n%s\n%s", flags, code, out, errOut)
		}
	}
}

func TestRunReadsMessagesFromStdinAndEventsToStdout(t *testing.T) {
	isolate(t)
	code, out, errOut := runCmd(t, "hello there\n\nload incident-report\n", "run", "--events", "-", "--set", "max_loaded_skills=1", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	evs := events(t, out) // stdout holds only event lines
	starts := 0
	for _, e := range evs {
		if e["type"] == "turn_start" {
			starts++
		}
		if e["type"] == "session_start" {
			if lim := e["limits"].(map[string]any); lim["max_loaded_skills"] != float64(1) {
				t.Fatalf("--set not applied: %v", lim)
			}
		}
	}
	if starts != 2 {
		t.Fatalf("%d turns from stdin, want 2", starts)
	}
	if strings.Count(errOut, "[demo model]") != 2 {
		t.Fatalf("answers go to stderr when events use stdout: %s", errOut)
	}
}

func TestRunUsageErrorsExitTwo(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{
		{"run"},
		{"run", "--no-such-flag", "x"},
		{"run", "--set", "max_loaded_skills=many", "x"},
		{"run", "--set", "bogus=1", "x"},
		{"run", "--skills", "/does/not/exist", "x"},
	} {
		if code, _, errOut := runCmd(t, "", args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 with a message", args, code, errOut)
		}
	}
}

func TestRunModelErrorExitsOneWithTheServersMessage(t *testing.T) {
	tmp := isolate(t)
	const key = "sk-test-secret-0123456789"
	var sawKey bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		sawKey = sawKey || strings.Contains(auth, key)
		// a careless server echoes the credentials it was sent
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "model 'nope' does not exist (sent with " + auth + ")"}})
		w.Write(body)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", key)
	evFile := filepath.Join(tmp, "events.jsonl")
	code, out, errOut := runCmd(t, "", "run", "--base-url", srv.URL+"/v1", "--model", "nope", "--events", evFile, "hello")
	if code != 1 || !strings.Contains(errOut, "does not exist (sent with Bearer [redacted API key])") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !sawKey {
		t.Fatal("the server never received the key: the test could not catch a leak")
	}
	journals, _ := filepath.Glob(filepath.Join(tmp, "state", "skillet", "sessions", "*", "*"))
	if len(journals) == 0 {
		t.Fatal("no session files written")
	}
	places := map[string]string{"stdout": out, "stderr": errOut}
	for _, f := range append(journals, evFile) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a folder
		}
		places[f] = string(b)
	}
	for where, text := range places {
		if strings.Contains(text, key) {
			t.Errorf("the key leaked into %s", where)
		}
	}
	if !strings.Contains(places[evFile], "does not exist") {
		t.Errorf("the events file lacks the error: %q", places[evFile])
	}
}

func TestRunBadConfigIsAClearError(t *testing.T) {
	tmp := isolate(t)
	cfg := filepath.Join(tmp, "skillet.toml")
	os.WriteFile(cfg, []byte("[session]\nmax_loaded = 3\ndelivery = \"sideways\"\n"), 0o644)
	code, _, errOut := runCmd(t, "", "run", "--offline", "--config", cfg, "hi")
	if code == 0 || !strings.Contains(errOut, "max_loaded") || !strings.Contains(errOut, "sideways") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
