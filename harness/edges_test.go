package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"skillet/harness/event"
	"skillet/harness/rulebook"
	"skillet/harness/view"
	"strings"
	"testing"

	"skillet/harness/chat"
)

func TestR25_ATurnCannotStartWhileAManualCallRuns(t *testing.T) {
	w := newWorkspace(t)
	w.tool("slow.yaml", "name: slow\nversion: 1\ndescription: Slow.\ncommand: [\"/bin/sh\", \"-c\", \"touch \\\"$MARK\\\"; sleep 2; echo done\"]\nenv: [MARK]\n")
	w.skill("slowpoke", "Slow things.", "S", "tools:\n  - name: slow\n")
	mark := filepath.Join(t.TempDir(), "started")
	t.Setenv("MARK", mark)
	f := w.open("", nil)
	if err := f.s.LoadSkill("slowpoke"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := f.s.CallTool(context.Background(), "slow", "{}")
		done <- err
	}()
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
	}
	if _, err := f.s.Turn(context.Background(), "hello"); !errors.Is(err, ErrTurnRunning) {
		t.Fatalf("a turn started during a manual call: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	f.turn("now", say("ok"))
	checkCallsHaveResults(t, f.model.last().Messages)
}

func TestR23_FrozenPromptDeliversWholeTextAsTheLoadResult(t *testing.T) {
	w := newWorkspace(t)
	long := "START" + strings.Repeat("x", 300) + "END"
	w.skill("alpha", "Alpha.", long, "")
	f := w.open("[session]\nfreeze_prompt = true\n", nil) // delivery stays "context"
	f.turn("one", load("alpha"), say("ok"))
	if r := f.lastResult().Text; !strings.Contains(r, long) {
		t.Fatalf("the frozen prompt cannot show the text, so the result must carry it whole: %q", r)
	}
	if err := f.s.LoadSkill("alpha"); err == nil {
		t.Fatal("a user load cannot reach the model under a frozen prompt and must say so")
	}
}

func TestR23_ContextSkillsNotInTheFrozenPromptAreNotDelivered(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("one", say("ok"))
	if err := f.s.Set("freeze_prompt", "true"); err != nil {
		t.Fatal(err)
	}
	f.turn("two", say("ok")) // freezes with an empty <current_context>
	if err := f.s.LoadSkill("alpha"); err == nil {
		t.Fatal("/load under a frozen prompt should be refused")
	}
	if end := f.s.Snapshot().LastTurn; has(end.Delivered, "alpha") {
		t.Fatalf("alpha never reached the frozen prompt: %+v", end)
	}
}

func TestR14_ReadingAgainInTheSameTurnStillChecksPins(t *testing.T) {
	w := newWorkspace(t)
	w.responseTool("t", 1, "one")
	w.responseTool("t", 2, "two")
	w.skill("aaa", "Pins one.", "A", "tools:\n  - name: t\n    version: 1\n")
	w.skill("bbb", "Pins two.", "B", "tools:\n  - name: t\n    version: 2\n")
	w.skill("ccc", "Other.", "C", "")
	w.skill("ddd", "Other.", "D", "")
	f := w.open("[session]\nmax_loaded_skills = 2\nmax_loads_per_turn = 5\n", nil)
	f.turn("go", load("aaa"), load("ccc"), load("ddd"), load("bbb"), load("aaa"), say("ok"))
	if r := f.lastResult(); !r.IsError || !strings.Contains(r.Text, "pins") {
		t.Fatalf("aaa read again beside bbb must fail on the pins: %+v", r)
	}
	if got := loadedNames(f.s); has(got, "aaa") && has(got, "bbb") {
		t.Fatalf("two pins loaded together: %v", got)
	}
}

func TestR14_APinDoesNotConflictWithTheSkillItEvicts(t *testing.T) {
	w := newWorkspace(t)
	w.responseTool("t", 1, "one")
	w.responseTool("t", 2, "two")
	w.skill("aaa", "Pins one.", "A", "tools:\n  - name: t\n    version: 1\n")
	w.skill("bbb", "Pins two.", "B", "tools:\n  - name: t\n    version: 2\n")
	f := w.open("[session]\nmax_loaded_skills = 1\n", nil)
	f.turn("go", load("aaa"), load("bbb"), call("t", `{}`), say("ok"))
	if r := f.lastResult(); r.Text != "two" {
		t.Fatalf("bbb evicts aaa, so their pins never meet: %+v", r)
	}
}

func TestR14_TwoLoadsInOneReplyDoNotBothClaimAPinnedTool(t *testing.T) {
	w := newWorkspace(t)
	w.responseTool("t", 1, "one")
	w.skill("aaa", "Pins one.", "A", "tools:\n  - name: t\n    version: 1\n")
	w.skill("bbb", "Pins one too.", "B", "tools:\n  - name: t\n    version: 1\n")
	f := w.open("", nil)
	f.turn("go", call(rulebook.ToolLoadSkill, `{"name":"aaa"}`, rulebook.ToolLoadSkill, `{"name":"bbb"}`), say("ok"))
	loads := f.rec.ofType(event.TypeSkillLoaded)
	if a, b := loads[0].(*event.SkillLoaded).Tools, loads[1].(*event.SkillLoaded).Tools; len(a) != 1 || len(b) != 0 {
		t.Fatalf("aaa made t@1 available, so bbb's load must not list it: %v / %v", a, b)
	}
}

func TestR26_PreloadedSkillToolsHaveState(t *testing.T) {
	w := newWorkspace(t)
	w.tool("note.yaml", "name: note\nversion: 1\ndescription: Note.\nparameters:\n  type: object\n  properties:\n    q: {type: string}\nresponse: '{{setState \"last\" .q}}noted {{.q}}'\n")
	w.skill("style", "House style.", "S", "tools:\n  - name: note\n")
	f := w.open("[[skills]]\nname = \"style\"\npreload = true\n", nil)
	f.turn("go", call("note", `{"q":"x"}`), say("ok"))
	if r := f.lastResult(); r.IsError || r.Text != "noted x" {
		t.Fatalf("a preload is a load with a fresh state: %+v", r)
	}
	if st := string(f.s.Snapshot().Preloaded[0].State); !strings.Contains(st, `"last"`) || !strings.Contains(st, `"x"`) {
		t.Fatalf("preload state = %s", st)
	}
	f.turn("again", say("ok"))
	if st := string(f.s.Snapshot().Preloaded[0].State); st != "{}" {
		t.Fatalf("the next turn's preload starts fresh: %s", st)
	}
}

func TestR4_AToolWhoseSkillAnEarlierCallUnloadedIsRefused(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\nmax_loaded_skills = 1\n", nil)
	f.turn("one", load("alpha"), say("ok"))
	f.turn("two", call(rulebook.ToolLoadSkill, `{"name":"beta"}`, "alpha_tool", `{"q":"late"}`), say("ok"))
	if r := f.lastResult(); r.Text != "Unknown tool: alpha_tool" {
		t.Fatalf("alpha unloaded earlier in the reply: %+v", r)
	}
	states, _ := os.ReadDir(filepath.Join(f.s.Dir(), "state"))
	for _, st := range states {
		if strings.HasPrefix(st.Name(), "alpha.") {
			t.Fatalf("alpha's state came back: %s", st.Name())
		}
	}
}

func TestR17_HarnessLogLinesReachTheFirstRequest(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	w.responseTool("side-tool", 1, "side")
	w.skill("alpha", "Alpha.", "A", "tools:\n  - name: side-tool\n")
	f := w.open("", nil)
	f.turn("one", load("alpha"), say("ok"))
	w.skill("side-tool", "A skill named like a tool.", "X", "")
	f.turn("two", say("ok"))
	reqs := f.model.requests()
	first := reqs[len(reqs)-1].Messages
	last := first[len(first)-1]
	if last.Role != chat.RoleUser || !strings.Contains(last.Content, "harness.log: tool side-tool") {
		t.Fatalf("the first request of the turn should carry the harness.log line: %q", last.Content)
	}
}

func TestR15_AnApproverAnswerThatIsNotAYesDenies(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[approval]\nalpha_tool = \"ask\"\n", func(o *Options) {
		o.Approver = func(context.Context, view.ApprovalRequest) (event.Decision, error) { return "", nil }
	})
	f.turn("go", load("alpha"), call("alpha_tool", `{"q":"x"}`), say("ok"))
	if r := f.lastResult(); !r.IsError || !strings.Contains(r.Text, "denied") {
		t.Fatalf("an empty answer must deny: %+v", r)
	}
}

func TestToolCallIDsStayUniqueAcrossReplies(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	same := func(*chat.Request) (*chat.Reply, error) {
		return &chat.Reply{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{
			{ID: "call_1", Function: chat.FunctionCall{Name: "alpha_tool", Arguments: `{"q":"x"}`}},
			{Function: chat.FunctionCall{Name: "alpha_tool", Arguments: `{"q":"y"}`}},
		}}, FinishReason: "tool_calls"}, nil
	}
	f.turn("one", load("alpha"), same, same, say("ok"))
	seen := map[string]bool{}
	for _, e := range f.s.Transcript().Items() {
		for _, tc := range e.ToolCalls {
			if tc.ID == "" || seen[tc.ID] {
				t.Fatalf("tool call id %q is empty or repeated", tc.ID)
			}
			seen[tc.ID] = true
		}
	}
	checkCallsHaveResults(t, f.model.last().Messages)
}
