package rulebook

import (
	"strings"
	"testing"

	"skillet/harness/event"
)

func asst(turn int, ids ...string) *event.Assistant {
	a := &event.Assistant{Header: event.Header{Turn: turn}}
	for _, id := range ids {
		a.ToolCalls = append(a.ToolCalls, event.ToolCallRecord{ID: id, Name: "t"})
	}
	return a
}

func result(turn int, id string) *event.ToolResult {
	return &event.ToolResult{Header: event.Header{Turn: turn}, ToolCallID: id, Name: "t", Content: "r"}
}

// kinds lists the events as short words: U user, A(ids) assistant, R(id)
// result, S(id) started.
func kinds(es []event.Event) string {
	var b []string
	for _, e := range es {
		switch e := e.(type) {
		case *event.TurnStart:
			b = append(b, "U")
		case *event.Assistant:
			ids := []string{}
			for _, tc := range e.ToolCalls {
				ids = append(ids, tc.ID)
			}
			b = append(b, "A("+strings.Join(ids, ",")+")")
		case *event.ToolResult:
			b = append(b, "R("+e.ToolCallID+")")
		case *event.ToolStarted:
			b = append(b, "S("+e.ToolCallID+")")
		}
	}
	return strings.Join(b, " ")
}

func TestRepair(t *testing.T) {
	user := func(turn int) *event.TurnStart { return &event.TurnStart{Header: event.Header{Turn: turn}, Text: "hi"} }
	started := func(id string) *event.ToolStarted { return &event.ToolStarted{ToolCallID: id, Name: "t"} }
	for _, tc := range []struct {
		name       string
		in         []event.Event
		want, tail string
		notes      int
	}{
		{"intact", []event.Event{user(1), asst(1, "a", "b"), result(1, "a"), result(1, "b"), asst(1)}, "U A(a,b) R(a) R(b) A()", "", 0},
		{"a lost result is answered where it belongs", []event.Event{user(1), asst(1, "a", "b"), result(1, "a"), asst(1), user(2)}, "U A(a,b) R(a) R(b) A() U", "", 1},
		{"a result whose call was lost is dropped", []event.Event{user(1), result(1, "a"), asst(1), user(2)}, "U A() U", "", 1},
		{"a result given twice is kept once", []event.Event{user(1), asst(1, "a"), result(1, "a"), result(1, "a"), asst(1)}, "U A(a) R(a) A()", "", 1},
		{"an id reused by a later message is answered again", []event.Event{user(1), asst(1, "call_0"), result(1, "call_0"), asst(1), user(2), asst(2, "call_0"), result(2, "call_0"), asst(2)}, "U A(call_0) R(call_0) A() U A(call_0) R(call_0) A()", "", 0},
		{"calls of one message sharing an id each get a result", []event.Event{user(1), asst(1, "x", "x"), result(1, "x"), asst(1)}, "U A(x,x) R(x) R(x) A()", "", 1},
		{"a result of an earlier message's call is dropped", []event.Event{user(1), asst(1, "a"), asst(1, "b"), result(1, "a"), result(1, "b")}, "U A(a) R(a) A(b) R(b)", "", 2},
		{"calls open at the end go to the caller", []event.Event{user(1), asst(1, "a", "b"), started("a")}, "U A(a,b) S(a)", "a,b", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, notes, tail := Repair(tc.in)
			if k := kinds(got); k != tc.want {
				t.Errorf("events %s, want %s", k, tc.want)
			}
			if len(notes) != tc.notes {
				t.Errorf("notes %q, want %d", notes, tc.notes)
			}
			var ids []string
			for _, r := range tail {
				ids = append(ids, r.ToolCallID)
			}
			if strings.Join(ids, ",") != tc.tail {
				t.Errorf("tail %v, want %s", ids, tc.tail)
			}
		})
	}
}

// A tool that had started when the session ended may have run: the model
// is told so, not that it never ran.
func TestUnansweredResultSaysWhetherTheToolMayHaveRun(t *testing.T) {
	tc := event.ToolCallRecord{ID: "a", Name: "deploy"}
	if r := UnansweredResult(tc, true, 3, ""); !strings.HasPrefix(r.Content, "interrupted:") || !strings.Contains(r.Content, "may have run") || r.Refused {
		t.Fatalf("started: %+v", r)
	}
	if r := UnansweredResult(tc, false, 3, ""); !strings.HasPrefix(r.Content, "not run:") || !r.Refused {
		t.Fatalf("not started: %+v", r)
	}
}
