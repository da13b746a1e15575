package bench_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"skillet/harness/bench"
	"skillet/harness/sandbox"
)

func check(t *testing.T, raw string) bench.Check {
	t.Helper()
	c, err := bench.ParseCheck(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCheckRunner_GradesEachKind(t *testing.T) {
	ws := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ws, "out"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "out", "r.json"), []byte(`{"a/b":[{"n":2}],"m~":"x"}`), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "notes.md"), []byte("Total: 42 items\n"), 0o644))
	o := bench.Outcome{Answer: "Done: 42 items.", Workspace: ws, Loaded: []string{"pdf"},
		Tools: []bench.ToolUse{{Name: "shell", Arguments: `{"command":"make test","timeout_ms":5}`}}}
	box, err := sandbox.New(sandbox.Options{})
	if err != nil {
		box = sandbox.Unconfined(sandbox.Options{})
	}
	r := &bench.CheckRunner{Sandbox: box}
	for _, c := range []struct {
		check string
		pass  bool
		ev    string
	}{
		{`{"kind":"file_exists","path":"notes.md"}`, true, "exists"},
		{`{"kind":"file_exists","path":"nope.md"}`, false, "does not exist"},
		{`{"kind":"file_contains","path":"notes.md","text":"42 items"}`, true, "holds"},
		{`{"kind":"file_contains","path":"notes.md","text":"43"}`, false, "does not hold"},
		{`{"kind":"file_matches","path":"notes.md","regex":"Total: \\d+"}`, true, "Total: 42"},
		{`{"kind":"json_path","path":"out/r.json","pointer":"/a~1b/0/n","equals":2}`, true, "is 2"},
		{`{"kind":"json_path","path":"out/r.json","pointer":"/m~0","equals":"x"}`, true, `is "x"`},
		{`{"kind":"json_path","path":"out/r.json","pointer":"/a~1b/1","equals":2}`, false, "past the array"},
		{`{"kind":"json_path","path":"notes.md","pointer":"","equals":2}`, false, "not JSON"},
		{`{"kind":"answer_contains","text":"Done"}`, true, "holds"},
		{`{"kind":"answer_matches","regex":"^Done: \\d+"}`, true, "Done: 42"},
		{`{"kind":"answer_matches","regex":"^Failed"}`, false, "no match"},
		{`{"kind":"tool_called","name":"shell","arguments":{"command":"make test"}}`, true, "called shell"},
		{`{"kind":"tool_called","name":"shell","arguments":{"command":"make"}}`, false, "never with those arguments"},
		{`{"kind":"tool_called","name":"write"}`, false, "never called"},
		{`{"kind":"skill_loaded","skill":"pdf"}`, true, "was loaded"},
		{`{"kind":"skill_loaded","skill":"xlsx"}`, false, "loaded: pdf"},
		{`{"kind":"command","run":"grep -q 42 notes.md"}`, true, "exit code 0"},
		{`{"kind":"command","run":"echo nope; exit 3"}`, false, "exit code 3: nope"},
	} {
		g := r.Grade(context.Background(), check(t, c.check), o)
		if g.Error != "" || g.Passed != c.pass || !strings.Contains(g.Evidence, c.ev) {
			t.Errorf("%s: passed %v evidence %q error %q; want %v with %q", c.check, g.Passed, g.Evidence, g.Error, c.pass, c.ev)
		}
	}
}

func TestCheckRunner_CommandsRunConfinedToTheWorkspace(t *testing.T) {
	box, err := sandbox.New(sandbox.Options{})
	if err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	ws := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret")
	must(t, os.WriteFile(secret, []byte("s"), 0o644))
	g := (&bench.CheckRunner{Sandbox: box}).Grade(context.Background(), check(t, `{"kind":"command","run":"cat `+secret+`"}`), bench.Outcome{Workspace: ws})
	if g.Passed {
		t.Errorf("a command check read a file outside the workspace: %+v", g)
	}
	g = (&bench.CheckRunner{}).Grade(context.Background(), check(t, `{"kind":"command","run":"true"}`), bench.Outcome{Workspace: ws})
	if g.Error == "" {
		t.Error("a command check without a sandbox was not an error")
	}
}
