package harness

import (
	"fmt"
	"skillet/harness/event"
	"skillet/harness/rulebook"
	"skillet/harness/view"
	"strings"
	"testing"

	"skillet/harness/config"
)

func TestR10_ListRankedAgainstTheMessageAndLeftOffNamed(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	w.skill("delta", "Delta tunes database queries.", "D", "")
	f := w.open("[session]\nlist_size = 2\n", nil)
	f.turn("please write the incident report for the outage", say("ok"))
	sys := system(f.model.last())
	if !strings.Contains(sys, "<name>gamma</name>") {
		t.Fatalf("gamma (incident reports) should be on a list ranked for the message:\n%s", sys)
	}
	if n := strings.Count(sys, "<skill>"); n != 2 {
		t.Fatalf("list holds %d skills, list_size is 2", n)
	}
	end := f.s.Snapshot().LastTurn
	if len(end.LeftOff) != 2 || len(end.Offered) != 2 {
		t.Fatalf("offered %v left off %v; want 2 and 2", end.Offered, end.LeftOff)
	}
	warn := f.rec.warnings()
	for _, name := range end.LeftOff {
		if !strings.Contains(warn, name) {
			t.Fatalf("warning should name left-off %s: %q", name, warn)
		}
	}
}

func TestR10_ListEscapesNamesAndDescriptions(t *testing.T) {
	w := newWorkspace(t)
	w.skill("alpha", "'Use for <b> & \"quotes\"'", "A", "")
	f := w.open("", nil)
	f.turn("hi", say("ok"))
	if sys := system(f.model.last()); !strings.Contains(sys, `Use for &lt;b&gt; &amp; "quotes"`) {
		t.Fatalf("description not escaped: %s", sys)
	}
}

func TestR11_ToolResultDeliveryAndTextOutOfWindow(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\ndelivery = \"tool-result\"\nmax_transcript_messages = 4\n", nil)
	f.turn("one", load("alpha"), say("ok"))
	r := f.lastResult().Text
	if !strings.Contains(r, "Alpha instructions.") || !strings.HasPrefix(r, "contextChanged: loaded alpha") {
		t.Fatalf("tool-result delivery should answer with the skill's text: %q", r)
	}
	if strings.Contains(system(f.model.last()), "Alpha instructions.") {
		t.Fatal("tool-result delivery should not also render the text in current_context")
	}
	if f.s.Snapshot().Loaded[0].OutOfWindow {
		t.Fatal("text marked out of window while its result is in the window")
	}
	f.turn("two", say("ok"))
	f.turn("three", say("ok"))
	snap := f.s.Snapshot()
	if len(snap.Loaded) != 1 || !snap.Loaded[0].OutOfWindow {
		t.Fatalf("alpha should stay loaded and be marked text out of window: %+v", snap.Loaded)
	}
	if !has(toolNamesOf(f.model.last()), "alpha_tool") {
		t.Fatal("alpha's tools should stay while its text is out of window")
	}
	if !strings.Contains(f.rec.warnings(), "alpha is still loaded") {
		t.Fatalf("no warning about text out of window: %q", f.rec.warnings())
	}
	if end := snap.LastTurn; has(end.Delivered, "alpha") {
		t.Fatalf("alpha's text did not reach the model in turn 3 but is Delivered: %v", end.Delivered)
	}
}

func TestR12_LoadLimitsRefuseWholeLoads(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	w.skill("huge", "Huge skill.", strings.Repeat("word ", 2000), "")
	f := w.open("[session]\nmax_loads_per_turn = 1\nmax_skill_chars = 5000\n", nil)
	f.turn("loads", load("alpha"), load("beta"), say("ok"))
	if r := f.lastResult(); !r.IsError || !strings.Contains(r.Text, "max_loads_per_turn") {
		t.Fatalf("second load should be refused naming max_loads_per_turn: %+v", r)
	}
	if has(loadedNames(f.s), "beta") {
		t.Fatal("refused load happened anyway")
	}
	f.turn("huge", load("huge"), say("ok"))
	if r := f.lastResult(); !r.IsError || !strings.Contains(r.Text, "max_skill_chars") {
		t.Fatalf("over-long skill should be refused naming max_skill_chars: %+v", r)
	}

	w2 := newWorkspace(t)
	basicSkills(w2)
	w2.skill("big", "Big skill.", strings.Repeat("token ", 300), "")
	f2 := w2.open("[session]\nload_token_budget = 200\n", nil)
	f2.turn("budget", load("big"), say("ok"))
	if r := f2.lastResult(); !r.IsError || !strings.Contains(r.Text, "load_token_budget") {
		t.Fatalf("load over the budget should be refused naming load_token_budget: %+v", r)
	}
	if u := f2.s.Snapshot().Usage; u.Loads != 0 || u.LoadTokens != 0 {
		t.Fatalf("refused load counted: %+v", u)
	}
}

