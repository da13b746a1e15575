package rulebook

import (
	"reflect"
	"strings"
	"testing"

	"skillet/harness/chat"
	"skillet/harness/event"
)

func names(ls []*Loaded) []string {
	out := []string{}
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

func kindsOf(parts []Part) string {
	var b []string
	for _, p := range parts {
		b = append(b, p.Kind+":"+p.Skill)
	}
	return strings.Join(b, " ")
}

func TestCompose(t *testing.T) {
	list := Given{Prompt: "You help.", Listing: true, List: []Listed{{"a", "Use for <a> & more."}, {"b", "B things."}}, LeftOff: []string{"z"},
		Tools: []chat.Tool{{Type: "function", Function: &chat.FunctionDefinition{Name: "load_skill"}}}}
	toolResult := &event.SkillLoaded{Header: event.Header{Turn: 1}, Skill: "t", Version: "1", ExecutionID: "x-9", By: event.ByModel, Delivery: event.DeliveryToolResult, Body: event.SkillBody{Text: "T text"}}
	pasted := &event.SkillLoaded{Header: event.Header{Turn: 1}, Skill: "p", Version: "1", ExecutionID: "x-5", By: event.ByPaste, Delivery: event.DeliveryContext, Body: event.SkillBody{Text: "P text"}}
	exchange := func(turn int, text string) []event.Event {
		return []event.Event{userMsg(turn, text), &event.Assistant{Header: event.Header{Turn: turn}, Call: 1, Text: "ok"}, &event.TurnEnd{Header: event.Header{Turn: turn}}}
	}
	for _, tc := range []struct {
		name      string
		settings  func(*event.Settings)
		events    []event.Event
		world     Given
		parts     string
		offered   []string
		delivered []string
		out       []string
		msgs      int
		has, not  []string
	}{
		{"the list and the loaded skills, the active one marked", nil,
			[]event.Event{userMsg(1, "hi"), loaded(1, "a", "x-1"), loaded(1, "b", "x-2")}, list,
			"prompt: list: skill:b skill:a", []string{"a", "b"}, []string{"b", "a"}, nil, 1,
			[]string{"You help.\n\n<available_skills>", "<description>Use for &lt;a&gt; &amp; more.</description>", "<current_context>\n<skill name=\"b\" version=\"1\" execution=\"x-2\" active=\"true\">\nb text\n</skill>\n<skill name=\"a\" version=\"1\" execution=\"x-1\">", ListHint},
			nil},
		{"preloads are in the instructions and delivered", nil,
			[]event.Event{userMsg(1, "hi"), &event.SkillPreload{Header: event.Header{Turn: 1}, Skill: "house", Version: "2", ExecutionID: "x-1", Body: event.SkillBody{Text: "House rules."}}},
			Given{Prompt: "You help."}, "prompt: preload:house", nil, []string{"house"}, nil, 1,
			[]string{"<preloaded_skills>\n<skill name=\"house\" version=\"2\" execution=\"x-1\">\nHouse rules.\n</skill>\n</preloaded_skills>"}, []string{"<current_context>", "<available_skills>"}},
		{"a tool-result load is delivered by its result, not the context (R11)", nil,
			[]event.Event{userMsg(1, "hi"), toolResult}, list,
			"prompt: list:", []string{"a", "b"}, []string{"t"}, nil, 1, nil, []string{"T text"}},
		{"its result out of the window: no longer delivered (R11)", func(s *event.Settings) { s.MaxTranscriptMessages = 2 },
			append(append([]event.Event{userMsg(1, "hi"), toolResult, &event.TurnEnd{Header: event.Header{Turn: 1}}}, exchange(2, "more")...), exchange(3, "again")...), list,
			"prompt: list:", []string{"a", "b"}, []string{}, []string{"t"}, 2, nil, nil},
		{"a pasted skill is named, so offered (R22)", func(s *event.Settings) { s.LoadSkillTool = false },
			[]event.Event{userMsg(1, "hi"), pasted}, Given{Prompt: "You help."},
			"prompt: paste:p", []string{"p"}, []string{"p"}, nil, 1, []string{"P text"}, []string{"<available_skills>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := fold(tc.settings, tc.events...)
			w := tc.world
			w.Preloads = st.Preloads
			c := Compose(st, w)
			if k := kindsOf(c.Parts); k != tc.parts {
				t.Errorf("parts %q, want %q", k, tc.parts)
			}
			if !reflect.DeepEqual(nonNil(c.Offered), nonNil(tc.offered)) {
				t.Errorf("offered %v, want %v", c.Offered, tc.offered)
			}
			if d := names(c.Delivered); !reflect.DeepEqual(d, nonNil(tc.delivered)) {
				t.Errorf("delivered %v, want %v", d, tc.delivered)
			}
			if o := names(c.OutOfWindow); !reflect.DeepEqual(o, nonNil(tc.out)) {
				t.Errorf("out of window %v, want %v", o, tc.out)
			}
			if len(c.Msgs) < tc.msgs || c.Request.Messages[0].Role != chat.RoleSystem || c.Request.Messages[0].Content != c.Instructions || len(c.Request.Messages) != len(c.Msgs)+1 {
				t.Errorf("%d window messages (want at least %d), request of %d", len(c.Msgs), tc.msgs, len(c.Request.Messages))
			}
			for _, h := range tc.has {
				if !strings.Contains(c.Instructions, h) {
					t.Errorf("instructions lack %q:\n%s", h, c.Instructions)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(c.Instructions, n) {
					t.Errorf("instructions carry %q:\n%s", n, c.Instructions)
				}
			}
		})
	}
}

// A frozen prompt keeps the first request's instructions, list and
// tools; only what it carried, a preload or a result in the window is
// delivered (R23).
func TestComposeFrozen(t *testing.T) {
	freeze := func(s *event.Settings) { s.FreezePrompt = true }
	st := fold(freeze, userMsg(1, "hi"), loaded(1, "a", "x-1"),
		&event.PromptFrozen{Instructions: "FROZEN", Tools: []byte(`[{"type":"function","function":{"name":"old_tool"}}]`), Offered: []string{"a", "b"}, Context: map[string]string{"a": "x-1"}},
		loaded(1, "c", "x-2"))
	c := Compose(st, Given{Prompt: "You help.", Listing: true, List: []Listed{{"c", "C."}}, Tools: []chat.Tool{{Type: "function", Function: &chat.FunctionDefinition{Name: "new_tool"}}}})
	if !c.Frozen || c.Instructions != "FROZEN" || c.Request.Messages[0].Content != "FROZEN" {
		t.Fatalf("instructions %q (frozen %v)", c.Instructions, c.Frozen)
	}
	if len(c.Request.Tools) != 1 || c.Request.Tools[0].Function.Name != "old_tool" {
		t.Errorf("tools %+v, want the frozen ones", c.Request.Tools)
	}
	if !reflect.DeepEqual(c.Offered, []string{"a", "b"}) {
		t.Errorf("offered %v, want the first request's list", c.Offered)
	}
	if d := names(c.Delivered); !reflect.DeepEqual(d, []string{"a"}) {
		t.Errorf("delivered %v: c loaded after the freeze is not in the frozen text", d)
	}
}
