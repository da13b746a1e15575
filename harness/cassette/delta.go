package cassette

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"skillet/harness/reqdelta"
)

// maxDiffLines bounds the diff lines shown for one text.
const maxDiffLines = 24

// Canonical is the JSON text with keys sorted and no spaces, numbers
// kept as written; two requests are the same when their canonical forms are.
func Canonical(b []byte) ([]byte, error) { return reqdelta.Canonical(b) }

// Same reports whether two request bodies are equal as JSON.
func Same(recorded, now []byte) bool { return reqdelta.Same(recorded, now) }

// Delta says what changed between a recorded request body and today's, one
// finding per line: the model, the skill list's entries, each message (a
// system or user text as diff lines, a tool call, a tool result), each
// tool added, removed or changed, any other field. Nil when they are the
// same as JSON.
func Delta(recorded, now []byte) []string {
	if Same(recorded, now) {
		return nil
	}
	a, errA := reqdelta.Parse(recorded)
	b, errB := reqdelta.Parse(now)
	return parsedDelta(a, errA, b, errB)
}

// parsedDelta is Delta of two bodies already found to differ, as
// reqdelta.Parse read them.
func parsedDelta(a *reqdelta.Request, errA error, b *reqdelta.Request, errB error) []string {
	if errA != nil {
		return []string{fmt.Sprintf("the recorded request is not a chat-completions body (%v)", errA)}
	}
	if errB != nil {
		return []string{fmt.Sprintf("the request is not a chat-completions body (%v)", errB)}
	}
	d := reqdelta.Between(a, b)
	var out []string
	if a.Model != b.Model {
		out = append(out, fmt.Sprintf("model: recorded %q, now %q", a.Model, b.Model))
	}
	for _, n := range d.List.Removed {
		out = append(out, "skill list: entry removed: "+n)
	}
	for _, n := range d.List.Changed {
		out = append(out, "skill list: the description of "+n+" changed")
	}
	for _, n := range d.List.Added {
		out = append(out, "skill list: entry added: "+n)
	}
	out = append(out, messagesDelta(d)...)
	out = append(out, toolsDelta(d)...)
	for _, k := range d.Fields {
		out = append(out, fmt.Sprintf("field %s: recorded %s, now %s", k, short(a.Other[k]), short(b.Other[k])))
	}
	if len(out) == 0 {
		out = append(out, "the bodies differ in a way no field shows (key order or number formatting only)")
	}
	return out
}

func short(v any) string {
	if v == nil {
		return "(absent)"
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func messagesDelta(d *reqdelta.Delta) []string {
	a, b := d.A.Messages, d.B.Messages
	var out []string
	if len(a) != len(b) {
		out = append(out, fmt.Sprintf("messages: recorded %d, now %d", len(a), len(b)))
	}
	for _, s := range d.Messages {
		switch s.Kind {
		case reqdelta.Changed:
			out = append(out, messageDelta(s, a[s.A], b[s.B])...)
		case reqdelta.Gone:
			out = append(out, fmt.Sprintf("message %d (%s) is gone: %s", s.A, a[s.A].Role, gist(a[s.A])))
		case reqdelta.New:
			out = append(out, fmt.Sprintf("message %d (%s) is new: %s", s.B, b[s.B].Role, gist(b[s.B])))
		}
	}
	return out
}

func gist(m reqdelta.Message) string {
	if len(m.ToolCalls) > 0 {
		return "calls " + callList(m.ToolCalls)
	}
	s := strings.ReplaceAll(m.Text(), "\n", " ")
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return fmt.Sprintf("%q", s)
}

func callList(calls []reqdelta.ToolCall) string {
	var parts []string
	for _, c := range calls {
		parts = append(parts, c.Function.Name+" "+c.Function.Arguments)
	}
	return strings.Join(parts, ", ")
}

// messageDelta is what differs in one message at place s, the role the
// same: its text as diff lines, its tool calls, the call it answers.
func messageDelta(s reqdelta.Step, a, b reqdelta.Message) []string {
	at := fmt.Sprintf("message %d (%s)", s.B, a.Role)
	if s.A != s.B {
		at = fmt.Sprintf("message %d (%s, recorded as message %d)", s.B, a.Role, s.A)
	}
	var out []string
	if ta, tb := a.Text(), b.Text(); ta != tb {
		out = append(out, at+" text:")
		out = append(out, lineDiff(ta, tb)...)
	}
	if ca, cb := callList(a.ToolCalls), callList(b.ToolCalls); ca != cb {
		out = append(out, fmt.Sprintf("%s tool calls: recorded %s, now %s", at, orNone(ca), orNone(cb)))
	} else {
		for j := range a.ToolCalls {
			if a.ToolCalls[j].ID != b.ToolCalls[j].ID {
				out = append(out, fmt.Sprintf("%s tool call %d id: recorded %s, now %s", at, j, a.ToolCalls[j].ID, b.ToolCalls[j].ID))
			}
		}
	}
	if a.ToolCallID != b.ToolCallID {
		out = append(out, fmt.Sprintf("%s answers tool call %s, recorded %s", at, b.ToolCallID, a.ToolCallID))
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// lineDiff is the changed lines of two texts with one line of context,
// each line indented and marked "-", "+" or " ".
func lineDiff(a, b string) []string {
	if !strings.HasSuffix(a, "\n") {
		a += "\n"
	}
	if !strings.HasSuffix(b, "\n") {
		b += "\n"
	}
	d, err := udiff.ToUnified("recorded", "now", a, udiff.Lines(a, b), 1)
	if err != nil {
		return []string{"    (the texts differ; no diff: " + err.Error() + ")"}
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
		if strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++") {
			continue
		}
		if len(out) == maxDiffLines {
			out = append(out, "    ...")
			break
		}
		out = append(out, "    "+l)
	}
	return out
}

func toolsDelta(d *reqdelta.Delta) []string {
	was := map[string]reqdelta.Tool{}
	for _, t := range d.A.Tools {
		was[t.Function.Name] = t
	}
	is := map[string]reqdelta.Tool{}
	for _, t := range d.B.Tools {
		is[t.Function.Name] = t
	}
	var out []string
	for _, name := range d.Tools.Removed {
		out = append(out, "tool removed: "+name)
	}
	for _, name := range d.Tools.Changed {
		o, n := was[name], is[name]
		if o.Function.Description != n.Function.Description {
			out = append(out, fmt.Sprintf("tool %s description:", name))
			out = append(out, lineDiff(o.Function.Description, n.Function.Description)...)
		}
		if !reflect.DeepEqual(o.Function.Parameters, n.Function.Parameters) {
			out = append(out, fmt.Sprintf("tool %s parameters: recorded %s, now %s", name, short(o.Function.Parameters), short(n.Function.Parameters)))
		}
	}
	for _, name := range d.Tools.Added {
		out = append(out, "tool added: "+name)
	}
	if d.Reordered {
		out = append(out, fmt.Sprintf("tools reordered: recorded %s, now %s", strings.Join(names(d.A.Tools), ", "), strings.Join(names(d.B.Tools), ", ")))
	}
	return out
}

func names(ts []reqdelta.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Function.Name)
	}
	return out
}

// ToolSequence is the tool calls a request's transcript holds, in order, as
// NAME ARGUMENTS; lenient replay wants it unchanged.
func ToolSequence(body []byte) ([]string, error) {
	r, err := reqdelta.Parse(body)
	if err != nil {
		return nil, err
	}
	return r.ToolSequence(), nil
}