func TestR13_LoadsInOneTurnShareOneExecution(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\nmax_loads_per_turn = 2\n", nil)
	f.turn("one", load("alpha"), load("alpha"), load("beta"), say("ok"))
	loads := f.rec.ofType(event.TypeSkillLoaded)
	if len(loads) != 2 {
		t.Fatalf("%d loads, want 2 (alpha once, beta)", len(loads))
	}
	res := f.results()
	if !strings.Contains(res[1].Text, "already read this turn as execution "+loads[0].(*event.SkillLoaded).ExecutionID) {
		t.Fatalf("second load of alpha should return the same execution: %q", res[1].Text)
	}
	if res[2].IsError {
		t.Fatalf("beta refused: the repeated alpha load must not count: %q", res[2].Text)
	}
	first := loads[0].(*event.SkillLoaded).ExecutionID
	f.turn("two", load("alpha"), say("ok"))
	snap := f.s.Snapshot()
	if snap.Loaded[0].Name != "alpha" || snap.Loaded[0].ExecutionID == first {
		t.Fatalf("next turn should load afresh: %+v (first execution %s)", snap.Loaded[0], first)
	}
}

func TestR14_PinnedBeatsLatestAndTwoPinsConflict(t *testing.T) {
	w := newWorkspace(t)
	w.responseTool("activity", 1, "v1")
	w.responseTool("activity", 2, "v2")
	w.responseTool("activity", 3, "v3")
	w.skill("pin1", "Pins one.", "P1", "tools:\n  - name: activity\n    version: 1\n")
	w.skill("pin2", "Pins two.", "P2", "tools:\n  - name: activity\n    version: 2\n")
	w.skill("latest", "Uses latest.", "L", "tools:\n  - name: activity\n")
	f := w.open("", nil)
	f.turn("latest first", load("latest"), call("activity", `{}`), say("ok"))
	if got := f.lastResult().Text; got != "v3" {
		t.Fatalf("latest should resolve to v3, got %q", got)
	}
	f.turn("pin", load("pin1"), call("activity", `{}`), say("ok"))
	res := f.results()
	if got := res[len(res)-1].Text; got != "v1" {
		t.Fatalf("a pinned version should win over latest, got %q", got)
	}
	if !strings.Contains(res[len(res)-2].Text, "tools: activity@1") {
		t.Fatalf("load result should list activity@1: %q", res[len(res)-2].Text)
	}
	f.turn("conflict", load("pin2"), say("ok"))
	r := f.lastResult()
	if !r.IsError || !strings.Contains(r.Text, "pin2") || !strings.Contains(r.Text, "pin1") || !strings.Contains(r.Text, "activity@1") || !strings.Contains(r.Text, "activity@2") {
		t.Fatalf("two pins should fail the second load naming both: %+v", r)
	}
}

