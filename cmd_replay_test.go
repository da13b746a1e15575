package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"skillet/harness/cassette"
)

func openCassette(t *testing.T, path string) *cassette.Cassette {
	t.Helper()
	c, err := cassette.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sameRequests fails unless both cassettes hold the same request bodies,
// byte for byte.
func sameRequests(t *testing.T, a, b *cassette.Cassette) {
	t.Helper()
	if len(a.Calls) == 0 || len(a.Calls) != len(b.Calls) {
		t.Fatalf("recorded %d calls, replayed %d", len(a.Calls), len(b.Calls))
	}
	for i := range a.Calls {
		if !bytes.Equal(a.Calls[i].Body(), b.Calls[i].Body()) {
			t.Fatalf("request %d differs on replay:\n%s", i+1, strings.Join(cassette.Delta(a.Calls[i].Body(), b.Calls[i].Body()), "\n"))
		}
	}
}

var demoMessages = []string{
	"review account 4850",
	"run the release checks for v1.4.0",
	"write an incident report for yesterday's outage",
}

func TestReplayOfTheDemoModelSendsTheRecordedBytes(t *testing.T) {
	tmp := isolate(t)
	rec, again := filepath.Join(tmp, "rec.jsonl"), filepath.Join(tmp, "again.jsonl")
	code, out1, errOut := runBinary(t, append([]string{"run", "--offline", "--approve-all", "--record", rec}, demoMessages...)...)
	if code != 0 {
		t.Fatalf("record: exit %d\n%s", code, errOut)
	}
	code, out2, errOut := runBinary(t, append([]string{"run", "--replay", rec, "--approve-all", "--record", again}, demoMessages...)...)
	if code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, errOut)
	}
	if out1 != out2 || !strings.Contains(out2, "[demo model]") {
		t.Fatalf("the replay answered differently:\n%s\n---\n%s", out1, out2)
	}
	if !strings.Contains(errOut, "replaying "+rec) || strings.Contains(errOut, "using the offline demo model") {
		t.Fatalf("the replay should say it replays, not that the demo model answers:\n%s", errOut)
	}
	a, b := openCassette(t, rec), openCassette(t, again)
	sameRequests(t, a, b)
	h := a.Header
	if h.Model != "skillet-demo" || !h.Demo || h.Skillet == "" || len(h.Skills) == 0 || h.Settings["max_loaded_skills"] != "3" {
		t.Fatalf("header: %+v", h)
	}
	var turns int
	for _, act := range a.Actions {
		if act.Action == cassette.ActionTurn {
			turns++
		}
	}
	if turns != len(demoMessages) || len(a.Tools) == 0 || len(a.Turns) != len(demoMessages) {
		t.Fatalf("want %d turns with tool results, got %d actions, %d tools, %d turn ends", len(demoMessages), turns, len(a.Tools), len(a.Turns))
	}
}

const secretKey = "sk-test-DO-NOT-RECORD-4242"

// scripted is a chat-completions endpoint with a fixed script: the first
// call of a turn loads the skill "alpha", the next answers in text, quoting
// the Authorization header it got as a careless server might.
func scripted(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Echo-Authorization", r.Header.Get("Authorization"))
		send := func(v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		choice := func(delta map[string]any, finish any) map[string]any {
			return map[string]any{"id": "x", "object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		}
		if req.Messages[len(req.Messages)-1].Role == "user" {
			send(choice(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", len(req.Messages)), "type": "function",
				"function": map[string]any{"name": "load_skill", "arguments": `{"name":"alpha"}`}}}}, nil))
			send(choice(map[string]any{}, "tool_calls"))
		} else {
			for _, piece := range []string{"Loaded alpha. ", "You sent ", r.Header.Get("Authorization"), "."} {
				send(choice(map[string]any{"content": piece}, nil))
			}
			send(choice(map[string]any{}, "stop"))
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestReplayOfAScriptedServerIsOfflineAndKeyFree(t *testing.T) {
	tmp := isolate(t)
	skills := filepath.Join(tmp, "skills")
	writeSkill(t, skills, "alpha", "")
	writeSkill(t, skills, "beta", "")
	srv := scripted(t)
	t.Setenv("OPENAI_API_KEY", secretKey)
	rec, again := filepath.Join(tmp, "rec.jsonl"), filepath.Join(tmp, "again.jsonl")
	msgs := []string{"use alpha please", "and once more"}
	code, out1, errOut := runBinary(t, append([]string{"run", "--skills", skills, "--base-url", srv.URL + "/v1", "--model", "scripted-1", "--record", rec}, msgs...)...)
	// the server echoes the key: the client cuts it out of the answer
	if code != 0 || !strings.Contains(out1, "You sent Bearer [redacted API key].") || strings.Contains(out1, secretKey) {
		t.Fatalf("record: exit %d\n%s\n%s", code, out1, errOut)
	}
	raw, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{secretKey, "Authorization", "authorization"} {
		if bytes.Contains(raw, []byte(bad)) {
			t.Fatalf("the cassette holds %q", bad)
		}
	}
	if !bytes.Contains(raw, []byte("[redacted API key]")) {
		t.Fatal("the echoed key should be cut out of the reply, leaving [redacted API key]")
	}

	srv.Close() // the replay must not need the server
	t.Setenv("OPENAI_API_KEY", "")
	code, out2, errOut := runBinary(t, append([]string{"run", "--replay", rec, "--record", again}, msgs...)...)
	if code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, errOut)
	}
	if out2 != out1 {
		t.Fatalf("replay answers:\n%s", out2)
	}
	a, b := openCassette(t, rec), openCassette(t, again)
	sameRequests(t, a, b)
	if a.Header.Model != "scripted-1" || a.Header.Endpoint != srv.URL+"/v1" || b.Header.Model != "scripted-1" {
		t.Fatalf("headers: %+v / %+v", a.Header, b.Header)
	}
}

