package why

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"skillet/harness/event"
)

func h(turn int) event.Header { return event.Header{Turn: turn} }

// A session of two turns, as the engine records it: on turn 1 the list
// leaves "sql" off and the model loads "csv" and calls a tool; on turn 2 it
// is listed, loaded, and later evicted by "pdf".
func twoTurns() []event.Event {
	return []event.Event{
		&event.SessionStart{Header: h(0), SessionID: "s1", Limits: func() event.Settings {
			s := event.DefaultSettings()
			s.ListSize, s.MaxLoadedSkills = 2, 1
			return s
		}()},
		&event.TurnStart{Header: h(1), Text: "read this csv"},
		&event.ModelCall{Header: h(1), Call: 1, Offered: []string{"csv", "pdf"}, LeftOff: []string{"xls", "sql"}, Scores: []float64{3, 1}},
		&event.Assistant{Header: h(1), Call: 1, ToolCalls: []event.ToolCallRecord{{ID: "c1", Name: "load_skill", Arguments: `{"name":"csv"}`}}},
		&event.SkillLoaded{Header: h(1), Skill: "csv", Tokens: 10, Delivery: event.DeliveryContext, By: event.ByModel},
		&event.ToolResult{Header: h(1), ToolCallID: "c1", Name: "load_skill", Content: "ok"},
		&event.ModelCall{Header: h(1), Call: 2, Offered: []string{"csv", "pdf"}, LeftOff: []string{"xls", "sql"}},
		&event.TurnEnd{Header: h(1), Offered: []string{"csv", "pdf"}, LeftOff: []string{"xls", "sql"}, Delivered: []string{"csv"}, Loaded: []string{"csv"}},
		&event.TurnStart{Header: h(2), Text: "review this sql"},
		&event.ModelCall{Header: h(2), Call: 1, Offered: []string{"sql", "csv"}, LeftOff: []string{"pdf", "xls"}, Scores: []float64{4.5, 0.5}},
		&event.Assistant{Header: h(2), Call: 1, ToolCalls: []event.ToolCallRecord{{ID: "c2", Name: "load_skill", Arguments: `{"name":"sql"}`}}},
		&event.SkillUnloaded{Header: h(2), Skill: "csv", Reason: event.UnloadLRU},
		&event.SkillLoaded{Header: h(2), Skill: "sql", Tokens: 40, Delivery: event.DeliveryContext, By: event.ByModel, Evicted: []string{"csv"}, Tools: []string{"explain@1"}},
		&event.ContextChanged{Header: h(2), Line: "contextChanged: loaded sql version 1", ToolCallID: "c2"},
		&event.ToolResult{Header: h(2), ToolCallID: "c2", Name: "load_skill", Content: "ok"},
		&event.ModelCall{Header: h(2), Call: 2, Offered: []string{"sql", "csv"}, LeftOff: []string{"pdf", "xls"}, Delivered: []event.Use{{Role: "SKILL", Name: "sql"}}},
		&event.Assistant{Header: h(2), Call: 2, ToolCalls: []event.ToolCallRecord{{ID: "c3", Name: "load_skill", Arguments: `{"name":"pdf"}`}}},
		&event.SkillUnloaded{Header: h(2), Skill: "sql", Reason: event.UnloadLRU},
		&event.SkillLoaded{Header: h(2), Skill: "pdf", Tokens: 5, Delivery: event.DeliveryContext, By: event.ByModel, Evicted: []string{"sql"}},
		&event.TurnEnd{Header: h(2), Offered: []string{"sql", "csv"}, Delivered: []string{"sql", "pdf"}, Loaded: []string{"sql", "pdf"}},
	}
}

