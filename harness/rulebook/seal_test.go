package rulebook

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"skillet/harness/chat"
	"skillet/harness/event"
	"skillet/harness/paged"
)

// longSession is n turns of a user message, a tool call and its result, a
// note and an answer, each turn's first call trimming the window to the
// last 20 messages when trim is set, as the shell records it.
func longSession(n int, trim bool) []event.Event {
	var out []event.Event
	msgs := 0
	for t := 1; t <= n; t++ {
		h := event.Header{Turn: t}
		id := fmt.Sprintf("call_%d", t)
		out = append(out, &event.TurnStart{Header: h, Text: fmt.Sprintf("question %d", t), Mentions: []event.Use{{Role: "SKILL", Name: "a"}}})
		if trim && msgs > 20 {
			out = append(out, &event.WindowTrimmed{Header: h, Call: 1, Dropped: msgs - 20, Kept: 20})
		}
		out = append(out,
			&event.Assistant{Header: h, Reasoning: "thinking", ToolCalls: []event.ToolCallRecord{{ID: id, Name: "tool", Arguments: `{"n":1}`, Extra: map[string]json.RawMessage{"x": json.RawMessage(`1`)}}}},
			&event.ToolResult{Header: h, ToolCallID: id, Name: "tool", Content: fmt.Sprintf("result %d", t), Stderr: "warn", Version: 2},
			&event.ContextChanged{Header: h, Line: fmt.Sprintf("contextChanged: turn %d", t)},
			&event.Assistant{Header: h, Text: fmt.Sprintf("answer %d", t)},
			&event.TurnEnd{Header: h})
		msgs += 4
	}
	return out
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSealingKeepsTheTranscript folds a long session whose window moves on,
// so its old entries and messages are sealed, and one whose window never
// moves, so nothing is: both read back the same transcript and messages,
// and compose the same request.
func TestSealingKeepsTheTranscript(t *testing.T) {
	set := func(s *event.Settings) { s.MaxTranscriptMessages = 20 }
	events := longSession(600, true)
	sealed := fold(set, events...)
	whole := fold(set, longSession(600, false)...)
	if sealed.Entries.Sealed() < 2*paged.PageSize || sealed.Msgs.Sealed() < paged.PageSize {
		t.Fatalf("sealed %d entries and %d messages of %d and %d: the window's move should have sealed pages",
			sealed.Entries.Sealed(), sealed.Msgs.Sealed(), sealed.Entries.Len(), sealed.Msgs.Len())
	}
	if whole.Entries.Sealed() != 0 || whole.Msgs.Sealed() != 0 {
		t.Fatal("a session whose window never moved had entries sealed")
	}
	if a, b := asJSON(t, sealed.Entries.Items()), asJSON(t, whole.Entries.Items()); a != b {
		t.Fatalf("sealed entries read back differently:\n%s", firstDiff(a, b))
	}
	if a, b := asJSON(t, sealed.Msgs.Items()), asJSON(t, whole.Msgs.Items()); a != b {
		t.Fatalf("sealed messages read back differently:\n%s", firstDiff(a, b))
	}
	var ends []*event.TurnEnd
	for _, e := range events {
		if e, ok := e.(*event.TurnEnd); ok {
			ends = append(ends, e)
		}
	}
	if sealed.Ends.Sealed() == 0 {
		t.Fatalf("none of %d turn records was sealed", sealed.Ends.Len())
	}
	if a, b := asJSON(t, sealed.Ends.Items()), asJSON(t, ends); a != b {
		t.Fatalf("sealed turn records read back differently:\n%s", firstDiff(a, b))
	}
	var marks []event.Event
	for _, e := range events {
		if IsMark(e) {
			marks = append(marks, e)
		}
	}
	if sealed.Marks.Sealed() == 0 {
		t.Fatalf("none of %d marks was sealed", sealed.Marks.Len())
	}
	if a, b := asJSON(t, sealed.Marks.Items()), asJSON(t, marks); a != b {
		t.Fatalf("sealed marks read back differently:\n%s", firstDiff(a, b))
	}
	for i := range sealed.Entries.Len() {
		if got := sealed.Entries.At(i); got.Index != i {
			t.Fatalf("entry %d reads back with index %d", i, got.Index)
		}
	}
	w := Given{Prompt: "p"}
	if a, b := asJSON(t, Compose(sealed, w).Request), asJSON(t, Compose(whole, w).Request); a != b {
		t.Fatalf("a sealed state composes another request:\n%s", firstDiff(a, b))
	}
	// a window that grows back (a larger limit) reads sealed messages
	sealed.Settings.MaxTranscriptMessages, whole.Settings.MaxTranscriptMessages = 900, 900
	if a, b := asJSON(t, Compose(sealed, w).Request), asJSON(t, Compose(whole, w).Request); a != b {
		t.Fatalf("a window reaching into sealed messages composes another request:\n%s", firstDiff(a, b))
	}
}

func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("at byte %d:\n  %s\n  %s", i, a[lo:min(len(a), i+80)], b[lo:min(len(b), i+80)])
}

// fill sets every field of v, however deep, to something other than its
// zero value.
func fill(v reflect.Value) {
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(time.Unix(1700000000, 7).UTC()))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s")
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Uint8:
		v.SetUint('1')
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem())
		v.Set(p)
	default:
		panic("fill: a field of kind " + v.Kind().String() + " sealing was never checked with")
	}
}

// TestEveryFieldSurvivesSealing guards against a field added to an entry
// or a message that sealing would drop (gob skips unexported fields).
func TestEveryFieldSurvivesSealing(t *testing.T) {
	check := func(t *testing.T, v any, seal func() any) {
		if got := seal(); !reflect.DeepEqual(got, v) {
			t.Fatalf("sealed and read back:\n%+v\nwant\n%+v", got, v)
		}
	}
	var en Entry
	fill(reflect.ValueOf(&en).Elem())
	check(t, en, func() any {
		var l paged.List[Entry]
		for range 2 * paged.PageSize {
			l.Append(en)
		}
		l.Seal(l.Len())
		return l.At(0)
	})
	for _, e := range markTypes {
		v := reflect.New(reflect.TypeOf(e).Elem())
		fill(v.Elem())
		mark := v.Interface().(event.Event)
		t.Run(fmt.Sprintf("%T", mark), func(t *testing.T) {
			check(t, mark, func() any {
				var l paged.List[event.Event]
				for range 2 * paged.PageSize {
					l.Append(mark)
				}
				l.Seal(l.Len())
				if l.Sealed() == 0 {
					t.Fatalf("%T could not be sealed", mark)
				}
				return l.At(0)
			})
		})
	}
	var m chat.Message
	fill(reflect.ValueOf(&m).Elem())
	check(t, m, func() any {
		var l paged.List[chat.Message]
		for range 2 * paged.PageSize {
			l.Append(m)
		}
		l.Seal(l.Len())
		return l.At(0)
	})
}