func TestR14_AgentReferenceWinsWithVersionInputAndApproval(t *testing.T) {
	w := newWorkspace(t)
	w.tool("echo.v1.yaml", "name: echo\nversion: 1\ndescription: Echo.\nparameters:\n  type: object\n  properties:\n    q: {type: string}\n    unit: {type: string}\nresponse: 'v1 {{.q}} {{.unit}}'\n")
	w.tool("echo.v2.yaml", "name: echo\nversion: 2\ndescription: Echo.\nparameters:\n  type: object\n  properties:\n    q: {type: string}\n    unit: {type: string}\nresponse: 'v2 {{.q}} {{.unit}}'\n")
	w.skill("user", "Uses echo.", "U", "tools:\n  - name: echo\n    version: 2\n")
	f := w.open("[[agent.tools]]\nname = \"echo\"\nversion = 1\napproval = \"never\"\ninput = { unit = \"metric\" }\n", nil)
	f.turn("go", load("user"), call("echo", `{"q":"hi","unit":"imperial"}`), say("ok"))
	res := f.results()
	if got := res[len(res)-1].Text; got != "v1 hi metric" {
		t.Fatalf("agent's reference should win (v1, fixed input): %q", got)
	}
	if strings.Contains(res[len(res)-2].Text, "echo@") {
		t.Fatalf("load result should leave out a tool the agent lists itself: %q", res[len(res)-2].Text)
	}
	snap := f.s.Snapshot()
	for _, ti := range snap.Tools {
		if ti.Name == "echo" && (ti.Source != "agent" || ti.Version != 1) {
			t.Fatalf("echo should come from the agent at v1: %+v", ti)
		}
	}
}

func TestR15_ApprovalPolicy(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	cfg := "[approval]\nalpha_tool = \"ask\"\nbeta_tool = \"always-deny\"\n"
	f := w.open(cfg, nil)
	f.turn("ask", load("alpha"), load("beta"), call("alpha_tool", `{"q":"1"}`), call("beta_tool", `{"q":"1"}`), say("ok"))
	res := f.results()
	if r := res[len(res)-2]; !r.IsError || !strings.Contains(r.Text, "needs approval") {
		t.Fatalf("headless ask should be denied: %+v", r)
	}
	if r := res[len(res)-1]; !r.IsError || !strings.Contains(r.Text, "always-deny") {
		t.Fatalf("always-deny should deny: %+v", r)
	}

	f2 := w.open(cfg, func(o *Options) { o.ApproveAll = true })
	f2.turn("ask", load("alpha"), call("alpha_tool", `{"q":"1"}`), say("ok"))
	if r := f2.lastResult(); r.IsError || r.Text != "alpha says 1" {
		t.Fatalf("--approve-all should approve ask: %+v", r)
	}

	asked := 0
	f3 := w.open(cfg, func(o *Options) {
		o.Approver = func(_ ctxT, req view.ApprovalRequest) (event.Decision, error) {
			asked++
			if req.Name != "alpha_tool" || req.Skill != "alpha" {
				t.Errorf("approval request %+v", req)
			}
			return event.DecisionAll, nil
		}
	})
	f3.turn("ask", load("alpha"), call("alpha_tool", `{"q":"1"}`), call("alpha_tool", `{"q":"2"}`), say("ok"))
	if asked != 1 {
		t.Fatalf("approve for the session should be remembered: asked %d times", asked)
	}
	if r := f3.lastResult(); r.IsError {
		t.Fatalf("second call should run: %+v", r)
	}
}

func TestR15_CommandToolsDefaultToAsk(t *testing.T) {
	w := newWorkspace(t)
	w.tool("run.yaml", "name: run\nversion: 1\ndescription: Run.\ncommand: [\"/bin/echo\", \"ran\"]\n")
	w.skill("runner", "Runs things.", "R", "tools:\n  - name: run\n")
	f := w.open("", nil)
	f.turn("run", load("runner"), call("run", `{}`), say("ok"))
	if r := f.lastResult(); !r.IsError || !strings.Contains(r.Text, "needs approval") {
		t.Fatalf("a command tool should default to ask: %+v", r)
	}
	if ti := findTool(f.s.Snapshot().Tools, "run"); ti == nil || ti.Approval != rulebook.ApproveAsk {
		t.Fatalf("snapshot approval for run = %+v", ti)
	}
}

func findTool(list []event.ToolInfo, name string) *event.ToolInfo {
	for i := range list {
		if list[i].Name == name {
			return &list[i]
		}
	}
	return nil
}

