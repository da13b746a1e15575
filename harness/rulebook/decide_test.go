package rulebook

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/rank"
	"skillet/skills"
)

// The rules that read the world besides the state (R5, R6, R10, R14, R22,
// R24), tested on a world made of values: an in-memory catalog, the real
// ranker and a counter of words. No disk, no model.

// memCatalog is a catalog held in memory: skills by name, tool
// definitions by name and version (version 0 is the latest).
type memCatalog struct {
	skills map[string]*skills.Skill
	tools  map[string][]*skills.ToolDef
}

func (c *memCatalog) All() []*skills.Skill {
	var out []*skills.Skill
	for _, sk := range c.skills {
		out = append(out, sk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (c *memCatalog) Get(name string) *skills.Skill { return c.skills[name] }

func (c *memCatalog) Tool(_ *skills.Skill, ref skills.ToolRef) (*skills.ToolDef, error) {
	defs := c.tools[ref.Name]
	if len(defs) == 0 {
		return nil, fmt.Errorf("tool %s: no such tool", ref.Name)
	}
	if ref.Version == 0 {
		return defs[len(defs)-1], nil
	}
	for _, d := range defs {
		if d.Version == ref.Version {
			return d, nil
		}
	}
	return nil, fmt.Errorf("tool %s has no version %d", ref.Name, ref.Version)
}

// words counts a text's words as its tokens.
type words struct{}

func (words) Count(text string) int             { return len(strings.Fields(text)) }
func (words) CountNow(text string, _ *bool) int { return len(strings.Fields(text)) }
func skill(name, desc string, tools ...skills.ToolRef) *skills.Skill {
	return &skills.Skill{Name: name, Description: desc, Version: "1", Dir: "/skills/" + name, Body: name + " instructions: " + desc, Tools: tools}
}

func ref(name string, version int) skills.ToolRef {
	return skills.ToolRef{Name: name, Version: version}
}

// world makes a world of the skills, all enabled, with tool definitions
// t@1 and t@2 for every tool a skill names, and the agent's tools.
func world(sks []*skills.Skill, agent ...AgentTool) *World {
	cat := &memCatalog{skills: map[string]*skills.Skill{}, tools: map[string][]*skills.ToolDef{}}
	for _, sk := range sks {
		cat.skills[sk.Name] = sk
		for _, r := range sk.Tools {
			if cat.tools[r.Name] == nil {
				for v := 1; v <= 2; v++ {
					cat.tools[r.Name] = append(cat.tools[r.Name], &skills.ToolDef{Name: r.Name, Version: v, Kind: skills.KindResponse, Description: fmt.Sprintf("%s v%d", r.Name, v)})
				}
			}
		}
	}
	for _, a := range agent {
		if cat.tools[a.Name] == nil {
			cat.tools[a.Name] = []*skills.ToolDef{{Name: a.Name, Version: 1, Kind: skills.KindResponse, Description: a.Name + " of the agent"}}
		}
	}
	w := &World{Catalog: cat, Rank: rank.New(), Count: words{}, AgentTools: agent, AgentDefs: map[string]*skills.ToolDef{},
		MCPDefs: map[string]*skills.ToolDef{}, MCPErrs: map[string]error{}, Prompt: "You help."}
	for _, a := range agent {
		w.AgentDefs[a.Name], _ = cat.Tool(nil, ref(a.Name, a.Version))
	}
	w.Sel = Select(&skills.Selection{Enabled: sks}, map[string]string{ToolLoadSkill: "a built-in tool"}, true, cat.All())
	return w
}

// load records a load of sk by the model as Place does.
func load(t *testing.T, st *State, w *World, sk *skills.Skill) {
	t.Helper()
	d := DecideModelLoad(st, w, sk.Name, "c-"+sk.Name)
	if d.Plan == nil {
		t.Fatalf("load of %s not planned: %+v", sk.Name, d.Answer)
	}
	events, _ := Place(st, w, *d.Plan)
	for _, e := range events {
		st.Apply(e)
	}
}

func tool(ts *Toolset, name string) string {
	b := ts.ByName[name]
	if b == nil {
		return "-"
	}
	owner := ""
	if b.Owner != nil {
		owner = " of " + b.Owner.Name
	}
	return fmt.Sprintf("%s@%d %s%s %s", name, b.Info.Version, b.Info.Source, owner, b.Info.Approval)
}

func TestR5_EveryLoadedSkillsToolsAreOffered(t *testing.T) {
	a, b := skill("alpha", "Alpha work.", ref("ta", 0)), skill("beta", "Beta work.", ref("tb", 0))
	w := world([]*skills.Skill{a, b})
	st := fold(nil, userMsg(1, "hi"))
	if ts := BuildTools(st, w); ts.ByName["ta"] != nil || ts.ByName["tb"] != nil {
		t.Fatalf("tools of skills not loaded are offered: %v", ts.Names())
	}
	load(t, st, w, a)
	load(t, st, w, b) // beta is the active skill now
	ts := BuildTools(st, w)
	for _, want := range []string{"ta@2 skill of alpha never", "tb@2 skill of beta never"} {
		name, _, _ := strings.Cut(want, "@")
		if got := tool(ts, name); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
	if got := strings.Join(ts.Names(), ","); got != "load_skill,read_skill_resource,ta,tb" {
		t.Errorf("tools in order: %s", got)
	}
}

func TestR14_SkillTools(t *testing.T) {
	for _, tc := range []struct {
		name   string
		skills []*skills.Skill
		agent  []AgentTool
		want   string // the tool t as BuildTools offers it once all load
		avail  string // what the last load made available
		refuse string // a refusal of the last load, if any
	}{
		{"a skill's tool joins at its latest version", []*skills.Skill{skill("a", "A.", ref("t", 0))}, nil,
			"t@2 skill of a never", "t@2", ""},
		{"a pin wins over latest, whichever loads first", []*skills.Skill{skill("a", "A.", ref("t", 0)), skill("b", "B.", ref("t", 1))}, nil,
			"t@1 skill of b never", "t@1", ""},
		{"a later latest does not displace a pin and is not made available", []*skills.Skill{skill("a", "A.", ref("t", 1)), skill("b", "B.", ref("t", 0))}, nil,
			"t@1 skill of a never", "", ""},
		{"the agent's own reference wins, with its approval, and is not listed as the load's", []*skills.Skill{skill("a", "A.", ref("t", 1))},
			[]AgentTool{{Name: "t", Version: 2, Approval: "always-deny"}}, "t@2 agent always-deny", "", ""},
		{"two different pins cannot be loaded together", []*skills.Skill{skill("a", "A.", ref("t", 1)), skill("b", "B.", ref("t", 2))}, nil,
			"t@1 skill of a never", "", "load refused: b pins t@2 but the loaded skill a pins t@1; two pinned versions of one tool cannot be loaded together"},
		{"the agent's reference makes the pins moot", []*skills.Skill{skill("a", "A.", ref("t", 1)), skill("b", "B.", ref("t", 2))},
			[]AgentTool{{Name: "t"}}, "t@2 agent never", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := world(tc.skills, tc.agent...)
			st := fold(nil, userMsg(1, "hi"))
			for i, sk := range tc.skills {
				if i < len(tc.skills)-1 {
					load(t, st, w, sk)
					continue
				}
				d := DecideModelLoad(st, w, sk.Name, "c-last")
				if d.Answer.Content != tc.refuse {
					t.Fatalf("last load answered %q, want %q", d.Answer.Content, tc.refuse)
				}
				if d.Plan == nil {
					break
				}
				events, _ := Place(st, w, *d.Plan)
				for _, e := range events {
					st.Apply(e)
					if l, ok := e.(*event.SkillLoaded); ok && strings.Join(l.Tools, ",") != tc.avail {
						t.Errorf("the load made available %v, want %q", l.Tools, tc.avail)
					}
				}
			}
			if got := tool(BuildTools(st, w), "t"); got != tc.want {
				t.Errorf("t is offered as %q, want %q", got, tc.want)
			}
		})
	}
}

func TestR6_UnknownTool(t *testing.T) {
	a := skill("alpha", "Alpha work.", ref("ta", 0))
	w := world([]*skills.Skill{a})
	st := fold(nil, userMsg(1, "hi"))
	load(t, st, w, a)
	for _, tc := range []struct {
		name, tool, want string
	}{
		{"a tool the request carries runs", "ta", ""},
		{"a tool that never existed is refused by name", "nope", "Unknown tool: nope"},
		{"so is the load_skill of a request without it", "load_skill", "Unknown tool: load_skill"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := BuildTools(st, w)
			if tc.tool == "load_skill" {
				live = BuildTools(fold(func(s *event.Settings) { s.LoadSkillTool = false }, userMsg(1, "hi")), w)
			}
			res := UnknownTool(live, tc.tool)
			switch {
			case tc.want == "" && res != nil:
				t.Fatalf("refused %s: %s", tc.tool, res.Content)
			case tc.want != "" && (res == nil || res.Content != tc.want || !res.IsError || !res.Refused):
				t.Fatalf("UnknownTool(%s) = %+v, want the error %q", tc.tool, res, tc.want)
			}
		})
	}
	// once its skill unloads, its tool leaves the next request
	st.Apply(&event.SkillUnloaded{Skill: "alpha", Reason: event.UnloadUser})
	if res := UnknownTool(BuildTools(st, w), "ta"); res == nil || res.Content != "Unknown tool: ta" {
		t.Fatalf("the tool of an unloaded skill still runs: %+v", res)
	}
}

func TestR10_TheListFitsTheMessage(t *testing.T) {
	sks := []*skills.Skill{skill("billing", "Refund a customer's billing charge."), skill("deploy", "Deploy a release to production."),
		skill("incident", "Write an incident report."), skill("review", "Review a pull request.")}
	for _, tc := range []struct {
		name, msg  string
		size       int
		list, left string
		warned     bool
	}{
		{"every skill fits: no ranking, none left off", "refund please", 4, "billing,deploy,incident,review", "", false},
		{"more than fit: the message's skills are listed, the others named", "deploy the release, then an incident report", 2, "deploy,incident", "billing,review", true},
		{"ties keep the catalog's order", "nothing in common", 1, "billing", "deploy,incident,review", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := world(sks)
			st := fold(func(s *event.Settings) { s.ListSize = tc.size }, userMsg(1, tc.msg))
			p := PlanCall(st, w, 1)
			if got := strings.Join(p.Offered, ","); got != tc.list {
				t.Errorf("listed %s, want %s", got, tc.list)
			}
			if got := strings.Join(p.LeftOff, ","); got != tc.left {
				t.Errorf("left off %s, want %s", got, tc.left)
			}
			warned := false
			for _, e := range p.Events {
				if wn, ok := e.(*event.Warning); ok && strings.Contains(wn.Message, "left off") {
					warned = strings.Contains(wn.Message, strings.ReplaceAll(tc.left, ",", ", "))
				}
			}
			if warned != tc.warned {
				t.Errorf("warned of the skills left off: %v, want %v (%v)", warned, tc.warned, p.Events)
			}
			for _, name := range strings.Split(tc.list, ",") {
				if !strings.Contains(p.Instructions, "<name>"+name+"</name>") {
					t.Errorf("%s is not on the request's list", name)
				}
			}
		})
	}
}

func TestR22_PasteChoosesTheTopRankedWithinTheLimits(t *testing.T) {
	long := skill("deploy-long", "Deploy a release, the long way.")
	long.Body = strings.Repeat("deploy ", 200)
	sks := []*skills.Skill{skill("billing", "Refund a customer's billing charge."), skill("deploy", "Deploy a release to production."),
		long, skill("incident", "Write an incident report after a release.")}
	paste := func(set func(*event.Settings)) func(*event.Settings) {
		return func(s *event.Settings) { s.LoadSkillTool = false; s.LoadTokenBudget = 100; set(s) }
	}
	for _, tc := range []struct {
		name, msg string
		set       func(*event.Settings)
		chosen    string
	}{
		{"the skills that share a word with the message, best first, within the budget", "deploy the release", func(*event.Settings) {}, "deploy,incident"},
		{"no more than max_loaded_skills", "deploy the release", func(s *event.Settings) { s.MaxLoadedSkills = 1 }, "deploy"},
		{"no more than max_loads_per_turn", "deploy the release", func(s *event.Settings) { s.MaxLoadsPerTurn = 1 }, "deploy"},
		{"a skill over the budget is passed over, not cut", "deploy the release the long way", func(*event.Settings) {}, "deploy,incident"},
		{"nothing in common pastes nothing", "hello there", func(*event.Settings) {}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := world(sks)
			st := fold(paste(tc.set), userMsg(1, tc.msg))
			chosen, events := Paste(st, w, tc.msg)
			var names []string
			for _, sk := range chosen {
				names = append(names, sk.Name)
			}
			if got := strings.Join(names, ","); got != tc.chosen {
				t.Fatalf("pasted %s, want %s", got, tc.chosen)
			}
			if len(events) != 0 {
				t.Fatalf("nothing was pasted before, yet: %s", brief(events))
			}
		})
	}
	// a skill pasted for the last message that no longer ranks unloads
	w := world(sks)
	st := fold(paste(func(*event.Settings) {}), userMsg(1, "refund the billing charge"))
	chosen, _ := Paste(st, w, "refund the billing charge")
	for _, sk := range chosen {
		_, plan := PasteOne(st, w, sk)
		events, _ := Place(st, w, *plan)
		for _, e := range events {
			st.Apply(e)
		}
	}
	st.Apply(userMsg(2, "deploy the release"))
	if _, events := Paste(st, w, "deploy the release"); brief(events) != "unload(billing:paste) note" {
		t.Fatalf("the skill pasted before: %s", brief(events))
	}
}

