package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"skillet/harness/event"
	"skillet/harness/rulebook"
	"strings"
	"testing"
)

func TestBadInput_ArgumentsAndNamesGetErrorsTheModelReads(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	w.tool("typed.yaml", "name: typed\nversion: 1\ndescription: Typed.\nparameters:\n  type: object\n  properties:\n    n: {type: integer}\n  required: [n]\nresponse: 'n={{.n}}'\n")
	w.skill("typist", "Typed tools.", "T", "tools:\n  - name: typed\n")
	f := w.open("", nil)
	f.turn("go",
		load("typist"),
		call("typed", `{not json`),
		call("typed", `{"n":"seven"}`),
		call("typed", `{}`),
		call("typed", `{"n":7}`),
		load("alhpa"),
		call(rulebook.ToolLoadSkill, `{"nom":"alpha"}`),
		say("ok"))
	res := f.results()
	checks := []struct {
		i    int
		want string
	}{
		{1, "JSON"}, {2, "n"}, {3, "n"}, {5, "alpha"}, {6, "name"},
	}
	for _, c := range checks {
		if !res[c.i].IsError || !strings.Contains(res[c.i].Text, c.want) {
			t.Errorf("result %d = %+v; want an error naming %q", c.i, res[c.i], c.want)
		}
	}
	if res[4].IsError || res[4].Text != "n=7" {
		t.Fatalf("valid call failed: %+v", res[4])
	}
	if !strings.Contains(res[5].Text, "closest") {
		t.Fatalf("unknown skill should name the closest: %q", res[5].Text)
	}
	// every one of them is in the journal
	raw, _ := os.ReadFile(filepath.Join(f.s.Dir(), JournalFile))
	for _, r := range res {
		if !bytes.Contains(raw, []byte(r.ToolCallID)) {
			t.Fatalf("result %s missing from the journal", r.ToolCallID)
		}
	}
}

func TestBadInput_HugeToolResultIsCutWithANote(t *testing.T) {
	w := newWorkspace(t)
	w.tool("huge.yaml", "name: huge\nversion: 1\ndescription: Huge.\ncommand: [\"/bin/sh\", \"-c\", \"head -c 300000 /dev/zero | tr '\\\\0' x\"]\nmax_output: 1000000\n")
	w.skill("big", "Big output.", "B", "tools:\n  - name: huge\n")
	f := w.open("[approval]\nhuge = \"never\"\n", nil)
	f.turn("go", load("big"), call("huge", `{}`), say("ok"))
	r := f.lastResult()
	if len(r.Text) > MaxToolResult+200 || !strings.Contains(r.Text, "cut") {
		t.Fatalf("result of %d bytes should be cut with a note; tail %q", len(r.Text), r.Text[max(0, len(r.Text)-120):])
	}
}

func TestBadInput_ModelErrorEndsTheTurnButKeepsTheRecord(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("one", say("fine"))
	f.model.add(func(*chatRequest) (*chatReply, error) { return nil, errBoom })
	end, err := f.s.Turn(ctxBG(), "two")
	if err == nil || end == nil || end.StopReason != event.StopError {
		t.Fatalf("end %+v err %v", end, err)
	}
	if len(f.rec.ofType(event.TypeError)) != 1 {
		t.Fatal("no error event")
	}
	f.turn("three", say("recovered"))
	if n := len(f.s.Transcript().Items()); n < 5 {
		t.Fatalf("transcript lost entries: %d", n)
	}
}