func TestR16_PreloadedSkills(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	w.skill("style", "House style.", "STYLE-GUIDANCE", "tools:\n  - name: beta_tool\n")
	f := w.open(`
[agent]
prompt = "AGENT-PROMPT"
[[skills]]
name = "style"
preload = true
[[skills]]
name = "alpha"
`, nil)
	f.turn("go", load("style"), say("ok"))
	req := f.model.requests()[0]
	sys := system(req)
	ip, ig := strings.Index(sys, "AGENT-PROMPT"), strings.Index(sys, "STYLE-GUIDANCE")
	if ip != 0 || ig < 0 || !strings.Contains(sys[ip:ig], "<preloaded_skills>") {
		t.Fatalf("preloaded guidance should follow the prompt: %q", sys)
	}
	if strings.Contains(sys, "<name>style</name>") {
		t.Fatal("a preloaded skill must not be on the list")
	}
	if !has(toolNamesOf(req), "beta_tool") {
		t.Fatal("preloaded skill's tools should be offered from the first call")
	}
	if r := f.lastResult(); r.IsError || !strings.Contains(r.Text, "preloaded") {
		t.Fatalf("load_skill of a preload should return this turn's preload: %+v", r)
	}
	// the preload event comes before the first model call
	var order []string
	for _, e := range f.rec.all() {
		if e.EventType() == event.TypeSkillPreload || e.EventType() == event.TypeModelCall {
			order = append(order, e.EventType())
		}
	}
	if len(order) < 2 || order[0] != event.TypeSkillPreload {
		t.Fatalf("event order %v", order)
	}
	end := f.s.Snapshot().LastTurn
	if !has(end.Delivered, "style") || has(end.Loaded, "style") || has(end.Offered, "style") {
		t.Fatalf("preload should be Delivered only: %+v", end)
	}
	if u := f.s.Snapshot().Usage; u.Loads != 0 || u.ToolCalls != 1 {
		t.Fatalf("preload counted against limits: %+v", u)
	}
	f.turn("again", say("ok"))
	pre := f.rec.ofType(event.TypeSkillPreload)
	if len(pre) != 2 || pre[0].(*event.SkillPreload).ExecutionID == pre[1].(*event.SkillPreload).ExecutionID {
		t.Fatalf("each turn preloads with an execution of its own: %+v", pre)
	}
	found := false
	for _, e := range f.s.Transcript().Items() {
		if e.Kind == rulebook.EntryNote && e.NoteKind == rulebook.NoteSkillPreload {
			found = true
		}
	}
	if !found {
		t.Fatal("transcript holds no skill.preload record")
	}
}

func TestR17_EditsOnDiskTakeEffectNextTurn(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	w.responseTool("side-tool", 1, "side")
	w.skill("alpha", "Alpha reviews accounts for anomalies.", "Alpha instructions.", "tools:\n  - name: alpha_tool\n  - name: side-tool\n")
	f := w.open("", nil)
	f.turn("one", load("alpha"), say("ok"))
	w.skill("alpha", "Alpha reviews accounts for anomalies.", "ALPHA EDITED", "tools:\n  - name: alpha_tool\n  - name: side-tool\n")
	f.turn("two", say("ok"))
	if sys := system(f.model.last()); !strings.Contains(sys, "ALPHA EDITED") || strings.Contains(sys, "Alpha instructions.") {
		t.Fatalf("edited text should be rendered: %q", sys)
	}
	if !f.s.Snapshot().Loaded[0].Changed {
		t.Fatal("changed skill should be marked")
	}
	// a kept tool whose name is now a skill's name is left out with a
	// harness.log line
	w.skill("side-tool", "A skill named like a tool.", "X", "")
	f.turn("three", say("ok"))
	if has(toolNamesOf(f.model.last()), "side-tool") {
		t.Fatal("a tool named like a skill should be left out")
	}
	logged := false
	for _, e := range f.s.Transcript().Items() {
		if e.Kind == rulebook.EntryNote && e.NoteKind == rulebook.NoteHarnessLog {
			logged = true
		}
	}
	if !logged {
		t.Fatalf("no harness.log line; warnings: %s", f.rec.warnings())
	}
}

