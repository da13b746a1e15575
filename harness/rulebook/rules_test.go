package rulebook

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"skillet/harness/event"
)

// fold builds a state from events, as a reopened journal would: the rules
// are tested on states only Apply made.
func fold(settings func(*event.Settings), events ...event.Event) *State {
	set := event.DefaultSettings()
	if settings != nil {
		settings(&set)
	}
	st := New("s", "m", set)
	for _, e := range events {
		st.Apply(e)
	}
	return st
}

func userMsg(turn int, text string) *event.TurnStart {
	return &event.TurnStart{Header: event.Header{Turn: turn}, Text: text}
}

func loaded(turn int, name, exec string) *event.SkillLoaded {
	return &event.SkillLoaded{Header: event.Header{Turn: turn}, Skill: name, Version: "1", ExecutionID: exec, By: event.ByModel,
		Tokens: 10, Delivery: event.DeliveryContext, Body: event.SkillBody{Text: name + " text"}}
}

// brief names events as short words: unload(x:reason), set(k=v), note.
func brief(es []event.Event) string {
	var b []string
	for _, e := range es {
		switch e := e.(type) {
		case *event.SkillUnloaded:
			b = append(b, fmt.Sprintf("unload(%s:%s)", e.Skill, e.Reason))
		case *event.SettingChanged:
			b = append(b, fmt.Sprintf("set(%s=%s)", e.Key, e.Value))
		case *event.ContextChanged:
			b = append(b, "note")
		default:
			b = append(b, e.EventType())
		}
	}
	return strings.Join(b, " ")
}

func TestUnloadByUser(t *testing.T) {
	st := fold(nil, userMsg(1, "hi"), loaded(1, "a", "x-1"), loaded(1, "b", "x-2"))
	for _, tc := range []struct {
		name, skill, want, err string
	}{
		{"a loaded skill unloads with a note the model reads", "a", "unload(a:user) note", ""},
		{"the active one too", "b", "unload(b:user) note", ""},
		{"a skill not loaded is an error", "c", "", "unload c: it is not loaded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := UnloadByUser(st, tc.skill)
			if brief(got) != tc.want || fmt.Sprint(err) != map[bool]string{true: "<nil>", false: tc.err}[tc.err == ""] {
				t.Fatalf("UnloadByUser(%s) = %q, %v; want %q, %q", tc.skill, brief(got), err, tc.want, tc.err)
			}
			if err == nil && !strings.Contains(got[1].(*event.ContextChanged).Line, "unloaded "+tc.skill+" by the user") {
				t.Errorf("the note does not name the unload: %q", got[1].(*event.ContextChanged).Line)
			}
		})
	}
	if len(st.Loaded) != 2 {
		t.Fatalf("a rule changed the state: %d loaded", len(st.Loaded))
	}
}

