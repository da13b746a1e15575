package harness

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"skillet/harness/chat"
	"skillet/harness/rulebook"
)

// Every way of losing one journal line — dropping it, halving it,
// garbling it — reopens into a transcript whose every later request keeps
// each tool call followed by its result, and says what it repaired.
func TestJournalDamagedLineByLineStillPairsToolCalls(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("one", load("alpha"), call("alpha_tool", `{"q":"1"}`, "alpha_tool", `{"q":"2"}`), say("ok"))
	f.turn("two", call("alpha_tool", `{"q":"3"}`), load("beta"), call("beta_tool", `{"q":"4"}`), say("done"))
	f.turn("three", say("fine"))
	dir := f.s.Dir()
	f.s.Close()
	raw, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	damages := map[string]func(string) string{
		"dropped": func(string) string { return "" },
		"halved":  func(l string) string { return l[:len(l)/2] },
		"garbled": func(l string) string { return strings.Replace(l, `"`, `#`, 3) },
	}
	cases, repaired := 0, 0
	for i := 1; i < len(lines); i++ { // line 1 is session_start: without it nothing reopens
		for how, damage := range damages {
			cases++
			cp := append([]string(nil), lines...)
			cp[i] = damage(cp[i])
			sub := filepath.Join(t.TempDir(), "s")
			os.MkdirAll(sub, 0o700)
			os.WriteFile(filepath.Join(sub, JournalFile), []byte(strings.Join(cp, "\n")+"\n"), 0o600)
			model := &scripted{}
			rec := &recorder{}
			s, err := Open(sub, Options{Catalog: w.catalog(), Model: model, OnEvent: rec.on})
			if err != nil {
				t.Fatalf("line %d %s: reopen: %v", i+1, how, err)
			}
			bad := ""
			model.fallback = func(req *chat.Request) (*chat.Reply, error) {
				if msg := pairingProblem(req); msg != "" && bad == "" {
					bad = msg
				}
				return say("ok")(req)
			}
			if _, err := s.Turn(ctxBG(), "after the damage"); err != nil {
				t.Fatalf("line %d %s: turn: %v", i+1, how, err)
			}
			s.Close()
			if bad != "" {
				t.Errorf("line %d %s (%.60s): the next request breaks the pairing rule: %s", i+1, how, lines[i], bad)
			}
			if strings.Contains(rec.warnings(), "journal repaired") {
				repaired++
			}
		}
	}
	t.Logf("%d damaged journals reopened, %d needed repairs", cases, repaired)
	if repaired == 0 {
		t.Fatal("no damage needed a repair: the sweep misses tool results")
	}
}

// pairingProblem says how a request breaks the rule that every tool call
// is followed by its result before the next message, and every result
// follows its call; "" when it keeps it.
func pairingProblem(req *chat.Request) string {
	var open map[string]bool
	for i, m := range req.Messages {
		switch m.Role {
		case chat.RoleTool:
			if !open[m.ToolCallID] {
				return "message " + strconv.Itoa(i) + ": a result for " + m.ToolCallID + " without its call"
			}
			delete(open, m.ToolCallID)
		default:
			if len(open) > 0 {
				return "message " + strconv.Itoa(i) + ": a call without its result before it"
			}
			open = map[string]bool{}
			for _, tc := range m.ToolCalls {
				open[tc.ID] = true
			}
		}
	}
	if len(open) > 0 {
		return "the last calls have no results"
	}
	return ""
}

// A tool that had started before a crash may have run: the reopened
// transcript tells the model so instead of "not run".
func TestJournalToolRunningAtACrashIsInterrupted(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("one", load("alpha"), say("ok"))
	dir := f.s.Dir()
	f.s.Close()
	jf, _ := os.OpenFile(filepath.Join(dir, JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	jf.WriteString(`{"type":"turn_start","turn":2,"text":"two"}` + "\n")
	jf.WriteString(`{"type":"assistant","turn":2,"call":1,"text":"","tool_calls":[{"id":"z1","name":"alpha_tool","arguments":"{}"},{"id":"z2","name":"alpha_tool","arguments":"{}"}],"finish_reason":"tool_calls"}` + "\n")
	jf.WriteString(`{"type":"tool_started","turn":2,"tool_call_id":"z1","name":"alpha_tool","arguments":"{}"}` + "\n")
	jf.Close()
	s, err := Open(dir, Options{Catalog: w.catalog(), Model: &scripted{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := map[string]string{}
	for _, e := range s.Transcript().Items() {
		if e.Kind == rulebook.EntryTool {
			got[e.ToolCallID] = e.Text
		}
	}
	if !strings.HasPrefix(got["z1"], "interrupted:") || !strings.Contains(got["z1"], "may have run") {
		t.Fatalf("the started call: %q", got["z1"])
	}
	if !strings.HasPrefix(got["z2"], "not run:") {
		t.Fatalf("the call that never started: %q", got["z2"])
	}
}
