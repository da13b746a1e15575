package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The built-in script, sent with ctrl+n in a real terminal: every message
// is typed into the input, sent, and answered by the demo model, and the
// demo line counts down to the end.
func TestDemoBuiltinScriptRunsToTheEnd(t *testing.T) {
	tmp := isolate(t)
	u := startTUI(t, tmp, "demo", "--offline", "--keystroke", "5ms")
	u.waitFor("demo 1/5 · ctrl+n types the next message")

	u.keys("C-n")
	u.waitFor("loaded account-review")
	u.waitFor("get_account_activity · result")
	u.waitFor("demo 2/5 · ctrl+n types the next message")

	u.keys("C-n")
	u.waitFor("loaded incident-report")
	u.waitFor("demo 3/5 · ctrl+n")
	u.keys("C-n")
	u.waitFor("save_action_item · result")
	u.waitFor("demo 4/5 · ctrl+n")

	u.keys("C-n")
	u.waitFor("unloaded account-review")
	u.waitFor("[ d  deny ]") // the approval dialog takes keys once its default is lit
	u.keys("a")
	u.waitFor("run_checks · result")
	u.waitFor("demo 5/5 · ctrl+n")

	u.keys("C-n")
	u.waitFor("demo 5/5 · done")
	u.keys("C-n") // past the end: said, nothing sent
	u.waitFor("the demo script is done")
	u.quit()

	// the journal holds the five messages, typed whole
	sess, err := filepath.Glob(filepath.Join(tmp, "state", "skillet", "sessions", "*", "journal.jsonl"))
	if err != nil || len(sess) != 1 {
		t.Fatalf("want one session journal, got %v (%v)", sess, err)
	}
	b, err := os.ReadFile(sess[0])
	if err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, ev := range events(t, string(b)) {
		if ev["type"] == "turn_start" {
			sent = append(sent, ev["text"].(string))
		}
	}
	if strings.Join(sent, "\n") != strings.Join(builtinScript, "\n") {
		t.Errorf("the turns were\n%s\nwant the script\n%s", strings.Join(sent, "\n"), strings.Join(builtinScript, "\n"))
	}
}

// A script file: comments and blank lines skipped, a command line runs as a
// command, and the line below the UI counts the file's messages.
func TestDemoScriptFileWithACommand(t *testing.T) {
	tmp := isolate(t)
	script := filepath.Join(tmp, "talk.txt")
	os.WriteFile(script, []byte("# the meeting-notes part\n\n/load meeting-notes\r\nhello there\n"), 0o644)
	u := startTUI(t, tmp, "demo", "--offline", "--keystroke", "5ms", shellQuote(script))
	u.waitFor("demo 1/2 · ctrl+n types the next message")
	// the presenter's own text is never mixed with the script's
	u.keys("-l", "hi")
	u.keys("C-n")
	u.waitFor("the input holds text")
	u.keys("BSpace", "BSpace")
	u.keys("C-n")
	u.waitFor("loaded meeting-notes")
	u.waitFor("demo 2/2 · ctrl+n")
	u.keys("C-n")
	u.waitFor("demo 2/2 · done")
	u.waitFor("hello there")
	u.quit()
}

func TestDemoBadScript(t *testing.T) {
	tmp := isolate(t)
	empty := filepath.Join(tmp, "empty.txt")
	os.WriteFile(empty, []byte("# nothing\n\n"), 0o644)
	ctl := filepath.Join(tmp, "ctl.txt")
	os.WriteFile(ctl, []byte("hello\x1b[2J\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", filepath.Join(tmp, "missing.txt")}, "missing.txt: no such file"},
		{[]string{"demo", empty}, "holds no message"},
		{[]string{"demo", ctl}, "control character"},
		{[]string{"demo", "a", "b"}, "one SCRIPT at most"},
		{[]string{"demo", "--keystroke", "-1s"}, "--keystroke -1s"},
	} {
		code, _, stderr := runCmd(t, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	// a good script still needs a terminal, and says so
	code, _, stderr := runCmd(t, "", "demo")
	if code != 2 || !strings.Contains(stderr, "needs a terminal") {
		t.Errorf("demo without a terminal: exit %d, %q", code, stderr)
	}
}

// The demo takes the UI's flags: here a replay of a recorded run, offline,
// whose requests must equal the recorded ones.
func TestDemoOverAReplay(t *testing.T) {
	tmp := isolate(t)
	rec := filepath.Join(tmp, "rec.jsonl")
	if code, _, stderr := runCmd(t, "", "run", "--offline", "--record", rec, builtinScript[0], builtinScript[1]); code != 0 {
		t.Fatalf("record: exit %d\n%s", code, stderr)
	}
	script := filepath.Join(tmp, "two.txt")
	os.WriteFile(script, []byte(builtinScript[0]+"\n"+builtinScript[1]+"\n"), 0o644)
	u := startTUI(t, tmp, "demo", "--replay", shellQuote(rec), "--keystroke", "5ms", shellQuote(script))
	u.waitFor("demo 1/2 · ctrl+n types the next message")
	u.keys("C-n")
	u.waitFor("get_account_activity · result")
	u.waitFor("demo 2/2 · ctrl+n")
	u.keys("C-n")
	u.waitFor("loaded incident-report")
	u.waitFor("demo 2/2 · done")
	if s := u.screen(); strings.Contains(s, "differs from the recording") {
		t.Errorf("the replay saw a different request:\n%s", s)
	}
	u.quit()
}

// A live model: a chat-completions endpoint on loopback answers the script.
func TestDemoWithALiveEndpoint(t *testing.T) {
	tmp := isolate(t)
	skills := filepath.Join(tmp, "skills")
	writeSkill(t, skills, "alpha", "")
	srv := scripted(t)
	script := filepath.Join(tmp, "two.txt")
	os.WriteFile(script, []byte("first question\nsecond question\n"), 0o644)
	u := startTUI(t, tmp, "demo", "--base-url", srv.URL, "--skills", shellQuote(skills), "--keystroke", "5ms", shellQuote(script))
	u.waitFor("demo 1/2 · ctrl+n types the next message")
	u.keys("C-n")
	u.waitFor("loaded alpha")
	u.waitFor("demo 2/2 · ctrl+n")
	u.keys("C-n")
	u.waitFor("second question")
	u.waitFor("demo 2/2 · done")
	u.quit()
}
