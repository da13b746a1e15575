package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/google/jsonschema-go/jsonschema"

	"skillet/harness/event"
	"skillet/harness/termtext"
)

// callResultMsg is the result of a manual tool call.
type callResultMsg struct {
	res *event.ToolResult
	err error
}

// formField is one property of a tool's parameters.
type formField struct {
	name, typ, desc string
	required        bool
	enum            []string
	in              textinput.Model
}

// callForm calls a tool of the next request by hand, as MCP Inspector
// does: one input per property of its JSON Schema, typed hints, required
// ones marked; the result shows below.
type callForm struct {
	th     *theme
	eng    Engine
	tool   event.ToolInfo
	fields []*formField
	// rawJSON is set when the schema has no properties to build a form
	// from: the one field takes the whole arguments object.
	rawJSON  bool
	schema   *jsonschema.Resolved
	focus    int
	err      string
	running  bool
	cancel   context.CancelFunc
	result   *event.ToolResult
	resErr   error
	res      *pager
	resH     int
	disabled string
}

func newCallForm(th *theme, eng Engine, tool event.ToolInfo) *callForm {
	f := &callForm{th: th, eng: eng, tool: tool}
	var s jsonschema.Schema
	if len(bytes.TrimSpace(tool.Parameters)) > 0 {
		if err := json.Unmarshal(tool.Parameters, &s); err != nil {
			f.err = fmt.Sprintf("the tool's parameters are not a JSON Schema: %v", err)
		} else if rs, err := s.Resolve(nil); err == nil {
			f.schema = rs
		}
	}
	required := set(s.Required)
	for _, name := range propertyOrder(tool.Parameters, s.Properties) {
		ps := s.Properties[name]
		if ps == nil {
			ps = &jsonschema.Schema{}
		}
		typ := ps.Type
		if typ == "" && len(ps.Types) > 0 {
			typ = strings.Join(ps.Types, "|")
		}
		ff := &formField{name: name, typ: typ, desc: ps.Description, required: required[name]}
		for _, e := range ps.Enum {
			b, _ := json.Marshal(e)
			ff.enum = append(ff.enum, strings.Trim(string(b), `"`))
		}
		ff.in = newFieldInput(ff, ps)
		f.fields = append(f.fields, ff)
	}
	if len(f.fields) == 0 {
		f.rawJSON = true
		ff := &formField{name: "arguments", typ: "object", desc: "the whole arguments object, as JSON"}
		ff.in = newFieldInput(ff, &jsonschema.Schema{})
		ff.in.SetValue("{}")
		f.fields = []*formField{ff}
	}
	if tool.Gone {
		f.disabled = "this tool left the request with its skill; it cannot be called"
	}
	f.fields[0].in.Focus()
	return f
}

func newFieldInput(ff *formField, ps *jsonschema.Schema) textinput.Model {
	ti := textinput.New()
	ti.Prompt = "› "
	switch {
	case len(ff.enum) > 0:
		ti.Placeholder = "one of " + strings.Join(ff.enum, ", ")
	case ff.typ == "integer" || ff.typ == "number":
		ti.Placeholder = "a number"
	case ff.typ == "boolean":
		ti.Placeholder = "true or false"
	case ff.typ == "array":
		ti.Placeholder = `JSON array, e.g. ["a", "b"]`
	case ff.typ == "object":
		ti.Placeholder = `JSON object, e.g. {"k": "v"}`
	default:
		ti.Placeholder = "text"
	}
	if len(ps.Default) > 0 {
		ti.Placeholder += " · default " + string(ps.Default)
	}
	return ti
}