func TestExplainFollowsTheSkillThroughTheTurns(t *testing.T) {
	f := Facts{Name: "sql", Found: true, Enabled: true, Dir: "/s/sql", Chars: 100, Tokens: 25, ListEntry: 12, Tools: []ToolFact{{Name: "explain", Schema: 30}}}
	r := Explain(f, twoTurns(), event.DefaultSettings(), nil)
	if len(r.Turns) != 2 {
		t.Fatalf("turns: %+v", r.Turns)
	}
	t1, t2 := r.Turns[0], r.Turns[1]
	if t1.LeftOff == nil || t1.LeftOff.Of != 4 || t1.LeftOff.ListSize != 2 || !reflect.DeepEqual(t1.LeftOff.Above, []string{"csv", "pdf"}) {
		t.Errorf("turn 1 left off: %+v", t1.LeftOff)
	}
	if want := "left off the list on turn 1: list_size is 2, and the 2 skills listed of 4 ranked above it"; TurnWords(&t1) != want {
		t.Errorf("words %q, want %q", TurnWords(&t1), want)
	}
	if t1.Instead != nil {
		t.Errorf("a skill left off was not offered, so nothing was done instead: %+v", t1.Instead)
	}
	if t2.Offered == nil || t2.Offered.Rank != 1 || t2.Offered.Score == nil || *t2.Offered.Score != 4.5 || !t2.Loaded || t2.EvictedBy != "pdf" {
		t.Errorf("turn 2: %+v", t2)
	}
	if want := "offered at rank 1 of 4 (score 4.50) on turn 2 and loaded by the model; then evicted by the load of pdf"; TurnWords(&t2) != want {
		t.Errorf("words %q, want %q", TurnWords(&t2), want)
	}
	// the verdict leads with what decides its fate now, read off the fold,
	// and the JSON status carries it
	if want := (&Fate{Kind: FateEvicted, Turn: 2, By: "pdf", MaxLoaded: 1}); !reflect.DeepEqual(r.Fate, want) || !reflect.DeepEqual(t2.Fate, want) {
		t.Errorf("fate %+v (turn 2: %+v), want %+v", r.Fate, t2.Fate, want)
	}
	if t1.Fate == nil || t1.Fate.Kind != FateLeftOff {
		t.Errorf("turn 1 fate: %+v", t1.Fate)
	}
	r.SetVerdict(0)
	if want := "evicted by the load of pdf on turn 2 (max_loaded_skills is 1); offered at rank 1 of 4 (score 4.50) on turn 2 and loaded by the model"; r.Verdict != want {
		t.Errorf("verdict %q, want %q", r.Verdict, want)
	}
	if !slices.ContainsFunc(r.Status, func(s Status) bool {
		return s.Code == StatusEvicted && s.Detail == "evicted by the load of pdf on turn 2 (max_loaded_skills is 1)"
	}) {
		t.Errorf("status lacks the eviction: %+v", r.Status)
	}
	if !reflect.DeepEqual(r.Tools, []ToolSpan{{Tool: "explain", Joined: 2, Left: 2, Why: "evicted by the load of pdf"}}) {
		t.Errorf("tools: %+v", r.Tools)
	}
	c := r.Cost
	if c.Text != 40 || c.ContextCalls != 1 || c.ContextTotal != 40 || c.R7Lines != 1 || c.SchemaTokens != 30 || c.ListEntry != 12 || c.Tokenizer != "estimate (chars/4)" {
		t.Errorf("cost: %+v", c)
	}
	// the entries the fold stamped order the timeline
	for i := 1; i < len(t2.Timeline); i++ {
		if t2.Timeline[i].Entry < t2.Timeline[i-1].Entry {
			t.Errorf("timeline out of order: %+v", t2.Timeline)
		}
	}

	// csv: loaded on turn 1, offered on turn 2 while still loaded, evicted by sql
	c2 := Explain(Facts{Name: "csv", Found: true, Enabled: true}, twoTurns(), event.DefaultSettings(), nil)
	if c2.Turns[1].EvictedBy != "sql" || c2.Turns[1].Instead == nil || !reflect.DeepEqual(c2.Turns[1].Instead.Skills, []string{"sql", "pdf"}) {
		t.Errorf("csv turn 2: %+v", c2.Turns[1])
	}
	c2.SetVerdict(0)
	if want := "evicted by the load of sql on turn 2 (max_loaded_skills is 1); offered at rank 2 of 4 (score 0.50) on turn 2; the model loaded sql, pdf instead"; c2.Verdict != want {
		t.Errorf("verdict %q, want %q", c2.Verdict, want)
	}
}

