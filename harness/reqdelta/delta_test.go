package reqdelta

import (
	"reflect"
	"strings"
	"testing"

	"skillet/harness/chat"
)

func body(t *testing.T, system string, msgs []string, tools ...string) *Request {
	t.Helper()
	r := &chat.Request{Model: "m"}
	r.Messages = append(r.Messages, chat.Message{Role: chat.RoleSystem, Content: system})
	for i, m := range msgs {
		role := chat.RoleUser
		if i%2 == 1 {
			role = chat.RoleAssistant
		}
		r.Messages = append(r.Messages, chat.Message{Role: role, Content: m})
	}
	for _, name := range tools {
		r.Tools = append(r.Tools, chat.Tool{Type: "function", Function: &chat.FunctionDefinition{Name: name, Description: "the " + name + " tool"}})
	}
	b, err := r.Body()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func list(entries ...string) string {
	var b strings.Builder
	b.WriteString("prompt\n<available_skills>\n")
	for i := 0; i+1 < len(entries); i += 2 {
		b.WriteString("<skill>\n<name>" + entries[i] + "</name>\n<description>" + entries[i+1] + "</description>\n</skill>\n")
	}
	return b.String() + "</available_skills>\n"
}

func kinds(d *Delta) string {
	var out []string
	for _, s := range d.Messages {
		out = append(out, s.Kind[:1])
	}
	return strings.Join(out, "")
}

func TestBetweenNamesWhatChanged(t *testing.T) {
	ctx := func(names ...string) string {
		s := "\n<current_context>\n"
		for _, n := range names {
			s += `<skill name="` + n + `" version="1">` + n + " text</skill>\n"
		}
		return s + "</current_context>"
	}
	for _, c := range []struct {
		name           string
		a, b           *Request
		context, list  Changes
		tools          Changes
		reordered      bool
		steps          string
		fields         []string
		gone, add, mod int
	}{
		{name: "two descriptions edited, a turn added",
			a:    body(t, list("pdf", "Fill PDF forms.", "csv", "Clean CSV.", "sql", "Review SQL."), []string{"hi", "hello"}),
			b:    body(t, list("pdf", "Fill and merge PDF forms.", "csv", "Clean and dedupe CSV.", "sql", "Review SQL."), []string{"hi", "hello", "again"}),
			list: Changes{Changed: []string{"pdf", "csv"}}, steps: "ckkn", add: 1, mod: 1},
		{name: "the window drops its oldest messages and a skill joins the context",
			a:       body(t, list("pdf", "Fill PDF forms.")+ctx("pdf"), []string{"u1", "a1", "u2", "a2"}),
			b:       body(t, list("pdf", "Fill PDF forms.", "csv", "Clean CSV.")+ctx("pdf", "csv"), []string{"u2", "a2", "u3"}),
			context: Changes{Added: []string{"csv"}}, list: Changes{Added: []string{"csv"}}, steps: "cggkkn", gone: 2, add: 1, mod: 1},
		{name: "a skill rendered anew and one gone from the context",
			a:       body(t, "p"+ctx("pdf", "csv"), []string{"u1"}),
			b:       body(t, "p"+strings.Replace(ctx("pdf"), "pdf text", "pdf edited", 1), []string{"u1"}),
			context: Changes{Removed: []string{"csv"}, Changed: []string{"pdf"}}, steps: "ck", mod: 1},
		{name: "a message edited in place keeps its neighbours",
			a:     body(t, "p", []string{"u1", "a1", "u2"}),
			b:     body(t, "p", []string{"u1", "a1 edited", "u2"}),
			steps: "kkck", mod: 1},
		{name: "tools",
			a:     body(t, "p", []string{"u"}, "keep", "gone", "moved"),
			b:     body(t, "p", []string{"u"}, "keep", "moved", "added"),
			tools: Changes{Added: []string{"added"}, Removed: []string{"gone"}}, steps: "kk"},
		{name: "tools reordered only",
			a:         body(t, "p", []string{"u"}, "one", "two"),
			b:         body(t, "p", []string{"u"}, "two", "one"),
			reordered: true, steps: "kk"},
	} {
		d := Between(c.a, c.b)
		if !reflect.DeepEqual(d.Context, c.context) || !reflect.DeepEqual(d.List, c.list) || !reflect.DeepEqual(d.Tools, c.tools) || d.Reordered != c.reordered {
			t.Errorf("%s: context %+v list %+v tools %+v reordered %v", c.name, d.Context, d.List, d.Tools, d.Reordered)
		}
		if got := kinds(d); got != c.steps {
			t.Errorf("%s: steps %s, want %s (%+v)", c.name, got, c.steps, d.Messages)
		}
		if d.Count(Gone) != c.gone || d.Count(New) != c.add || d.Count(Changed) != c.mod {
			t.Errorf("%s: %d gone, %d new, %d changed", c.name, d.Count(Gone), d.Count(New), d.Count(Changed))
		}
	}
}

// Every message of A and of B is told once, in order, whatever the two.
func TestAlignTellsEveryMessageOnce(t *testing.T) {
	msgs := func(s string) []Message {
		var out []Message
		for _, r := range s {
			text := string(r)
			role := "user"
			if r >= 'n' {
				role = "assistant"
			}
			out = append(out, Message{Role: role, Content: &text})
		}
		return out
	}
	for _, c := range [][2]string{{"abc", "abc"}, {"abcd", "cdef"}, {"", "ab"}, {"ab", ""}, {"axyb", "apqb"}, {"aob", "bno"}, {"zzzz", "zz"}} {
		a, b := msgs(c[0]), msgs(c[1])
		ia, ib := 0, 0
		for _, s := range align(a, b) {
			if s.A >= 0 {
				if s.A != ia {
					t.Errorf("%v: A told out of order: %+v", c, s)
				}
				ia++
			}
			if s.B >= 0 {
				if s.B != ib {
					t.Errorf("%v: B told out of order: %+v", c, s)
				}
				ib++
			}
			if s.Kind == Kept && a[s.A].Text() != b[s.B].Text() {
				t.Errorf("%v: kept differing messages %+v", c, s)
			}
			if s.Kind == Changed && a[s.A].Role != b[s.B].Role {
				t.Errorf("%v: changed across roles %+v", c, s)
			}
		}
		if ia != len(a) || ib != len(b) {
			t.Errorf("%v: told %d of %d and %d of %d", c, ia, len(a), ib, len(b))
		}
	}
}