func TestR17_SkillEditedIntoInvalidFileIsLeftOut(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("one", load("alpha"), load("beta"), say("ok"))
	w.skill("alpha", strings.Repeat("d", 1100), "body", "")
	f.turn("two", call("beta_tool", `{"q":"still"}`), say("ok"))
	if has(loadedNames(f.s), "alpha") {
		t.Fatal("invalid skill stayed loaded")
	}
	if r := f.lastResult(); r.Text != "beta says still" {
		t.Fatalf("the others keep working: %+v", r)
	}
	if !strings.Contains(f.rec.warnings(), "alpha is now invalid") {
		t.Fatalf("no warning: %s", f.rec.warnings())
	}
}

func TestR18_SkillNamedLikeAToolIsLeftOut(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	w.skill("lookup", "A skill named like the agent's tool.", "L", "")
	w.responseTool("lookup", 1, "looked up")
	f := w.open("[[agent.tools]]\nname = \"lookup\"\n", nil)
	f.turn("hi", load("lookup"), say("ok"))
	if r := f.lastResult(); !r.IsError || !strings.Contains(r.Text, "R18") {
		t.Fatalf("load of a skill named like a tool: %+v", r)
	}
	var st *view.SkillStatus
	for i, s := range f.s.Snapshot().Skills {
		if s.Name == "lookup" {
			st = &f.s.Snapshot().Skills[i]
		}
	}
	if st == nil || st.Enabled || len(st.Problems) == 0 {
		t.Fatalf("/skills should show lookup left out with its error: %+v", st)
	}
	if !strings.Contains(system(f.model.last()), "<name>alpha</name>") {
		t.Fatal("the other skills keep working")
	}
}

func TestR19_SelectionFailsAtStartAndNamesUnnamed(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	cat := w.catalog()
	for _, cfgText := range []string{
		"[[skills]]\nname = \"nope\"\n",
		"[[skills]]\nname = \"alpha\"\n[[skills]]\nname = \"alpha\"\n",
		"[[skills]]\nname = \"alpha\"\nversion = 7\n",
	} {
		cfg, err := config.Parse([]byte(cfgText), "skillet.toml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(Options{Config: cfg, Catalog: cat, Model: &scripted{}}); err == nil {
			t.Fatalf("config %q should fail at start", cfgText)
		}
	}
	f := w.open("[[skills]]\nname = \"alpha\"\n", nil)
	notices := strings.Join(f.s.Snapshot().Notices, "\n")
	if !strings.Contains(notices, "beta") || !strings.Contains(notices, "gamma") {
		t.Fatalf("unnamed folders should be named in a notice: %q", notices)
	}
	f.turn("hi", say("ok"))
	if sys := system(f.model.last()); strings.Contains(sys, "beta") {
		t.Fatal("unnamed skill is enabled")
	}
}

func TestR20_OfferedDeliveredLoaded(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("one", load("alpha"), say("ok"))
	end := f.s.Snapshot().LastTurn
	if strings.Join(end.Offered, ",") != "alpha,beta,gamma" || strings.Join(end.Delivered, ",") != "alpha" || strings.Join(end.Loaded, ",") != "alpha" {
		t.Fatalf("turn 1: %+v", end)
	}
	if err := f.s.LoadSkill("beta"); err != nil {
		t.Fatal(err)
	}
	f.turn("two", say("ok"))
	end = f.s.Snapshot().LastTurn
	if !has(end.Delivered, "beta") || !has(end.Delivered, "alpha") || len(end.Loaded) != 0 {
		t.Fatalf("turn 2: a user load and a kept skill are Delivered, not Loaded: %+v", end)
	}
}

func TestR21_UsesAndReuse(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", nil)
	f.turn("one", load("alpha"), call("alpha_tool", `{"q":"1"}`), call("alpha_tool", `not json`), load("nope"), say("ok"))
	uses := f.s.Snapshot().LastTurn.Uses
	want := map[string]bool{"SKILL alpha false": true, "TOOL alpha_tool false": true}
	if len(uses) != 2 {
		t.Fatalf("uses %+v; failed calls and refused loads are not uses", uses)
	}
	for _, u := range uses {
		if !want[fmt.Sprintf("%s %s %v", u.Role, u.Name, u.Reused)] || u.ExecutionID == "" {
			t.Fatalf("unexpected use %+v", u)
		}
	}
	f.turn("two", say("ok"))
	uses = f.s.Snapshot().LastTurn.Uses
	if len(uses) != 2 || !uses[0].Reused || !uses[1].Reused {
		t.Fatalf("turn 2 should reuse alpha and the tool answer: %+v", uses)
	}
	if uses[1].Version != "1" {
		t.Fatalf("tool use version = %q", uses[1].Version)
	}
}