func TestStatusesUnderTheLimits(t *testing.T) {
	set := event.DefaultSettings()
	f := Facts{Name: "big", Found: true, Problems: []string{"name: must match the folder"}, ConfigNames: true, Chars: set.MaxSkillChars + 1,
		Tokens: set.LoadTokenBudget + 1, PinProblem: `the config pins version "2"; found version "1" in /a`, Shadowed: []string{"/b/big"}, ShadowedBy: "/a/big"}
	var codes []string
	for _, s := range statuses(f, set, nil) {
		codes = append(codes, s.Code)
	}
	want := []string{StatusInvalid, StatusPinMismatch, StatusNotEnabled, StatusTooLarge, StatusOverBudget, StatusShadowed}
	if !reflect.DeepEqual(codes, want) {
		t.Errorf("codes %v, want %v", codes, want)
	}
	r := Explain(f, nil, set, nil)
	r.SetVerdict(0)
	if !strings.HasPrefix(r.Verdict, "invalid (name: must match the folder), so it is left out; pin mismatch: ") {
		t.Errorf("verdict %q", r.Verdict)
	}
	if s := statuses(Facts{Name: "gone"}, set, nil); s[0].Code != StatusUnknown {
		t.Errorf("a skill not on disk: %+v", s)
	}
}

func TestMentionsWholeNamesOnly(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"contextChanged: loaded sql version 1", true},
		{"contextChanged: loaded sql-review version 1", false},
		{"tool x of skill sql is left out", true},
		{"mysql and sqlite", false},
		{"sql", true},
		{"(sql)", true},
	} {
		if got := mentions(c.text, "sql"); got != c.want {
			t.Errorf("mentions(%q) = %v", c.text, got)
		}
	}
}

func BenchmarkExplain(b *testing.B) {
	events := twoTurns()
	for i := 3; i <= 200; i++ {
		events = append(events, &event.TurnStart{Header: h(i), Text: "more"},
			&event.ModelCall{Header: h(i), Call: 1, Offered: []string{"sql", "csv"}, LeftOff: []string{"pdf", "xls"}},
			&event.TurnEnd{Header: h(i), Offered: []string{"sql", "csv"}})
	}
	f := Facts{Name: "sql", Found: true, Enabled: true}
	for b.Loop() {
		Explain(f, events, event.DefaultSettings(), nil)
	}
}

// A journal that stores content by reference is left to the engine's

