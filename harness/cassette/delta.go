package cassette

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"skillet/harness/chat"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// maxDiffLines bounds the diff lines shown for one text.
const maxDiffLines = 24

// Canonical is the JSON text with keys sorted and no spaces, numbers
// kept as written; two requests are the same when their canonical forms are.
func Canonical(b []byte) ([]byte, error) {
	v, err := decode(b)
	if err != nil {
		return nil, err
	}
	return chat.MarshalPlain(v)
}

func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	return v, nil
}

// Same reports whether two request bodies are equal as JSON.
func Same(recorded, now []byte) bool {
	if bytes.Equal(recorded, now) {
		return true
	}
	a, err1 := Canonical(recorded)
	b, err2 := Canonical(now)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// wireRequest is the part of a chat-completions body a delta names.
type wireRequest struct {
	Model    string        `json:"model"`
	Messages []wireMessage `json:"messages"`
	Tools    []wireTool    `json:"tools"`
	raw      map[string]any
}

type wireMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls"`
	ToolCallID string         `json:"tool_call_id"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Function struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Parameters  any    `json:"parameters"`
	} `json:"function"`
}

// parseRequest reads a body in one pass: the fields a delta names into
// their types, every other field as plain JSON values.
func parseRequest(b []byte) (*wireRequest, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	r := &wireRequest{raw: map[string]any{}}
	for k, v := range fields {
		var err error
		switch k {
		case "model":
			err = json.Unmarshal(v, &r.Model)
		case "messages":
			err = json.Unmarshal(v, &r.Messages)
		case "tools":
			err = json.Unmarshal(v, &r.Tools)
		default:
			var x any
			err = json.Unmarshal(v, &x)
			r.raw[k] = x
		}
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", k, err)
		}
	}
	return r, nil
}

// Delta says what changed between a recorded request body and today's, one
// finding per line: the model, each message (a system or user text as diff
// lines, a tool call, a tool result), each tool added, removed or changed,
// any other field. Nil when they are the same as JSON.
func Delta(recorded, now []byte) []string {
	if Same(recorded, now) {
		return nil
	}
	a, errA := parseRequest(recorded)
	b, errB := parseRequest(now)
	return parsedDelta(a, errA, b, errB)
}

// parsedDelta is Delta of two bodies already found to differ, as
// parseRequest read them.
func parsedDelta(a *wireRequest, errA error, b *wireRequest, errB error) []string {
	if errA != nil {
		return []string{fmt.Sprintf("the recorded request is not a chat-completions body (%v)", errA)}
	}
	if errB != nil {
		return []string{fmt.Sprintf("the request is not a chat-completions body (%v)", errB)}
	}
	var out []string
	if a.Model != b.Model {
		out = append(out, fmt.Sprintf("model: recorded %q, now %q", a.Model, b.Model))
	}
	out = append(out, messagesDelta(a.Messages, b.Messages)...)
	out = append(out, toolsDelta(a.Tools, b.Tools)...)
	for _, k := range slices.Sorted(mapKeys(a.raw, b.raw)) {
		if !reflect.DeepEqual(a.raw[k], b.raw[k]) {
			out = append(out, fmt.Sprintf("field %s: recorded %s, now %s", k, short(a.raw[k]), short(b.raw[k])))
		}
	}
	if len(out) == 0 {
		out = append(out, "the bodies differ in a way no field shows (key order or number formatting only)")
	}
	return out
}

func mapKeys(ms ...map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, m := range ms {
			for k := range m {
				if !seen[k] {
					seen[k] = true
					if !yield(k) {
						return
					}
				}
			}
		}
	}
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

func messagesDelta(a, b []wireMessage) []string {
	var out []string
	if len(a) != len(b) {
		out = append(out, fmt.Sprintf("messages: recorded %d, now %d", len(a), len(b)))
	}
	for i := range min(len(a), len(b)) {
		out = append(out, messageDelta(i, a[i], b[i])...)
	}
	for i := len(b); i < len(a); i++ {
		out = append(out, fmt.Sprintf("message %d (%s) is gone: %s", i, a[i].Role, gist(a[i])))
	}
	for i := len(a); i < len(b); i++ {
		out = append(out, fmt.Sprintf("message %d (%s) is new: %s", i, b[i].Role, gist(b[i])))
	}
	return out
}

func gist(m wireMessage) string {
	if len(m.ToolCalls) > 0 {
		return "calls " + callList(m.ToolCalls)
	}
	s := strings.ReplaceAll(text(m.Content), "\n", " ")
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return fmt.Sprintf("%q", s)
}

func text(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func callList(calls []wireToolCall) string {
	var parts []string
	for _, c := range calls {
		parts = append(parts, c.Function.Name+" "+c.Function.Arguments)
	}
	return strings.Join(parts, ", ")
}

func messageDelta(i int, a, b wireMessage) []string {
	at := fmt.Sprintf("message %d (%s)", i, a.Role)
	var out []string
	if a.Role != b.Role {
		return []string{fmt.Sprintf("message %d: recorded a %s message, now a %s message: %s", i, a.Role, b.Role, gist(b))}
	}
	if ta, tb := text(a.Content), text(b.Content); ta != tb {
		out = append(out, listDelta(ta, tb)...)
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

// listEntry is one skill of a composed list: <name> then <description>.
var listEntry = regexp.MustCompile(`<name>([^<]*)</name>\s*<description>([^<]*)</description>`)

// listDelta names the skill-list entries two texts differ in: added,
// removed, or with another description.
func listDelta(a, b string) []string {
	entries := func(s string) (map[string]string, []string) {
		m := map[string]string{}
		var order []string
		for _, e := range listEntry.FindAllStringSubmatch(s, -1) {
			if _, dup := m[e[1]]; !dup {
				order = append(order, e[1])
			}
			m[e[1]] = e[2]
		}
		return m, order
	}
	was, wasOrder := entries(a)
	is, isOrder := entries(b)
	var out []string
	for _, n := range wasOrder {
		switch d, ok := is[n]; {
		case !ok:
			out = append(out, "skill list: entry removed: "+n)
		case d != was[n]:
			out = append(out, "skill list: the description of "+n+" changed")
		}
	}
	for _, n := range isOrder {
		if _, ok := was[n]; !ok {
			out = append(out, "skill list: entry added: "+n)
		}
	}
	return out
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

func toolsDelta(a, b []wireTool) []string {
	was := map[string]wireTool{}
	var order []string
	for _, t := range a {
		was[t.Function.Name] = t
		order = append(order, t.Function.Name)
	}
	is := map[string]wireTool{}
	for _, t := range b {
		is[t.Function.Name] = t
	}
	var out []string
	for _, name := range order {
		n, ok := is[name]
		if !ok {
			out = append(out, "tool removed: "+name)
			continue
		}
		o := was[name]
		if o.Function.Description != n.Function.Description {
			out = append(out, fmt.Sprintf("tool %s description:", name))
			out = append(out, lineDiff(o.Function.Description, n.Function.Description)...)
		}
		if !reflect.DeepEqual(o.Function.Parameters, n.Function.Parameters) {
			out = append(out, fmt.Sprintf("tool %s parameters: recorded %s, now %s", name, short(o.Function.Parameters), short(n.Function.Parameters)))
		}
	}
	for _, t := range b {
		if _, ok := was[t.Function.Name]; !ok {
			out = append(out, "tool added: "+t.Function.Name)
		}
	}
	if len(out) == 0 && !reflect.DeepEqual(names(a), names(b)) {
		out = append(out, fmt.Sprintf("tools reordered: recorded %s, now %s", strings.Join(names(a), ", "), strings.Join(names(b), ", ")))
	}
	return out
}

func names(ts []wireTool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Function.Name)
	}
	return out
}

// ToolSequence is the tool calls a request's transcript holds, in order, as
// NAME ARGUMENTS; lenient replay wants it unchanged.
func ToolSequence(body []byte) ([]string, error) {
	r, err := parseRequest(body)
	if err != nil {
		return nil, err
	}
	return r.toolSequence(), nil
}

func (r *wireRequest) toolSequence() []string {
	var out []string
	for _, m := range r.Messages {
		for _, c := range m.ToolCalls {
			args := c.Function.Arguments
			if canon, err := Canonical([]byte(args)); err == nil {
				args = string(canon)
			}
			out = append(out, c.Function.Name+" "+args)
		}
	}
	return out
}
