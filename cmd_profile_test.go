package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunProfileClaudeCodeEndToEnd runs the real binary on the demo model
// under the claude-code profile: the listing is a reminder message, the
// skill comes through the Skill tool as the model's load, the journal
// records the profile, and skillet show names it.
func TestRunProfileClaudeCodeEndToEnd(t *testing.T) {
	tmp := isolate(t)
	evFile := filepath.Join(tmp, "events.jsonl")
	code, out, errOut := runBinary(t, "run", "--profile", "claude-code", "--offline", "--events", evFile, "review account ACC-1042 for anomalies")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	raw, err := os.ReadFile(evFile)
	if err != nil {
		t.Fatal(err)
	}
	var start, loaded, activation, call, end map[string]any
	for _, e := range events(t, string(raw)) {
		switch e["type"] {
		case "session_start":
			start = e
		case "skill_loaded":
			loaded = e
		case "tool_result":
			if e["name"] == "Skill" {
				activation = e
			}
		case "model_call":
			call = e
		case "turn_end":
			end = e
		}
	}
	if start["profile"] != "claude-code" || start["context_window"] != float64(200000) {
		t.Fatalf("session_start %v", start)
	}
	if loaded == nil || loaded["skill"] != "account-review" || loaded["by"] != "model" {
		t.Fatalf("skill_loaded %v", loaded)
	}
	if activation == nil || activation["content"] != "Launching skill: account-review" || activation["activated"] != "account-review" {
		t.Fatalf("Skill result %v", activation)
	}
	msgs, _ := activation["messages"].([]any)
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0].(string), "Base directory for this skill: ") {
		t.Fatalf("body message %v", activation["messages"])
	}
	var req struct {
		Messages []struct{ Role, Content string }
		Tools    []struct{ Function struct{ Name string } }
	}
	b, _ := json.Marshal(call["request"])
	if err := json.Unmarshal(b, &req); err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, tl := range req.Tools {
		tools = append(tools, tl.Function.Name)
	}
	if !contains(tools, "Skill") || contains(tools, "load_skill") {
		t.Errorf("tools %v", tools)
	}
	reminder := false
	for _, m := range req.Messages {
		if m.Role == "user" && strings.Contains(m.Content, "The following skills are available for use with the Skill tool:") {
			reminder = true
		}
		if m.Role == "system" && strings.Contains(m.Content, "<available_skills>") {
			t.Errorf("skillet's list in the system prompt under claude-code")
		}
	}
	if !reminder {
		t.Errorf("no reminder message in the request")
	}
	for _, key := range []string{"offered", "loaded", "delivered"} {
		if names, _ := end[key].([]any); !containsAny(names, "account-review") {
			t.Errorf("turn_end %s = %v, want account-review", key, end[key])
		}
	}

	// skillet show reads the profile back from the journal
	id := onlySession(t, tmp)
	code, out, errOut = runBinary(t, "show", id)
	if code != 0 || !strings.Contains(out, "profile claude-code") || !strings.Contains(out, "lifecycle off") {
		t.Fatalf("show: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestRunProfileBadInput: an unknown profile lists the known ones and a
// context window of zero or less is refused, both as usage errors.
func TestRunProfileBadInput(t *testing.T) {
	tmp := isolate(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--offline", "--profile", "cursor", "x"}, "known profiles are skillet, claude-code, codex, crush, opencode, gemini-cli"},
		{[]string{"run", "--offline", "--profile", "codex@0.170.0", "x"}, `unknown Codex version "0.170.0": the codex profile reproduces Codex 0.171.0 only (known versions: 0.171.0)`},
		{[]string{"run", "--offline", "--context-window", "0", "x"}, "--context-window 0"},
		{[]string{"run", "--offline", "--context-window", "-3", "x"}, "--context-window -3"},
		{[]string{"run", "--offline", "--set", "lifecycle=false", "x"}, "lifecycle=false needs a profile other than skillet"},
		{[]string{"run", "--offline", "--profile", "codex", "--set", "freeze_prompt=true", "x"}, "freeze_prompt applies to the skillet profile only, not codex"},
		{[]string{"run", "--offline", "--profile", "claude-code", "--set", "load_skill_tool=false", "x"}, "load_skill_tool=false applies to the skillet profile only"},
	} {
		code, _, errOut := runCmd(t, "", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// refused before any session starts: no journal is left behind
	if _, err := os.Stat(filepath.Join(tmp, "state", "skillet", "sessions")); err == nil {
		t.Errorf("a refused run wrote a session folder")
	}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func containsAny(list []any, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// TestRunProfileCatalogueIsWhatOfferedShows: for every agent profile, the
// catalogue blocks `skillet offered` prints are in the session's first
// request, each where its placement says.
func TestRunProfileCatalogueIsWhatOfferedShows(t *testing.T) {
	tmp := isolate(t)
	code, out, errOut := runCmd(t, "", "offered", "--json")
	if code != 0 {
		t.Fatalf("offered: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Profiles []struct {
			Name   string
			Blocks []struct{ Placement, Text string }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for i, p := range rep.Profiles {
		if p.Name == "skillet" {
			continue
		}
		evFile := filepath.Join(tmp, p.Name+".jsonl")
		if code, _, errOut := runCmd(t, "", "run", "--offline", "--profile", p.Name, "--events", evFile, "hello"); code != 0 {
			t.Fatalf("%s: exit %d\n%s", p.Name, code, errOut)
		}
		raw, err := os.ReadFile(evFile)
		if err != nil {
			t.Fatal(err)
		}
		var req struct {
			Messages []struct{ Role, Content string }
			Tools    []struct{ Function struct{ Description string } }
		}
		for _, e := range events(t, string(raw)) {
			if e["type"] == "model_call" {
				b, _ := json.Marshal(e["request"])
				_ = json.Unmarshal(b, &req)
				break
			}
		}
		if len(p.Blocks) == 0 {
			t.Fatalf("%s: offered shows no catalogue", p.Name)
		}
		for _, bl := range p.Blocks {
			found := false
			for j, m := range req.Messages {
				switch bl.Placement {
				case "system-prompt":
					found = found || (j == 0 && m.Role == "system" && strings.Contains(m.Content, bl.Text))
				case "developer-message":
					found = found || (j > 0 && m.Role == "system" && m.Content == bl.Text)
				case "reminder-message":
					found = found || (m.Role == "user" && m.Content == bl.Text)
				}
			}
			if bl.Placement == "tool-description" {
				for _, tl := range req.Tools {
					found = found || tl.Function.Description == bl.Text
				}
			}
			if !found {
				t.Errorf("%s (%d): the %s block of skillet offered is not in the request", p.Name, i, bl.Placement)
			}
		}
	}
}