func TestR24_ToolCallLimit(t *testing.T) {
	call := func(id string) event.ToolCallRecord { return event.ToolCallRecord{ID: id, Name: "t", Arguments: "{}"} }
	st := fold(func(s *event.Settings) { s.MaxToolCalls = 2 }, userMsg(1, "hi"),
		&event.Assistant{Call: 1, ToolCalls: []event.ToolCallRecord{call("1"), call("2"), call("3"), call("4")}})
	calls := CallsOf(&event.Assistant{ToolCalls: []event.ToolCallRecord{call("1"), call("2"), call("3"), call("4")}})
	var got []string
	var stop event.StopReason
	for _, tc := range calls {
		var res *event.ToolResult
		res, stop = GateCall(st, tc, false, stop)
		if res == nil {
			got = append(got, "run")
			st.Apply(&event.ToolResult{ToolCallID: tc.ID, Name: tc.Function.Name, Content: "ok"})
			continue
		}
		got = append(got, fmt.Sprintf("refused(%s)", res.Content))
		if !res.OverLimit || !res.Refused {
			t.Fatalf("an over-limit refusal is not marked so: %+v", res)
		}
		st.Apply(res)
	}
	want := "run run refused(not run: the turn reached max_tool_calls (2)) refused(not run: the turn reached max_tool_calls (2))"
	if strings.Join(got, " ") != want {
		t.Fatalf("calls: %s\nwant:  %s", strings.Join(got, " "), want)
	}
	if stop != event.StopMaxToolCalls || st.Cur.Usage.ToolCalls != 2 {
		t.Fatalf("stop %q, %d tool calls counted", stop, st.Cur.Usage.ToolCalls)
	}
	end := CallsEnded(st, stop)
	if len(end) != 1 || !strings.Contains(end[0].(*event.Warning).Message, "the turn ended: it reached max_tool_calls (2") {
		t.Fatalf("the turn ends without its note: %v", end)
	}
	// a cancel answers every call left, and ends no turn by the limit
	res, stop := GateCall(fold(nil, userMsg(1, "hi")), calls[0], true, "")
	if res == nil || res.Content != CancelledResult || !res.Cancelled || stop != event.StopCancelled || CallsEnded(st, stop) != nil {
		t.Fatalf("a cancelled call: %+v, stop %q", res, stop)
	}
}