// propertyOrder lists property names as the schema file writes them; a
// map loses that order, and authors order fields on purpose.
func propertyOrder(raw json.RawMessage, props map[string]*jsonschema.Schema) []string {
	var top map[string]json.RawMessage
	var keys []string
	if json.Unmarshal(raw, &top) == nil {
		dec := json.NewDecoder(bytes.NewReader(top["properties"]))
		if t, err := dec.Token(); err == nil && t == json.Delim('{') {
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					break
				}
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					break
				}
				if s, ok := k.(string); ok {
					keys = append(keys, s)
				}
			}
		}
	}
	if len(keys) == len(props) {
		return keys
	}
	keys = keys[:0]
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// value reads a field by its type; present is false for an empty
// optional field, which is left out.
func (ff *formField) value() (v any, present bool, err error) {
	s := strings.TrimSpace(ff.in.Value())
	if s == "" {
		return nil, false, nil
	}
	switch ff.typ {
	case "string":
		return ff.in.Value(), true, nil
	case "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, true, fmt.Errorf("%s: want a whole number, got %q", ff.name, s)
		}
		return n, true, nil
	case "number":
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, true, fmt.Errorf("%s: want a number, got %q", ff.name, s)
		}
		return n, true, nil
	case "boolean":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, true, fmt.Errorf("%s: want true or false, got %q", ff.name, s)
		}
		return b, true, nil
	case "array", "object":
		var x any
		if err := json.Unmarshal([]byte(s), &x); err != nil {
			return nil, true, fmt.Errorf("%s: want JSON (%s): %v", ff.name, ff.typ, err)
		}
		return x, true, nil
	default: // several types or none: JSON if it reads as JSON, else text
		var x any
		if json.Unmarshal([]byte(s), &x) == nil {
			return x, true, nil
		}
		return ff.in.Value(), true, nil
	}
}

// args builds and checks the arguments object.
func (f *callForm) args() (string, error) {
	if f.rawJSON {
		s := strings.TrimSpace(f.fields[0].in.Value())
		if s == "" {
			s = "{}"
		}
		var x map[string]any
		if err := json.Unmarshal([]byte(s), &x); err != nil {
			return "", fmt.Errorf("arguments: want a JSON object: %v", err)
		}
		return compactJSON(s), f.validate(x)
	}
	obj := map[string]any{}
	for _, ff := range f.fields {
		v, ok, err := ff.value()
		if err != nil {
			return "", err
		}
		if !ok {
			if ff.required {
				return "", fmt.Errorf("%s is required", ff.name)
			}
			continue
		}
		obj[ff.name] = v
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return "", fmt.Errorf("encode arguments: %w", err)
	}
	var back map[string]any
	_ = json.Unmarshal(b, &back) // the validator wants plain JSON values
	return string(b), f.validate(back)
}

func (f *callForm) validate(x map[string]any) error {
	if f.schema == nil {
		return nil
	}
	if err := f.schema.Validate(x); err != nil {
		return fmt.Errorf("arguments do not match the schema: %w", err)
	}
	return nil
}

func (f *callForm) handle(msg tea.Msg) tea.Cmd {
	r, ok := msg.(callResultMsg)
	if !ok {
		return nil
	}
	f.running = false
	if f.cancel != nil {
		f.cancel()
		f.cancel = nil
	}
	f.result, f.resErr = r.res, r.err
	var text string
	switch {
	case r.err != nil:
		text = r.err.Error()
	case r.res != nil:
		text = prettyJSON(r.res.Content)
		if r.res.Stderr != "" {
			text += "\n\nstderr:\n" + r.res.Stderr
		}
	}
	f.res = newPager(text)
	return nil
}

func (f *callForm) run() tea.Cmd {
	if f.disabled != "" {
		f.err = f.disabled
		return nil
	}
	if f.running {
		return nil
	}
	args, err := f.args()
	if err != nil {
		f.err = err.Error()
		return nil
	}
	f.err, f.running = "", true
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	eng, name := f.eng, f.tool.Name
	return func() tea.Msg {
		res, err := eng.CallTool(ctx, name, args)
		err = prefixed("call "+name, err)
		return callResultMsg{res: res, err: err}
	}
}

func (f *callForm) close() {
	if f.cancel != nil {
		f.cancel()
	}
}

func (f *callForm) setFocus(i int) tea.Cmd {
	f.fields[f.focus].in.Blur()
	f.focus = (i + len(f.fields)) % len(f.fields)
	return f.fields[f.focus].in.Focus()
}

