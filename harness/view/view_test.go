package view

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"skillet/harness/event"
	"skillet/harness/rulebook"
	"skillet/skills"
)

func TestSkillsSummary(t *testing.T) {
	bad := []skills.Problem{{Message: "no description"}}
	cases := []struct {
		name     string
		skills   []SkillStatus
		want     string
		wantsBad bool
	}{
		{"none found", nil, "", false},
		{"shadowed only", []SkillStatus{{Name: "a", Shadowed: true, Problems: bad}}, "", false},
		{"all valid", []SkillStatus{{Name: "a"}, {Name: "b"}, {Name: "b", Shadowed: true, Problems: bad}}, "2 skills found, all valid", false},
		{"invalid and too long", []SkillStatus{{Name: "a", Problems: bad}, {Name: "b", CannotLoad: "too long"}, {Name: "c"}},
			"3 skills found: 1 invalid, 1 can never load under the limits — see /skills", true},
		// a skill with problems counts as invalid, not also as one that cannot load
		{"invalid wins", []SkillStatus{{Name: "a", Problems: bad, CannotLoad: "too long"}}, "1 skills found: 1 invalid — see /skills", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, isBad := (&Snapshot{Skills: c.skills}).SkillsSummary("see /skills")
			if got != c.want || isBad != c.wantsBad {
				t.Errorf("SkillsSummary = %q, %v; want %q, %v", got, isBad, c.want, c.wantsBad)
			}
		})
	}
}

// The state view prints lists as [] rather than null, and leaves out the
// tools that went with an unloaded skill.
func TestStateViewPrintsEmptyListsAndNoGoneTools(t *testing.T) {
	snap := &Snapshot{SessionID: "s1", Tools: []event.ToolInfo{
		{Name: "load_skill", Source: event.SourceBuiltIn, Approval: rulebook.ApproveNever},
		{Name: "old_tool", Source: event.SourceSkill, Skill: "gone", Gone: true},
	}}
	v := NewStateView(snap)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"loaded":[]`, `"preloaded":[]`, `"turns":[]`, `"stores":{}`, `"tools":[{"name":"load_skill","source":"built-in","approval":"never","pinned":false}]`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("state view has no %s:\n%s", want, b)
		}
	}
	st := rulebook.New("s1", "m", event.DefaultSettings())
	st.Apply(&event.TurnEnd{Header: event.Header{Turn: 1}, StopReason: event.StopDone})
	st.Apply(&event.TurnEnd{Header: event.Header{Turn: 2}, StopReason: event.StopCancelled, Offered: []string{"a"}})
	var turns []TurnView
	for tv := range Turns(v.Read(st)) {
		turns = append(turns, tv)
	}
	if len(turns) != 2 || turns[0].Turn != 1 || turns[1].StopReason != event.StopCancelled {
		t.Fatalf("turns = %+v", turns)
	}
	b, _ = json.Marshal(turns[0])
	if !bytes.Contains(b, []byte(`"offered":[],"delivered":[],"loaded":[],"uses":[]`)) {
		t.Errorf("a turn's empty lists are not []: %s", b)
	}
}

// A recorded request's tools are named for where they came from: a loaded
// skill's, a built-in, else the agent's; its counts are estimates.
func TestWithRequestNamesEachToolsSource(t *testing.T) {
	body := []byte(`{"model":"m","messages":[{"role":"system","content":"Be brief.\n<current_context>\n<skill name=\"pdf\"/>\n</current_context>"},{"role":"user","content":"hi"}],
		"tools":[{"type":"function","function":{"name":"load_skill","parameters":{"type":"object"}}},
		{"type":"function","function":{"name":"pdf_split","description":"split","parameters":{"type":"object"}}},
		{"type":"function","function":{"name":"read_file","parameters":{"type":"object"}}}]}`)
	snap := &Snapshot{Turn: 2, Call: 1, Loaded: []LoadedSkill{{Name: "pdf", Tools: []string{"pdf_split@1"}}}}
	full := WithRequest(snap, body, func(s string) int { return len(s) })
	if snap.Tools != nil || snap.Instructions != "" {
		t.Fatal("WithRequest changed the snapshot it was given")
	}
	want := map[string][2]string{"load_skill": {"built-in", ""}, "pdf_split": {"skill", "pdf"}, "read_file": {"agent", ""}}
	if len(full.Tools) != 3 {
		t.Fatalf("%d tools, want 3", len(full.Tools))
	}
	for _, ti := range full.Tools {
		if w := want[ti.Name]; string(ti.Source) != w[0] || ti.Skill != w[1] {
			t.Errorf("tool %s: source %q skill %q, want %q %q", ti.Name, ti.Source, ti.Skill, w[0], w[1])
		}
	}
	if !strings.HasPrefix(full.Instructions, "Be brief.") || !strings.HasPrefix(full.Context, "<current_context>") || full.Window.InWindow != 1 {
		t.Errorf("instructions %q, context %q, %d in window", full.Instructions, full.Context, full.Window.InWindow)
	}
	if full.RequestTokens != len(body) || full.InstructionTokens != len(full.Instructions) {
		t.Errorf("tokens %d / %d, want %d / %d", full.RequestTokens, full.InstructionTokens, len(body), len(full.Instructions))
	}
	if bad := WithRequest(snap, []byte("not json"), func(string) int { return 0 }); bad.Tools != nil || bad.Instructions != "" {
		t.Errorf("a body that is not a request gave %+v", bad)
	}
}

// The Markdown export heads each turn, marks how tool calls were answered,
// fences results that hold fences, and puts each turn's record after its
// last entry.
func TestWriteMarkdown(t *testing.T) {
	entries := []rulebook.Entry{
		{Kind: rulebook.EntryUser, Turn: 1, Text: "list the files"},
		{Kind: rulebook.EntryAssistant, Turn: 1, ToolCalls: []event.ToolCallRecord{{ID: "c1", Name: "run", Arguments: `{"cmd":"ls"}`}}},
		{Kind: rulebook.EntryTool, Turn: 1, ToolCallID: "c1", ToolName: "run", Text: "```\na.txt\n```", IsError: true},
		{Kind: rulebook.EntryNote, Turn: 1, Text: "skill pdf loaded\nsecond line"},
		{Kind: rulebook.EntryUser, Turn: 2, Text: "thanks"},
	}
	x := &Markdown{Entries: TranscriptOf(entries), SessionID: "s1", Model: "demo", Demo: true, BaseURL: "http://127.0.0.1:9",
		EndsAfter: map[int][]*event.TurnEnd{4: {{Header: event.Header{Turn: 1}, StopReason: event.StopDone, Offered: []string{"pdf"}}}},
		Approvals: map[string]event.Decision{"c1": event.DecisionDeny}}
	var b strings.Builder
	if err := WriteMarkdown(&b, x); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"# Skillet session s1\n", "- Model: demo (offline demo model, not an LLM)\n", "- Endpoint: http://127.0.0.1:9\n",
		"\n## Turn 1\n", "**Assistant → `run`** (`c1`)\n\n```json\n{\n  \"cmd\": \"ls\"\n}\n```",
		"**Result of `run`** (denied) (error) (`c1`)\n\n````\n```\na.txt\n```\n````",
		"> skill pdf loaded\n> second line\n",
		"_Turn 1 ended: done. Offered: pdf. Delivered: none. Loaded: none._\n\n## Turn 2\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the Markdown has no %q:\n%s", want, got)
		}
	}
}