func TestRecordKeepsCredentialsOutOfTheEndpoint(t *testing.T) {
	tmp := isolate(t)
	srv := scripted(t)
	rec := filepath.Join(tmp, "rec.jsonl")
	base := strings.Replace(srv.URL, "http://", "http://bob:hunter2@", 1) + "/v1?key=" + secretKey
	writeSkill(t, filepath.Join(tmp, "skills"), "alpha", "")
	code, _, errOut := runBinary(t, "run", "--skills", filepath.Join(tmp, "skills"), "--base-url", base, "--record", rec, "use alpha")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	raw, _ := os.ReadFile(rec)
	for _, bad := range []string{"hunter2", secretKey, "bob"} {
		if bytes.Contains(raw, []byte(bad)) {
			t.Fatalf("the cassette holds %q", bad)
		}
	}
}

// recordTwoSkills records a demo session over a folder of two skills and
// returns the folder and the cassette.
func recordTwoSkills(t *testing.T, tmp string) (string, string) {
	t.Helper()
	skills := filepath.Join(tmp, "skills")
	writeSkill(t, skills, "alpha", "")
	writeSkill(t, skills, "beta", "")
	rec := filepath.Join(tmp, "rec.jsonl")
	code, _, errOut := runBinary(t, "run", "--offline", "--skills", skills, "--record", rec, "load alpha", "testing beta now")
	if code != 0 {
		t.Fatalf("record: exit %d\n%s", code, errOut)
	}
	return skills, rec
}