func TestR22_PasteMode(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\nload_skill_tool = false\n", nil)
	f.turn("write an incident report", say("ok"))
	req := f.model.last()
	if has(toolNamesOf(req), rulebook.ToolLoadSkill) {
		t.Fatal("paste mode offers no load_skill")
	}
	if !strings.Contains(system(req), "Gamma instructions.") {
		t.Fatalf("the top-ranked skill should be pasted: %s", system(req))
	}
	if strings.Contains(system(req), "Beta instructions.") {
		t.Fatal("unrelated skills should not be pasted")
	}
	end := f.s.Snapshot().LastTurn
	if !has(end.Delivered, "gamma") || !has(end.Offered, "gamma") || len(end.Loaded) != 0 {
		t.Fatalf("pasted skills are Offered (named in the prompt) and Delivered, not Loaded: %+v", end)
	}
}

func TestR23_FrozenPrompt(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\nfreeze_prompt = true\n", nil)
	f.turn("one", load("alpha"), call("beta_tool", `{"q":"x"}`), call("alpha_tool", `{"q":"y"}`), say("ok"))
	f.turn("two", say("ok"))
	reqs := f.model.requests()
	first := system(reqs[0])
	for i, r := range reqs {
		if system(r) != first {
			t.Fatalf("request %d changed the instructions", i)
		}
		if strings.Join(toolNamesOf(r), ",") != strings.Join(toolNamesOf(reqs[0]), ",") {
			t.Fatalf("request %d changed the tools", i)
		}
	}
	if !has(toolNamesOf(reqs[0]), "gamma_tool") {
		t.Fatal("every tool an enabled skill could bring is declared from the start")
	}
	res := f.results()
	if !strings.Contains(res[0].Text, "Alpha instructions.") {
		t.Fatalf("skill text arrives as the load result: %q", res[0].Text)
	}
	if res[1].Text != "Unknown tool: beta_tool" {
		t.Fatalf("a declared tool whose skill is not loaded is refused: %q", res[1].Text)
	}
	if res[2].Text != "alpha says y" {
		t.Fatalf("loaded skill's tool: %q", res[2].Text)
	}
}

func TestR24_ToolCallLimitEndsTheTurn(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\nmax_tool_calls = 2\n", nil)
	end := f.turn("loop", load("alpha"), call("alpha_tool", `{"q":"1"}`, "alpha_tool", `{"q":"2"}`), say("never"))
	if end.StopReason != event.StopMaxToolCalls {
		t.Fatalf("stop = %s", end.StopReason)
	}
	res := f.results()
	if r := res[len(res)-1]; !strings.Contains(r.Text, "max_tool_calls") {
		t.Fatalf("over-limit call should get a clear result: %+v", r)
	}
	if !strings.Contains(f.rec.warnings(), "max_tool_calls") {
		t.Fatal("no note that the limit ended the turn")
	}
	if n := len(f.model.requests()); n != 2 {
		t.Fatalf("%d model calls, want 2", n)
	}
}

func TestR26_StateAndStoreThroughCommandTool(t *testing.T) {
	w := newWorkspace(t)
	w.tool("count.yaml", "name: count\nversion: 1\ndescription: Count.\ncommand: [\"/bin/sh\", \"-c\", \"printf '{\\\"n\\\":1}' > \\\"$SKILLET_STORE\\\"; printf '{\\\"s\\\":2}' > \\\"$SKILLET_STATE\\\"; echo counted\"]\n")
	w.skill("counter", "Counts.", "C", "tools:\n  - name: count\n")
	f := w.open("[approval]\ncount = \"never\"\n", nil)
	f.turn("count", load("counter"), call("count", `{}`), say("ok"))
	if r := f.lastResult(); r.IsError || strings.TrimSpace(r.Text) != "counted" {
		t.Fatalf("count: %+v", r)
	}
	snap := f.s.Snapshot()
	if string(snap.Loaded[0].Store) != `{"n":1}` || string(snap.Loaded[0].State) != `{"s":2}` {
		t.Fatalf("state %s store %s", snap.Loaded[0].State, snap.Loaded[0].Store)
	}
	if len(f.rec.ofType(event.TypeStateChanged)) != 1 {
		t.Fatal("no state_changed event")
	}
}