func TestSetLimit(t *testing.T) {
	// loaded most recent first: c, b, a
	st := fold(nil, userMsg(1, "hi"), loaded(1, "a", "x-1"), loaded(1, "b", "x-2"), loaded(1, "c", "x-3"))
	probe := func(key, value string) event.Settings {
		p := st.Settings
		if err := p.Set(key, value); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, key, value string
		lifecycle        bool
		want             string
	}{
		{"a lower max_loaded_skills unloads the least recent first", "max_loaded_skills", "1", true, "set(max_loaded_skills=1) unload(a:limit) note unload(b:limit) note"},
		{"a limit that still holds them all unloads none", "max_loaded_skills", "3", true, "set(max_loaded_skills=3)"},
		{"without the lifecycle rules nothing unloads", "max_loaded_skills", "1", false, "set(max_loaded_skills=1)"},
		{"another setting only records itself", "list_size", "5", true, "set(list_size=5)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := brief(SetLimit(st, tc.key, probe(tc.key, tc.value), tc.lifecycle)); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	// folding what the rule recorded gives the loaded set it promised
	after := fold(nil, userMsg(1, "hi"), loaded(1, "a", "x-1"), loaded(1, "b", "x-2"), loaded(1, "c", "x-3"))
	for _, e := range SetLimit(after, "max_loaded_skills", probe("max_loaded_skills", "1"), true) {
		after.Apply(e)
	}
	if len(after.Loaded) != 1 || after.Loaded[0].Name != "c" || after.Settings.MaxLoadedSkills != 1 {
		t.Fatalf("after the fold: %d loaded, max %d", len(after.Loaded), after.Settings.MaxLoadedSkills)
	}
}

func TestVictims(t *testing.T) {
	two := func(s *event.Settings) { s.MaxLoadedSkills = 2 }
	full := fold(two, userMsg(1, "hi"), loaded(1, "a", "x-1"), loaded(1, "b", "x-2"))
	for _, tc := range []struct {
		name      string
		st        *State
		resident  bool
		lifecycle bool
		want      []string
	}{
		{"a full set gives up its least recent", full, false, true, []string{"a"}},
		{"a loaded skill unloads none", full, true, true, nil},
		{"without the lifecycle rules none", full, false, false, nil},
		{"room left: none", fold(two, userMsg(1, "hi"), loaded(1, "a", "x-1")), false, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res *Loaded
			if tc.resident {
				res = tc.st.Loaded[0]
			}
			got := Victims(tc.st, res, tc.lifecycle)
			var names []string
			for _, ls := range tc.st.Loaded {
				if got[ls.Name] {
					names = append(names, ls.Name)
				}
			}
			if !reflect.DeepEqual(names, tc.want) || len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOverLimit(t *testing.T) {
	limits := func(s *event.Settings) { s.MaxSkillChars, s.MaxLoadsPerTurn, s.LoadTokenBudget = 100, 2, 50 }
	fresh := fold(limits, userMsg(1, "hi"))
	for _, tc := range []struct {
		name          string
		st            *State
		chars, tokens int
		want          string
	}{
		{"within every limit", fresh, 100, 50, ""},
		{"too long", fresh, 101, 10, "x is 101 characters, over max_skill_chars (100)"},
		{"over the token budget", fold(limits, userMsg(1, "hi"), loaded(1, "a", "x-1")), 10, 41, "x is 41 tokens and this turn has delivered 10 of its load_token_budget of 50"},
		{"too many loads", fold(limits, userMsg(1, "hi"), loaded(1, "a", "x-1"), loaded(1, "b", "x-2")), 10, 1, "this turn already made 2 loads"},
		{"a new turn starts the count again", fold(limits, userMsg(1, "hi"), loaded(1, "a", "x-1"), loaded(1, "b", "x-2"), &event.TurnEnd{Header: event.Header{Turn: 1}}, userMsg(2, "again")), 10, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := OverLimit(tc.st, "x", tc.chars, tc.tokens)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadThisTurn(t *testing.T) {
	st := fold(nil, userMsg(1, "hi"), loaded(1, "a", "x-1"))
	if exec, ok := ReadThisTurn(st, "a", "1"); !ok || exec != "x-1" {
		t.Errorf("version 1 of a: %q %v, want x-1 (R13)", exec, ok)
	}
	if _, ok := ReadThisTurn(st, "a", "2"); ok {
		t.Error("another version of a shares the execution (R13: it must not)")
	}
	st.Apply(&event.TurnEnd{Header: event.Header{Turn: 1}})
	st.Apply(userMsg(2, "next"))
	if _, ok := ReadThisTurn(st, "a", "1"); ok {
		t.Error("the next turn shares the last turn's execution")
	}
}

func TestTurnEnd(t *testing.T) {
	st := fold(nil,
		userMsg(1, "hi"),
		&event.ModelCall{Header: event.Header{Turn: 1}, Call: 1, Offered: []string{"a", "b"}, Delivered: []event.Use{}},
		&event.Assistant{Header: event.Header{Turn: 1}, Call: 1, ToolCalls: []event.ToolCallRecord{{ID: "c1", Name: "load_skill", Arguments: `{"name":"a"}`}}},
		loaded(1, "a", "x-1"),
		&event.ToolResult{Header: event.Header{Turn: 1}, ToolCallID: "c1", Name: "load_skill", Content: "loaded"},
		&event.ModelCall{Header: event.Header{Turn: 1}, Call: 2, Offered: []string{"a", "b"}, Delivered: []event.Use{{Role: "SKILL", Name: "a", Version: "1", ExecutionID: "x-1"}}},
		&event.Assistant{Header: event.Header{Turn: 1}, Call: 2, Text: "the answer"},
	)
	end := TurnEnd(st, event.StopDone)
	if !reflect.DeepEqual(end.Offered, []string{"a", "b"}) || !reflect.DeepEqual(end.Delivered, []string{"a"}) || !reflect.DeepEqual(end.Loaded, []string{"a"}) {
		t.Errorf("Offered %v Delivered %v Loaded %v; want [a b] [a] [a] (R20)", end.Offered, end.Delivered, end.Loaded)
	}
	if len(end.Uses) == 0 || end.Uses[0].Name != "a" || end.Uses[0].Role != "SKILL" || end.Uses[0].ExecutionID != "x-1" {
		t.Errorf("uses %+v: want the skill use of a first (R21)", end.Uses)
	}
	if end.Answer != "the answer" || end.StopReason != event.StopDone {
		t.Errorf("answer %q stop %q", end.Answer, end.StopReason)
	}
	st.Apply(end)
	if st.Running || st.Last != end {
		t.Error("folding the turn end does not end the turn")
	}
	// a turn cancelled before any reply answers nothing
	quiet := fold(nil, userMsg(1, "hi"))
	if e := TurnEnd(quiet, event.StopCancelled); e.Answer != "" || len(e.Offered) != 0 || e.StopReason != event.StopCancelled {
		t.Errorf("an empty turn ends with %+v", e)
	}
}

func TestInsert(t *testing.T) {
	two := func(s *event.Settings) { s.MaxLoadedSkills = 2 }
	body := event.SkillBody{Text: "# Deploy\n\nFirst line of the steps.\n   \n" + strings.Repeat("x", 250)}
	for _, tc := range []struct {
		name      string
		st        *State
		lifecycle bool
		load      Load
		want      string
		// lines are parts of the contextChanged lines, in order.
		lines []string
	}{
		{"room left: the load alone", fold(two, userMsg(1, "hi")), true,
			Load{Skill: "d", Version: "3", Exec: "x-1", By: event.ByModel, ToolCallID: "c1", Body: body, Tools: []string{"ship@1"}},
			"skill_loaded note",
			[]string{"contextChanged: loaded d version 3 as execution x-1; it is the active skill; tools: ship@1\n  | # Deploy\n  | First line of the steps.\n  | " + strings.Repeat("x", ExcerptChars)}},
		{"a full set evicts its least recent first", fold(two, userMsg(1, "hi"), loaded(1, "a", "x-1"), loaded(1, "b", "x-2")), true,
			Load{Skill: "d", Exec: "x-3", By: event.ByUser, Body: body},
			"unload(a:lru) note skill_loaded note",
			[]string{"unloaded a (least recently used; max_loaded_skills is 2)", "loaded d version (none) as execution x-3 by the user"}},
		{"without the lifecycle rules nothing is evicted", fold(two, userMsg(1, "hi"), loaded(1, "a", "x-1"), loaded(1, "b", "x-2")), false,
			Load{Skill: "d", Exec: "x-3", By: event.ByModel, Body: body},
			"skill_loaded note", []string{"loaded d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events, lines := Insert(tc.st, tc.load, Evicted(tc.st, tc.lifecycle))
			if b := brief(events); b != tc.want {
				t.Fatalf("got %q, want %q", b, tc.want)
			}
			if len(lines) != len(tc.lines) {
				t.Fatalf("lines %q, want %d", lines, len(tc.lines))
			}
			for i, l := range tc.lines {
				if !strings.Contains(lines[i], l) {
					t.Errorf("line %d %q lacks %q", i, lines[i], l)
				}
				if cc := events[2*i+1].(*event.ContextChanged); cc.Line != lines[i] || cc.ToolCallID != tc.load.ToolCallID {
					t.Errorf("event %d records %q for call %q", 2*i+1, cc.Line, cc.ToolCallID)
				}
			}
			for _, e := range events {
				tc.st.Apply(e)
			}
			if tc.st.Loaded[0].Name != "d" || (tc.lifecycle && len(tc.st.Loaded) > 2) {
				t.Errorf("after the fold: %d loaded, active %s", len(tc.st.Loaded), tc.st.Loaded[0].Name)
			}
		})
	}
}