func (f *callForm) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch msg.String() {
	case "esc":
		f.close()
		return nil, true
	case "tab", "down":
		return f.setFocus(f.focus + 1), false
	case "shift+tab", "up":
		return f.setFocus(f.focus - 1), false
	case "ctrl+r", "ctrl+s":
		return f.run(), false
	case "enter":
		if f.focus == len(f.fields)-1 {
			return f.run(), false
		}
		return f.setFocus(f.focus + 1), false
	case "pgdown":
		if f.res != nil {
			f.res.down(max(1, f.resH-1), f.resH)
		}
		return nil, false
	case "pgup":
		if f.res != nil {
			f.res.down(-max(1, f.resH-1), f.resH)
		}
		return nil, false
	}
	var cmd tea.Cmd
	f.fields[f.focus].in, cmd = f.fields[f.focus].in.Update(msg)
	return cmd, false
}

func (f *callForm) wheel(n int) {
	if f.res != nil {
		f.res.down(n, f.resH)
	}
}

func (f *callForm) view(w, h int) ([]string, int, int) {
	th := f.th
	x, y, bw, bh := bigRect(w, h)
	iw := max(1, bw-2)
	var form []string
	form = append(form, indentStyled(th.faint, "", termtext.Sanitize(toolSummary(f.tool)), iw)...)
	if d := strings.TrimSpace(f.tool.Description); d != "" {
		ds := termtext.Wrap(termtext.Sanitize(d), iw)
		form = append(form, ds[:min(3, len(ds))]...)
	}
	form = append(form, "")
	focusFrom, focusTo := 0, 0
	for i, ff := range f.fields {
		if i == f.focus {
			focusFrom = len(form)
		}
		label := th.bold.Render(termtext.Sanitize(ff.name))
		if i == f.focus {
			label = th.selected.Render(termtext.Sanitize(ff.name))
		}
		if ff.required {
			label += th.bad.Render(" *")
		}
		label += th.faint.Render(" (" + orDash(ff.typ) + ")")
		if ff.desc != "" {
			label += th.faint.Render(" " + termtext.Sanitize(ff.desc))
		}
		form = append(form, termtext.Clip(label, iw))
		ff.in.SetWidth(max(1, iw-8))
		form = append(form, "  "+termtext.Clip(ff.in.View(), iw-2))
		if i == f.focus {
			focusTo = len(form) - 1
		}
	}
	if a, err := f.args(); err == nil {
		form = append(form, "", th.faint.Render(termtext.Clip("arguments "+a, iw)))
	} else if f.err == "" {
		form = append(form, "", th.faint.Render(termtext.Clip("arguments not ready: "+err.Error(), iw)))
	}
	if f.err != "" {
		form = append(form, indentStyled(th.bad, iconError+" ", f.err, iw)...)
	}

	avail := max(1, bh-3)
	formH := avail
	var res []string
	if f.running || f.res != nil {
		formH = max(3, avail/2)
		f.resH = max(1, avail-formH-1)
		head := "result"
		st := th.result
		switch {
		case f.running:
			head = "running…"
		case f.resErr != nil:
			head, st = "failed", th.bad
		case f.result != nil && f.result.IsError:
			head, st = "error result", th.bad
		case f.result != nil:
			head = fmt.Sprintf("result · %d ms", f.result.DurationMS)
		}
		res = append(res, st.Render(centerRule(" "+head+" ", iw)))
		if f.res != nil && !f.running {
			res = append(res, f.res.view(iw, f.resH)...)
		}
	}
	var sc scroller
	sc.show(focusFrom, focusTo, len(form), formH)
	lines := append([]string(nil), sc.window(form, formH)...)
	for len(lines) < formH {
		lines = append(lines, "")
	}
	lines = append(lines, res...)
	for len(lines) < avail {
		lines = append(lines, "")
	}
	lines = append(lines[:avail], th.faint.Render(termtext.Clip("tab/↑/↓ field · enter next · ctrl+r run · pgup/pgdn result · esc close", iw)))
	return box(th, "Call "+termtext.Sanitize(f.tool.Name)+" by hand", lines, bw, bh, true, ""), x, y
}