func TestReplayDiffNamesAChangedDescription(t *testing.T) {
	tmp := isolate(t)
	skills, rec := recordTwoSkills(t, tmp)
	code, out, _ := runBinary(t, "replay", "diff", rec)
	if code != 0 || !strings.Contains(out, "requests are as recorded") {
		t.Fatalf("unchanged skills: exit %d\n%s", code, out)
	}
	path := filepath.Join(skills, "beta", "SKILL.md")
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte("The beta skill."), []byte("The much better beta skill."), 1), 0o644)

	code, out, errOut := runBinary(t, "replay", "diff", rec)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"skill beta changed since the recording: SKILL.md edited",
		"replay: request 1 differs from the recording",
		"skill list: the description of beta changed",
		"message 0 (system) text:",
		"-<description>The beta skill. Use when testing beta.</description>",
		"+<description>The much better beta skill. Use when testing beta.</description>",
		"differs the same way as request 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestStrictReplayStopsAtTheFirstDifferenceAndLenientGoesOn(t *testing.T) {
	tmp := isolate(t)
	_, rec := recordTwoSkills(t, tmp)
	code, _, errOut := runBinary(t, "run", "--replay", rec, "load alpha", "testing beta later")
	if code != 1 || !strings.Contains(errOut, "request 3 differs from the recording (strict") ||
		!strings.Contains(errOut, "-testing beta now") || !strings.Contains(errOut, "+testing beta later") {
		t.Fatalf("strict: exit %d\n%s", code, errOut)
	}
	code, _, errOut = runBinary(t, "run", "--replay", rec, "load beta", "testing beta now")
	if code != 1 || !strings.Contains(errOut, "stopped at request 1, which differed from the recording") {
		t.Fatalf("strict replay serves nothing after a difference: exit %d\n%s", code, errOut)
	}
	code, out, errOut := runBinary(t, "run", "--replay", rec, "--lenient", "load alpha", "testing beta later")
	if code != 0 || !strings.Contains(errOut, "warning: replay: request 3 differs from the recording (replayed leniently)") ||
		strings.Count(out, "[demo model]") != 2 {
		t.Fatalf("lenient: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runBinary(t, "run", "--replay", rec, "--lenient", "load alpha", "testing beta now", "one more")
	if code != 1 || !strings.Contains(errOut, "this session asked for call 5, past the end of the recording") {
		t.Fatalf("past the end: exit %d\n%s", code, errOut)
	}
}

func TestReplayOfADamagedCassette(t *testing.T) {
	tmp := isolate(t)
	skills, rec := recordTwoSkills(t, tmp)
	all := openCassette(t, rec)

	// cut inside the last call's line: as a crash mid-write leaves it
	raw, _ := os.ReadFile(rec)
	last := bytes.LastIndex(raw, []byte(`{"kind":"call"`))
	cut := filepath.Join(tmp, "cut.jsonl")
	os.WriteFile(cut, raw[:last+40], 0o644)
	code, _, errOut := runBinary(t, "run", "--replay", cut, "load alpha", "testing beta now")
	if code != 1 || !strings.Contains(errOut, "the cassette is cut at line") ||
		!strings.Contains(errOut, fmt.Sprintf("the cassette ends after call %d", len(all.Calls)-1)) {
		t.Fatalf("cut cassette: exit %d\n%s", code, errOut)
	}

	// another version, a skill gone
	lines := strings.SplitN(string(raw), "\n", 2)
	var h map[string]any
	json.Unmarshal([]byte(lines[0]), &h)
	h["skillet"] = "v0.0.1"
	hb, _ := json.Marshal(h)
	other := filepath.Join(tmp, "other.jsonl")
	os.WriteFile(other, []byte(string(hb)+"\n"+lines[1]), 0o644)
	os.RemoveAll(filepath.Join(skills, "beta"))
	code, _, errOut = runBinary(t, "run", "--replay", other, "load alpha")
	if !strings.Contains(errOut, "recorded by Skillet v0.0.1") || !strings.Contains(errOut, "skills missing (the cassette was recorded with them): beta") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}

	notCassette := filepath.Join(tmp, "notes.txt")
	os.WriteFile(notCassette, []byte("hello\n"), 0o644)
	for _, args := range [][]string{
		{"run", "--replay", notCassette, "hi"},
		{"run", "--replay", filepath.Join(tmp, "absent.jsonl"), "hi"},
	} {
		code, _, errOut = runBinary(t, args...)
		if code == 0 || !(strings.Contains(errOut, "not a cassette") || strings.Contains(errOut, "no such file")) {
			t.Errorf("%v: exit %d\n%s", args, code, errOut)
		}
	}
}

func TestTapeFlagErrors(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--pace", "-1", "hi"}, "flag -pace"},
		{[]string{"run", "--pace", "fast", "hi"}, "want a number"},
		{[]string{"run", "--lenient", "hi"}, "--lenient needs --replay"},
		{[]string{"run", "--replay-tools", "hi"}, "--replay-tools needs --replay"},
		{[]string{"replay"}, "skillet replay diff FILE"},
		{[]string{"replay", "diff"}, "give one cassette FILE"},
	} {
		code, _, errOut := runCmd(t, "", c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, code, c.want, errOut)
		}
	}
}

func TestReplayDiffNamesARemovedSkillAndTheDecisionsItChanged(t *testing.T) {
	tmp := isolate(t)
	skills, rec := recordTwoSkills(t, tmp)
	os.RemoveAll(filepath.Join(skills, "beta"))
	code, out, errOut := runBinary(t, "replay", "diff", rec)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"skills missing (the cassette was recorded with them): beta",
		"skill list: entry removed: beta",
		"Offered: -beta",
		"turn 1 decisions changed:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

// With --replay-tools the recorded results answer the tool calls: the
// command tool does not run again, and the model reads what it read then.
func TestReplayToolsServesTheRecordedResults(t *testing.T) {
	tmp := isolate(t)
	ran := filepath.Join(tmp, "ran.txt")
	skillsDir := filepath.Join(tmp, "skills")
	boomSkills(t, skillsDir, "echo run >> "+ran+"; echo \"checked $(wc -l < "+ran+")\"")
	rec := filepath.Join(tmp, "rec.jsonl")
	args := []string{"--skills", skillsDir, "--approve", "boom", "load boomer", "call boom {}"}
	code, out1, errOut := runBinary(t, append([]string{"run", "--offline", "--record", rec}, args...)...)
	if code != 0 || !strings.Contains(out1, "checked 1") {
		t.Fatalf("record: exit %d\n%s\n%s", code, out1, errOut)
	}
	code, out2, errOut := runBinary(t, append([]string{"run", "--replay", rec, "--replay-tools"}, args...)...)
	if code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, errOut)
	}
	if b, _ := os.ReadFile(ran); strings.Count(string(b), "run") != 1 {
		t.Fatalf("the tool ran again on replay: %q", b)
	}
	if out1 != out2 {
		t.Fatalf("the replay answered differently:\n%s\n---\n%s", out1, out2)
	}
	// without the flag the tool runs, and strict replay names the change
	code, _, errOut = runBinary(t, append([]string{"run", "--replay", rec}, args...)...)
	if b, _ := os.ReadFile(ran); strings.Count(string(b), "run") != 2 {
		t.Fatalf("without --replay-tools the tool should run: %q (exit %d, %s)", b, code, errOut)
	}
}