func TestCallIDsAreUniqueInTheSession(t *testing.T) {
	st := fold(nil, userMsg(1, "hi"), &event.Assistant{Call: 1, ToolCalls: []event.ToolCallRecord{{ID: "a"}}})
	got := CallIDs(st, 2, CallsOf(&event.Assistant{ToolCalls: []event.ToolCallRecord{{ID: "a"}, {ID: ""}, {ID: "b"}, {ID: "b"}}}))
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, ",") != "call_1_2_1,call_1_2_2,b,call_1_2_4" {
		t.Fatalf("ids %v", ids)
	}
}

func TestR15_Authorize(t *testing.T) {
	tc := chat.ToolCall{ID: "c1", Function: chat.FunctionCall{Name: "deploy", Arguments: "{}"}}
	bind := func(policy string) *Binding { return &Binding{Info: event.ToolInfo{Name: "deploy", Approval: policy}} }
	saved := fold(nil, userMsg(1, "hi"), &event.Approval{ToolCallID: "c0", Name: "deploy", Decision: event.DecisionAll})
	for _, c := range []struct {
		name                 string
		st                   *State
		policy               string
		manual, canAsk, flag bool
		want                 string // refusal, "ask", or "run"; then the approvals recorded
	}{
		{"never runs", fold(nil, userMsg(1, "hi")), ApproveNever, false, false, false, "run"},
		{"always-deny is refused and recorded", fold(nil, userMsg(1, "hi")), ApproveDeny, false, true, true, "denied: the policy for deploy is always-deny policy-deny"},
		{"ask asks whoever can answer", fold(nil, userMsg(1, "hi")), ApproveAsk, false, true, false, "ask"},
		{"ask runs once approved for the session", saved, ApproveAsk, false, true, false, "run"},
		{"ask runs when the user makes the call", fold(nil, userMsg(1, "hi")), ApproveAsk, true, false, false, "run"},
		{"headless, a flag approves it once", fold(nil, userMsg(1, "hi")), ApproveAsk, false, false, true, "run once"},
		{"headless without a flag it is denied", fold(nil, userMsg(1, "hi")), ApproveAsk, false, false, false,
			"denied: deploy needs approval (approval = ask) and nobody can answer here; approve it with --approve deploy or --approve-all deny"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := Authorize(c.st, bind(c.policy), tc, c.manual, c.canAsk, c.flag)
			got := a.Refusal
			switch {
			case a.Ask:
				got = "ask"
			case got == "":
				got = "run"
			}
			for _, e := range a.Events {
				got += " " + string(e.(*event.Approval).Decision)
			}
			if got != c.want {
				t.Fatalf("got %q\nwant %q", got, c.want)
			}
		})
	}
	for d, want := range map[event.Decision]string{event.DecisionOnce: "", event.DecisionAll: "", event.DecisionDeny: "denied by the user", "maybe": "denied by the user"} {
		if got, events := Answered(tc, d, false); got != want || len(events) != 1 {
			t.Errorf("answer %q: %q, %d events", d, got, len(events))
		}
	}
	if got, events := Answered(tc, event.DecisionOnce, true); got != CancelledResult || events != nil {
		t.Errorf("a cancelled ask: %q, %v", got, events)
	}
}