func TestR13_ReloadAfterEvictionInTheSameTurnIsTheSameExecution(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("[session]\nmax_loaded_skills = 1\nmax_loads_per_turn = 2\n", nil)
	f.turn("one", load("alpha"), load("beta"), load("alpha"), say("ok"))
	res := f.results()
	if res[2].IsError {
		t.Fatalf("reading alpha again this turn must not count against the limit: %q", res[2].Text)
	}
	loads := f.rec.ofType(event.TypeSkillLoaded)
	first, again := loads[0].(*event.SkillLoaded), loads[2].(*event.SkillLoaded)
	if first.ExecutionID != again.ExecutionID || !again.Repeat {
		t.Fatalf("same execution expected: %s vs %s (repeat %v)", first.ExecutionID, again.ExecutionID, again.Repeat)
	}
	if u := f.s.Snapshot().Usage; u.Loads != 2 {
		t.Fatalf("loads counted %d, want 2", u.Loads)
	}
}

// A tool an edit takes out of a loaded skill's tools: leaves like an
// unloaded one: gone from the next request, shown gone for a turn, and
// named in the contextChanged line the model reads.
func TestR17_ToolRemovedByAnEditLeavesTheRequest(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	w.responseTool("side-tool", 1, "side")
	w.skill("alpha", "Alpha reviews accounts for anomalies.", "Alpha instructions.", "tools:\n  - name: alpha_tool\n  - name: side-tool\n")
	f := w.open("", nil)
	f.turn("one", load("alpha"), say("ok"))
	if !has(toolNamesOf(f.model.last()), "side-tool") {
		t.Fatal("side-tool should be offered after the load")
	}
	w.skill("alpha", "Alpha reviews accounts for anomalies.", "Alpha instructions.", "tools:\n  - name: alpha_tool\n")
	f.turn("two", say("ok"))
	req := f.model.last()
	if has(toolNamesOf(req), "side-tool") {
		t.Fatal("a tool the edit removed is still in the request")
	}
	var line string
	for _, m := range req.Messages {
		if m.Role == "user" && strings.Contains(m.Content, "changed on disk") {
			line = m.Content
		}
	}
	if !strings.Contains(line, "tools removed, they leave the request: side-tool@1") {
		t.Fatalf("the model is not told the tool left: %q", line)
	}
	snap := f.s.Snapshot()
	gone := false
	for _, tool := range snap.Tools {
		if tool.Name == "side-tool" && tool.Gone {
			gone = true
		}
	}
	if !gone || has(snap.Loaded[0].Tools, "side-tool@1") {
		t.Fatalf("side-tool should show gone and leave the load's tools: %+v %v", snap.Tools, snap.Loaded[0].Tools)
	}
}

// The first thing said of the skills: how many were found, how many are
// invalid and how many can never load under the limits (R12, R18).
func TestSkillsSummaryNamesInvalidAndTooLarge(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	w.skill("broken", strings.Repeat("d", 1100), "body", "")
	w.skill("huge", "Huge does huge work.", strings.Repeat("Step by step, carefully. ", 1200), "")
	f := w.open("", nil)
	snap := f.s.Snapshot()
	want := "5 skills found: 1 invalid, 1 can never load under the limits — /skills lists them, /why NAME explains one"
	if got, bad := snap.SkillsSummary("/skills lists them, /why NAME explains one"); got != want || !bad {
		t.Fatalf("summary %q, want %q", got, want)
	}
	for _, st := range snap.Skills {
		if st.Name == "huge" && !strings.Contains(st.CannotLoad, "over max_skill_chars (24000)") {
			t.Fatalf("huge: %+v", st)
		}
	}
}