// Flags may follow the cassette, as they may follow eval's skills.
func TestReplayDiffTakesFlagsAfterTheFile(t *testing.T) {
	tmp := isolate(t)
	_, rec := recordTwoSkills(t, tmp)
	code, out, errOut := runBinary(t, "replay", "diff", rec, "--set", "list_size=1")
	if code != 1 || !strings.Contains(out, "skill list: entry removed: beta") {
		t.Fatalf("--set after FILE: exit %d, want 1 and the shorter list\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runBinary(t, "replay", "diff", rec, "--", "--set")
	if code != 2 || !strings.Contains(errOut, "give one cassette FILE") {
		t.Fatalf("after --, --set is a FILE: exit %d\n%s", code, errOut)
	}
}

// A cassette says under which profile it was recorded, and its replays
// compose their requests under it unless --profile says otherwise.
func TestReplayKeepsTheRecordedProfile(t *testing.T) {
	tmp := isolate(t)
	rec := filepath.Join(tmp, "cc.jsonl")
	msg := "review account ACC-1042 for anomalies"
	code, _, errOut := runBinary(t, "run", "--offline", "--profile", "claude-code", "--context-window", "150000", "--record", rec, msg)
	if code != 0 {
		t.Fatalf("record: exit %d\n%s", code, errOut)
	}
	if h := openCassette(t, rec).Header; h.Profile != "claude-code" || h.ContextWindow != 150000 {
		t.Fatalf("header profile %q, window %d", h.Profile, h.ContextWindow)
	}
	code, out, errOut := runBinary(t, "replay", "diff", rec)
	if code != 0 || !strings.Contains(out, "all 3 requests are as recorded") {
		t.Fatalf("replay diff: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runBinary(t, "run", "--replay", rec, msg)
	if code != 0 {
		t.Fatalf("run --replay: exit %d\n%s", code, errOut)
	}
	code, out, _ = runBinary(t, "replay", "diff", rec, "--profile", "skillet")
	if code != 1 || !strings.Contains(out, "requests differ from the recording") {
		t.Fatalf("--profile skillet: exit %d, want 1\n%s", code, out)
	}

	// a cassette from before the header named its profile still plays,
	// under the config's profile
	raw, _ := os.ReadFile(rec)
	head, rest, _ := strings.Cut(string(raw), "\n")
	var h map[string]any
	if err := json.Unmarshal([]byte(head), &h); err != nil {
		t.Fatal(err)
	}
	delete(h, "profile")
	delete(h, "context_window")
	hb, _ := json.Marshal(h)
	old := filepath.Join(tmp, "old.jsonl")
	os.WriteFile(old, []byte(string(hb)+"\n"+rest), 0o644)
	code, out, errOut = runBinary(t, "replay", "diff", old)
	if code != 1 || !strings.Contains(out, "requests differ from the recording") {
		t.Fatalf("old cassette: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runBinary(t, "replay", "diff", old, "--profile", "claude-code", "--context-window", "150000")
	if code != 0 {
		t.Fatalf("old cassette with its profile named: exit %d\n%s\n%s", code, out, errOut)
	}
}

// A placeholder API key (a local server's "none") is no secret: recording
// with it leaves the word where replies and tool results say it.
func TestRecordKeepsAPlaceholderKeysWord(t *testing.T) {
	tmp := isolate(t)
	t.Setenv("OPENAI_API_KEY", "none")
	rec := filepath.Join(tmp, "demo.jsonl")
	code, _, errOut := runBinary(t, "run", "--offline", "--record", rec, "review account ACC-1042 for anomalies")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("[redacted API key]")) || !bytes.Contains(b, []byte("none")) {
		t.Fatalf("the cassette cut the placeholder key out of what was recorded:\n%.2000s", b)
	}
}