func TestR19_SelectionAndUnknownSkills(t *testing.T) {
	bad := skill("broken", "Broken.")
	bad.Problems = []skills.Problem{{Field: "description", Message: "is empty"}}
	sks := []*skills.Skill{skill("alpha-notes", "Alpha."), skill("beta-notes", "Beta."), skill("load_skill", "Named like a tool.")}
	w := world(sks)
	w.Catalog.(*memCatalog).skills["broken"] = bad
	w.Sel = Select(&skills.Selection{Enabled: sks, Unnamed: []string{"gamma"}}, map[string]string{ToolLoadSkill: "a built-in tool"}, true, w.Catalog.All())
	if got := strings.Join(SelectionNotices(w.Sel, w.Catalog.All(), "skillet.toml"), " | "); got != `left out (not named in skillet.toml): gamma | skill broken is invalid and left out: description: is empty | skill load_skill is left out: name: "load_skill" is also the name of a built-in tool, which the model sees (R18)` {
		t.Errorf("notices: %s", got)
	}
	for name, want := range map[string]string{
		"alpha-notes": "",
		"alpha-note":  `load_skill: no skill named "alpha-note"; the closest are: alpha-notes, beta-notes`,
		"nosuchthing": `load_skill: no skill named "nosuchthing" (enabled: alpha-notes, beta-notes)`,
		"broken":      `load_skill: skill "broken" is invalid and left out: description: is empty`,
		"load_skill":  `load_skill: skill "load_skill" is left out: name: "load_skill" is also the name of a built-in tool, which the model sees (R18)`,
	} {
		got := ""
		if w.Sel.EnabledSkill(name) == nil {
			got = UnknownSkill(w, name)
		}
		if got != want {
			t.Errorf("%s: %q\nwant %q", name, got, want)
		}
	}
}