func TestClipMakesOneLineOfAtMostNCharacters(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"rotate  the\n\tlogs", 20, "rotate the logs"},
		{"rotate the logs", 15, "rotate the logs"},
		{"rotate the logs", 8, "rotate …"},
		{"  évaluer  ", 7, "évaluer"},
		{"évaluer ünë", 9, "évaluer …"},
	} {
		if got := Clip(c.in, c.n); got != c.want || len([]rune(got)) > c.n {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// A skill the user loaded, then removed from disk while the session was
// closed: the reopened session's sync unloads it between turns, and the
// verdict leads with that.
func TestFateBetweenTurns(t *testing.T) {
	events := []event.Event{
		&event.SessionStart{Header: h(0), SessionID: "s2", Limits: event.DefaultSettings()},
		&event.TurnStart{Header: h(1), Text: "hello"},
		&event.SkillLoaded{Header: h(1), Skill: "csv", Tokens: 10, Delivery: event.DeliveryContext, By: event.ByUser},
		&event.ModelCall{Header: h(1), Call: 1, Offered: []string{"csv", "pdf"}},
		&event.Assistant{Header: h(1), Call: 1, Text: "hi"},
		&event.TurnEnd{Header: h(1), Offered: []string{"csv", "pdf"}, Delivered: []string{"csv"}},
		&event.SkillUnloaded{Header: h(1), Skill: "csv", Reason: event.UnloadRemoved},
	}
	r := Explain(Facts{Name: "csv", Found: true, Enabled: true}, events, event.DefaultSettings(), nil)
	if f := r.Turns[0].Fate; f == nil || f.Kind != FateLoaded || f.By != "user" || f.Turn != 1 {
		t.Errorf("turn 1 fate %+v", f)
	}
	if f := r.Fate; f == nil || f.Kind != FateUnloaded || !f.Between || f.Turn != 1 {
		t.Errorf("fate %+v", f)
	}
	r.SetVerdict(0)
	if want := "unloaded between turns (after turn 1): its folder was removed from disk or it is no longer enabled; "; !strings.HasPrefix(r.Verdict, want) {
		t.Errorf("verdict %q, want it to begin %q", r.Verdict, want)
	}
	r.SetVerdict(1)
	if want := "delivered on turn 1"; !strings.HasPrefix(r.Verdict, want) {
		t.Errorf("turn 1 verdict %q, want it to begin %q", r.Verdict, want)
	}
	// pdf was offered and the model answered: nothing else decides
	p := Explain(Facts{Name: "pdf", Found: true, Enabled: true}, events, event.DefaultSettings(), nil)
	p.SetVerdict(0)
	if f := p.Fate; f == nil || f.Kind != FateOffered || p.Verdict != "offered at rank 2 of 2 (all enabled skills fit the list, in config order) on turn 1; the model answered directly" {
		t.Errorf("pdf: fate %+v, verdict %q", p.Fate, p.Verdict)
	}
}

// TestExplainNamesTheCommandsALoadLedTo: the shell commands the model ran
// while the skill was loaded are on its turn, and not once it left.
func TestExplainNamesTheCommandsALoadLedTo(t *testing.T) {
	evs := []event.Event{
		&event.SessionStart{Header: h(0), SessionID: "s1", Limits: event.DefaultSettings()},
		&event.TurnStart{Header: h(1), Text: "audit the repo"},
		&event.ModelCall{Header: h(1), Call: 1, Offered: []string{"audit"}},
		&event.Assistant{Header: h(1), Call: 1, ToolCalls: []event.ToolCallRecord{{ID: "c1", Name: "load_skill", Arguments: `{"name":"audit"}`}}},
		&event.SkillLoaded{Header: h(1), Skill: "audit", Tokens: 10, Delivery: event.DeliveryContext, By: event.ByModel},
		&event.ToolResult{Header: h(1), ToolCallID: "c1", Name: "load_skill", Content: "ok"},
		&event.Assistant{Header: h(1), Call: 2, ToolCalls: []event.ToolCallRecord{{ID: "c2", Name: "shell", Arguments: `{}`}}},
		&event.ToolResult{Header: h(1), ToolCallID: "c2", Name: "shell", Content: "4 findings", Shell: &event.ShellRun{Command: "python3 /s/audit/scripts/scan.py\n  repo", ExitCode: 2}},
		&event.SkillUnloaded{Header: h(1), Skill: "audit", Reason: event.UnloadUser},
		&event.ToolResult{Header: h(1), ToolCallID: "c3", Name: "shell", Content: "", Shell: &event.ShellRun{Command: "ls", ExitCode: 0}},
		&event.TurnEnd{Header: h(1), Offered: []string{"audit"}, Delivered: []string{"audit"}, Loaded: []string{"audit"}},
	}
	r := Explain(Facts{Name: "audit", Found: true, Enabled: true}, evs, event.DefaultSettings(), nil)
	got := r.Turns[0].Commands
	if len(got) != 1 || got[0].Command != "python3 /s/audit/scripts/scan.py repo" || got[0].ExitCode != 2 {
		t.Fatalf("commands: %+v", got)
	}
}
