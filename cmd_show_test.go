package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"skillet/harness/profile"
	"strings"
	"testing"
)

// repoDir is the package's folder, taken before any test changes the
// working folder.
var repoDir, _ = os.Getwd()

// runBinary runs the real binary with the test's isolated environment.
func runBinary(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(skilletBinary(t), args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run skillet: %v", err)
	}
	return code, out.String(), errOut.String()
}

// onlySession returns the id of the one session under the isolated state
// folder.
func onlySession(t *testing.T, tmp string) string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(tmp, "state", "skillet", "sessions"))
	if err != nil || len(ents) != 1 {
		t.Fatalf("want one session, got %v (%v)", ents, err)
	}
	return ents[0].Name()
}

// The state a live run ends with and the state its journal folds to are
// the same bytes, seen from outside.
func TestShowEqualsTheLiveRunsState(t *testing.T) {
	tmp := isolate(t)
	live := filepath.Join(tmp, "live.json")
	code, _, errOut := runBinary(t, "run", "--approve-all", "--show-state", live,
		"review account ACC-1042 for anomalies",
		"write an incident report for yesterday's outage",
		`capture meeting notes: we decided to ship on Friday, task="ship v1.4" owner=Ana`,
		"run the release checks for v1.4.0",
		"get account activity for ACC-1042 again")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	want, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	id := onlySession(t, tmp)
	journal := filepath.Join(tmp, "state", "skillet", "sessions", id, "journal.jsonl")
	before, _ := os.ReadFile(journal)
	code, got, errOut := runBinary(t, "show", "--json", id)
	if code != 0 {
		t.Fatalf("show: exit %d\n%s", code, errOut)
	}
	if got != string(want) {
		t.Fatalf("skillet show differs from the live run's --show-state:\nlive:\n%s\nshow:\n%s", want, got)
	}
	for _, w := range []string{`"loaded": [`, `"name": "account-review"`, `"meeting-notes"`, `"ledger"`, `"tokenizer": "o200k_base"`, `"stop_reason": "done"`} {
		if !strings.Contains(got, w) {
			t.Errorf("state lacks %s", w)
		}
	}
	after, _ := os.ReadFile(journal)
	if !bytes.Equal(before, after) {
		t.Error("skillet show wrote to the journal")
	}
	// the text form names the loaded skills and the ledger's total
	code, text, _ := runBinary(t, "show", id)
	if code != 0 || !strings.Contains(text, "loaded (most recent first, max 3):") || !strings.Contains(text, "next request: ") || !strings.Contains(text, "release-checklist") {
		t.Fatalf("show: exit %d\n%s", code, text)
	}
	// --show-state - goes to stdout, after the answers
	code, out, _ := runBinary(t, "run", "--show-state", "-", "hello")
	if code != 0 || !strings.HasSuffix(strings.TrimSpace(out), "}") || !strings.Contains(out, `"session_id"`) {
		t.Fatalf("--show-state -: exit %d\n%s", code, out)
	}
}

// A list shorter than the catalog leaves skills off each turn (R10); the
// journal keeps that list as its changes, and skillet show puts every
// turn's back — with its flags after the session, as other commands take
// them.
func TestShowKeepsTheLeftOffLists(t *testing.T) {
	tmp := isolate(t)
	live := filepath.Join(tmp, "live.json")
	code, _, errOut := runBinary(t, "run", "--set", "list_size=3", "--set", "max_loaded_skills=2", "--show-state", live,
		"review account ACC-1042 for anomalies",
		"run the release checks for v1.4.0",
		"write an incident report for yesterday's outage")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	want, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Turns []struct {
			LeftOff []string `json:"left_off"`
		} `json:"turns"`
	}
	if err := json.Unmarshal(want, &v); err != nil || len(v.Turns) != 3 {
		t.Fatalf("--show-state: %v, %d turns\n%s", err, len(v.Turns), want)
	}
	for i, turn := range v.Turns {
		if len(turn.LeftOff) == 0 {
			t.Fatalf("turn %d of the live run left nothing off with list_size=3:\n%s", i+1, want)
		}
	}
	id := onlySession(t, tmp)
	code, got, errOut := runBinary(t, "show", id, "--json")
	if code != 0 {
		t.Fatalf("show ID --json: exit %d\n%s", code, errOut)
	}
	if got != string(want) {
		t.Fatalf("skillet show differs from the live run's --show-state:\nlive:\n%s\nshow:\n%s", want, got)
	}
}

func TestShowBadJournals(t *testing.T) {
	tmp := isolate(t)
	if code, _, errOut := runBinary(t, "run", "hello", "review account ACC-1042 for anomalies"); code != 0 {
		t.Fatalf("run: %s", errOut)
	}
	id := onlySession(t, tmp)
	dir := filepath.Join(tmp, "state", "skillet", "sessions", id)
	journal := filepath.Join(dir, "journal.jsonl")
	data, _ := os.ReadFile(journal)

	// a torn last line and a garbage line in the middle: what can be read is
	// shown, the skipped lines are named, nothing is rewritten
	lines := strings.SplitAfter(string(data), "\n")
	damaged := strings.Join(lines[:3], "") + "{not json\n" + strings.Join(lines[3:], "") + `{"type":"assistant","tu`
	if err := os.WriteFile(journal, []byte(damaged), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runBinary(t, "show", dir)
	if code != 0 || !strings.Contains(out, "account-review") {
		t.Fatalf("show of a damaged journal: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, w := range []string{"line 4:", "was skipped"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	if after, _ := os.ReadFile(journal); string(after) != damaged {
		t.Error("show rewrote a damaged journal")
	}

	// not a journal at all
	junk := filepath.Join(tmp, "junk.jsonl")
	os.WriteFile(junk, []byte("hello\nworld\n"), 0o600)
	code, _, errOut = runBinary(t, "show", junk)
	if code != 1 || !strings.Contains(errOut, junk) {
		t.Fatalf("show of a non-journal: exit %d\n%s", code, errOut)
	}
	// no such session
	code, _, errOut = runBinary(t, "show", "nosuch")
	if code != 2 || !strings.Contains(errOut, "skillet show: no session nosuch") {
		t.Fatalf("show nosuch: exit %d\n%s", code, errOut)
	}
}

// The agent version a session's profile reproduced is read from its
// journal: show names the one recorded, not this build's.
func TestShowNamesTheRecordedAgentVersion(t *testing.T) {
	tmp := isolate(t)
	if code, _, errOut := runBinary(t, "run", "--profile", "claude-code", "hello"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	id := onlySession(t, tmp)
	journal := filepath.Join(tmp, "state", "skillet", "sessions", id, "journal.jsonl")
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := profile.Get("claude-code")
	if !strings.Contains(string(data), `"profile_agent":"`+p.Agent()+`"`) {
		t.Fatalf("the journal records no profile_agent %q", p.Agent())
	}
	// a journal written under another version of the agent
	old := strings.Replace(string(data), `"profile_agent":"`+p.Agent()+`"`, `"profile_agent":"Claude Code 2.0.1"`, 1)
	if err := os.WriteFile(journal, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	_, out, _ := runBinary(t, "show", id)
	if !strings.Contains(out, "profile claude-code (Claude Code 2.0.1)") {
		t.Errorf("show does not name the recorded version:\n%s", out)
	}
	_, js, _ := runBinary(t, "show", "--json", id)
	if !strings.Contains(js, `"profile_agent": "Claude Code 2.0.1"`) {
		t.Errorf("show --json lacks the recorded profile_agent:\n%.600s", js)
	}
}
