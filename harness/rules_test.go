package harness

import (
	"strings"
	"testing"

	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/rulebook"
)

func TestR1_OneTranscriptSharedBySkills(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("review the account", load("alpha"), call("alpha_tool", `{"q":"acc-1"}`), say("alpha done"))
	f.turn("now release notes", load("beta"), say("beta done"))

	// the request of the second turn carries everything said under alpha,
	// in full: one transcript, never summarized
	req := f.model.last()
	var all []string
	for _, m := range req.Messages[1:] {
		all = append(all, m.Content)
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{"review the account", "alpha says acc-1", "alpha done", "now release notes", "contextChanged: loaded beta"} {
		if !strings.Contains(joined, want) {
			t.Errorf("second turn's request lacks %q", want)
		}
	}
	// and the transcript holds every message exactly as recorded
	tr := f.s.Transcript().Items()
	var users, assistants, toolsN int
	for _, e := range tr {
		switch e.Kind {
		case rulebook.EntryUser:
			users++
		case rulebook.EntryAssistant:
			assistants++
		case rulebook.EntryTool:
			toolsN++
		}
	}
	if users != 2 || assistants != 5 || toolsN != 3 {
		t.Fatalf("transcript has %d user, %d assistant, %d tool entries; want 2, 5, 3", users, assistants, toolsN)
	}
}

func TestR2_LRUUnloadsLeastRecentlyUsed(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\nmax_loaded_skills = 2\n", nil)
	f.turn("one", load("alpha"), say("ok"))
	f.turn("two", load("beta"), say("ok"))
	f.turn("three", load("gamma"), say("ok"))
	if got := loadedNames(f.s); strings.Join(got, ",") != "gamma,beta" {
		t.Fatalf("loaded = %v, want [gamma beta]", got)
	}
	un := f.rec.ofType(event.TypeSkillUnloaded)
	if len(un) != 1 || un[0].(*event.SkillUnloaded).Skill != "alpha" || un[0].(*event.SkillUnloaded).Reason != "lru" {
		t.Fatalf("unloads = %+v, want alpha for lru", un)
	}
	loads := f.rec.ofType(event.TypeSkillLoaded)
	if ev := loads[len(loads)-1].(*event.SkillLoaded); strings.Join(ev.Evicted, ",") != "alpha" {
		t.Fatalf("skill_loaded evicted = %v, want [alpha]", ev.Evicted)
	}
}

func TestR2_PreloadsAreOutsideTheCount(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	w.skill("style", "House style for every answer.", "Be brief.", "")
	f := w.open(`
[session]
max_loaded_skills = 1
[[skills]]
name = "style"
preload = true
[[skills]]
name = "alpha"
[[skills]]
name = "beta"
`, nil)
	f.turn("go", load("alpha"), say("ok"))
	snap := f.s.Snapshot()
	if len(snap.Loaded) != 1 || snap.Loaded[0].Name != "alpha" || len(snap.Preloaded) != 1 {
		t.Fatalf("loaded %v preloaded %v; want alpha loaded and style preloaded", loadedNames(f.s), snap.Preloaded)
	}
}

func TestR3_ReadingALoadedSkillAgainMakesItActive(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("one", load("alpha"), load("beta"), say("ok"))
	f.turn("two", load("alpha"), say("ok"))
	if got := loadedNames(f.s); strings.Join(got, ",") != "alpha,beta" {
		t.Fatalf("loaded = %v, want alpha active then beta, no duplicate", got)
	}
	sys := system(f.model.last())
	ia, ib := strings.Index(sys, `<skill name="alpha"`), strings.Index(sys, `<skill name="beta"`)
	if ia < 0 || ib < 0 || ia > ib {
		t.Fatalf("current_context should list alpha first: %q", sys)
	}
	if !strings.Contains(sys[ia:ib], `active="true"`) {
		t.Fatalf("alpha is not marked active: %q", sys[ia:ib])
	}
	if n := len(f.rec.ofType(event.TypeSkillActivated)); n != 1 {
		t.Fatalf("%d skill_activated events, want 1", n)
	}
	if n := len(f.rec.ofType(event.TypeSkillLoaded)); n != 2 {
		t.Fatalf("%d skill_loaded events, want 2 (no second load of alpha)", n)
	}
}

func TestR4_UnloadTakesInstructionsToolsAndStateButKeepsHistoryAndStore(t *testing.T) {
	w := newWorkspace(t)
	w.skill("notes", "Notes keeps meeting notes.", "NOTES-INSTRUCTIONS", "tools:\n  - name: remember\n")
	w.skill("other1", "Other one.", "O1", "")
	w.skill("other2", "Other two.", "O2", "")
	w.tool("remember.yaml", "name: remember\nversion: 1\ndescription: Remember a fact.\nparameters:\n  type: object\n  properties:\n    fact: {type: string}\nresponse: '{{setState \"draft\" .fact}}{{appendStore \"facts\" .fact}}saved {{.fact}}'\n")
	f := w.open("[session]\nmax_loaded_skills = 2\n", nil)
	f.turn("take notes", load("notes"), call("remember", `{"fact":"ship friday"}`), say("ok"))
	snap := f.s.Snapshot()
	if !strings.Contains(string(snap.Loaded[0].State), "ship friday") || !strings.Contains(string(snap.Loaded[0].Store), "ship friday") {
		t.Fatalf("state %s / store %s should hold the fact", snap.Loaded[0].State, snap.Loaded[0].Store)
	}
	stateFile, err := stateFile(f.s.dir, f.s.st.Loaded[0].Name, f.s.st.Loaded[0].LoadExec)
	if err != nil {
		t.Fatal(err)
	}
	f.turn("others", load("other1"), load("other2"), say("ok"))
	req := f.model.last()
	if strings.Contains(system(req), "NOTES-INSTRUCTIONS") {
		t.Fatal("unloaded skill's instructions are still in current_context")
	}
	if has(toolNamesOf(req), "remember") {
		t.Fatal("unloaded skill's tool is still offered")
	}
	if _, err := readFileErr(stateFile); err == nil {
		t.Fatal("unloaded skill's state file still exists")
	}
	var joined strings.Builder
	for _, m := range req.Messages {
		joined.WriteString(m.Content)
		for _, tc := range m.ToolCalls {
			joined.WriteString(tc.Function.Name)
		}
	}
	for _, want := range []string{"saved ship friday", "remember", "contextChanged: loaded notes", "take notes"} {
		if !strings.Contains(joined.String(), want) {
			t.Errorf("history lost %q after unload", want)
		}
	}
	// read again: fresh state, same store
	f.turn("notes again", load("notes"), say("ok"))
	snap = f.s.Snapshot()
	if strings.Contains(string(snap.Loaded[0].State), "ship friday") {
		t.Fatalf("state survived the unload: %s", snap.Loaded[0].State)
	}
	if !strings.Contains(string(snap.Loaded[0].Store), "ship friday") {
		t.Fatalf("store lost on unload: %s", snap.Loaded[0].Store)
	}
}

func TestR5_EveryLoadedSkillsToolsAreOffered(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("two skills", load("alpha"), load("beta"), call("alpha_tool", `{"q":"x"}`), say("ok"))
	reqs := f.model.requests()
	last := toolNamesOf(reqs[len(reqs)-1])
	if !has(last, "alpha_tool") || !has(last, "beta_tool") {
		t.Fatalf("tools %v should hold both loaded skills' tools", last)
	}
	if got := f.lastResult(); got.Text != "alpha says x" || got.IsError {
		t.Fatalf("alpha_tool (not the active skill's) answered %+v", got)
	}
}

func TestR6_UnknownToolIsRefusedAndTheTurnGoesOn(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\nmax_loaded_skills = 1\n", nil)
	f.turn("one", load("alpha"), say("ok"))
	f.turn("two", load("beta"), call("alpha_tool", `{"q":"x"}`), call("no_such_tool", `{}`), say("recovered"))
	res := f.results()
	if res[len(res)-2].Text != "Unknown tool: alpha_tool" || res[len(res)-1].Text != "Unknown tool: no_such_tool" {
		t.Fatalf("results = %q, %q", res[len(res)-2].Text, res[len(res)-1].Text)
	}
	if end := f.s.Snapshot().LastTurn; end.StopReason != event.StopDone || end.Answer != "recovered" {
		t.Fatalf("turn should go on after the refusal: %+v", end)
	}
}

func TestR7_ContextChangedLinesCarryFirst200CharsOfEachLine(t *testing.T) {
	w := newWorkspace(t)
	long := strings.Repeat("x", 250)
	w.skill("alpha", "Alpha.", "short line\n\n"+long, "")
	w.skill("beta", "Beta.", "B", "")
	f := w.open("[session]\nmax_loaded_skills = 1\n", nil)
	f.turn("one", load("alpha"), say("ok"))
	r := f.lastResult().Text
	if !strings.HasPrefix(r, "contextChanged: loaded alpha") {
		t.Fatalf("load result = %q", r)
	}
	if !strings.Contains(r, "| short line") || !strings.Contains(r, "| "+strings.Repeat("x", 200)+"\n") && !strings.HasSuffix(r, "| "+strings.Repeat("x", 200)) {
		t.Fatalf("load result should carry each line cut at 200 chars: %q", r)
	}
	if strings.Contains(r, strings.Repeat("x", 201)) {
		t.Fatal("a line was not cut at 200 characters")
	}
	f.turn("two", load("beta"), say("ok"))
	r = f.lastResult().Text
	if !strings.Contains(r, "contextChanged: unloaded alpha (least recently used") {
		t.Fatalf("eviction not in the load result: %q", r)
	}
	// a later request still carries alpha's lines after alpha is gone
	f.turn("three", say("ok"))
	var joined strings.Builder
	for _, m := range f.model.last().Messages {
		joined.WriteString(m.Content)
	}
	if !strings.Contains(joined.String(), "| short line") {
		t.Fatal("alpha's contextChanged lines left the transcript with alpha")
	}
	if n := len(f.rec.ofType(event.TypeContextChanged)); n < 3 {
		t.Fatalf("%d context_changed events, want at least 3", n)
	}
}

func TestR8_OneCurrentContextMostRecentFirstOutsideTheWindowCap(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\nmax_transcript_messages = 2\n", nil)
	f.turn("one", load("alpha"), load("beta"), say("ok"))
	f.turn("two", say("ok"))
	sys := system(f.model.last())
	if strings.Count(sys, "<current_context>") != 1 {
		t.Fatalf("want exactly one <current_context> block: %q", sys)
	}
	ia, ib := strings.Index(sys, `name="alpha"`), strings.Index(sys, `name="beta"`)
	if ib < 0 || ia < 0 || ib > ia {
		t.Fatal("beta (read last) should come first")
	}
	if !strings.Contains(sys, "Alpha instructions.") || !strings.Contains(sys, "Beta instructions.") {
		t.Fatal("current_context must hold every loaded skill although the window is capped at 2")
	}
	if n := len(f.model.last().Messages) - 1; n > 2 {
		t.Fatalf("rulebook.Window carries %d messages, cap is 2", n)
	}
}

func TestR9_WindowStartsAtUserMessageAndKeepsCallsWithResults(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\nmax_transcript_messages = 5\n", nil)
	f.turn("one", say("a1"))
	f.turn("two", load("alpha"), call("alpha_tool", `{"q":"1"}`), say("a2"))
	f.turn("three", say("a3"))
	for i, req := range f.model.requests() {
		msgs := req.Messages[1:]
		if len(msgs) > 5 {
			t.Fatalf("request %d carries %d messages, cap 5", i, len(msgs))
		}
		if len(msgs) > 0 && msgs[0].Role != chat.RoleUser {
			t.Fatalf("request %d rulebook.Window starts at %s", i, msgs[0].Role)
		}
		checkCallsHaveResults(t, msgs)
	}
	trims := f.rec.ofType(event.TypeWindowTrimmed)
	if len(trims) == 0 {
		t.Fatal("no window_trimmed event")
	}
}

func TestR9_CurrentTurnLongerThanCapStartsAtItsUserMessage(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\nmax_transcript_messages = 3\n", nil)
	f.turn("long turn", load("alpha"), call("alpha_tool", `{"q":"1"}`), call("alpha_tool", `{"q":"2"}`), say("done"))
	last := f.model.last().Messages[1:]
	if last[0].Role != chat.RoleUser || !strings.Contains(last[0].Content, "long turn") {
		t.Fatalf("rulebook.Window should start at the turn's user message, starts with %+v", last[0])
	}
	if !f.s.Snapshot().Window.CapExceeded {
		t.Fatal("snapshot should say the cap was exceeded")
	}
	found := false
	for _, e := range f.rec.ofType(event.TypeWindowTrimmed) {
		if e.(*event.WindowTrimmed).CapExceeded {
			found = true
		}
	}
	if !found {
		t.Fatal("no window_trimmed event with cap_exceeded")
	}
}

// checkCallsHaveResults fails when a tool result's call is not before it in
// the same request, or a call has no result after it.
func checkCallsHaveResults(t *testing.T, msgs []chat.Message) {
	t.Helper()
	open := map[string]bool{}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			open[tc.ID] = true
		}
		if m.Role == chat.RoleTool {
			if !open[m.ToolCallID] {
				t.Fatalf("tool result %s without its call in the request", m.ToolCallID)
			}
			delete(open, m.ToolCallID)
		}
	}
}
