package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"

	"skillet/skills"
)

// printFunc is added at the end of every printing action of a response
// template so that a missing argument prints as nothing rather than
// "<no value>", and JSON numbers print as written (1000000, not 1e+06).
const printFunc = "_print"

// tmplKey identifies a parsed template: one tool version from one file.
type tmplKey struct {
	file    string
	name    string
	version int
}

// cachedTemplate is a parsed response template and the text it came from,
// so an edited file is parsed again.
type cachedTemplate struct {
	text string
	tmpl *template.Template
	err  error
}

// templateFuncNames are the functions response templates may call. Parsing
// needs their names; each call binds them to its own state and store.
var templateFuncNames = []string{
	"json", "state", "setState", "store", "setStore", "appendStore", "incrStore",
	"default", "upper", "lower", "join", printFunc,
}

// template returns the parsed template of a response tool, parsing it once
// per file, version and text.
func (r *Runner) template(def *skills.ToolDef) (*template.Template, error) {
	key := tmplKey{file: def.File, name: def.Name, version: def.Version}
	r.tmplMu.Lock()
	defer r.tmplMu.Unlock()
	if c, ok := r.tmpls[key]; ok && c.text == def.Response {
		return c.tmpl, c.err
	}
	t, err := parseResponse(def.Key(), def.Response)
	r.tmpls[key] = &cachedTemplate{text: def.Response, tmpl: t, err: err}
	return t, err
}

func parseResponse(name, text string) (*template.Template, error) {
	placeholders := template.FuncMap{}
	for _, n := range templateFuncNames {
		placeholders[n] = func(...any) any { return nil }
	}
	t, err := template.New(name).Option("missingkey=zero").Funcs(placeholders).Parse(text)
	if err != nil {
		return nil, err
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			wrapPrints(tt.Tree.Root)
		}
	}
	return t, nil
}

// wrapPrints appends printFunc to every action that prints its value.
func wrapPrints(n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			wrapPrints(c)
		}
	case *parse.ActionNode:
		if n.Pipe != nil && len(n.Pipe.Decl) == 0 {
			n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{
				NodeType: parse.NodeCommand,
				Pos:      n.Pos,
				Args:     []parse.Node{parse.NewIdentifier(printFunc).SetPos(n.Pos)},
			})
		}
	case *parse.IfNode:
		wrapPrints(n.List)
		wrapPrints(n.ElseList)
	case *parse.RangeNode:
		wrapPrints(n.List)
		wrapPrints(n.ElseList)
	case *parse.WithNode:
		wrapPrints(n.List)
		wrapPrints(n.ElseList)
	}
}

// runResponse answers a response tool from its template (DESIGN §3).
func (r *Runner) runResponse(call Call) Result {
	def := call.Def
	label := toolLabel(def)
	t, err := r.template(def)
	if err != nil {
		return errorResult("tool %s: bad response template: %v", label, err)
	}
	var data any
	if err := json.Unmarshal(argsOrEmpty(call.Args), &data); err != nil {
		return errorResult("tool %s: arguments are not valid JSON: %v", label, err)
	}

	unlock := r.lockFiles(call.StateFile, call.StoreFile)
	defer unlock()
	st := &renderState{stateFile: call.StateFile, storeFile: call.StoreFile}
	if st.state, err = readKV(call.StateFile); err != nil {
		return errorResult("tool %s: state: %v", label, err)
	}
	if st.store, err = readKV(call.StoreFile); err != nil {
		return errorResult("tool %s: store: %v", label, err)
	}

	run, err := t.Clone()
	if err != nil {
		return errorResult("tool %s: response template: %v", label, err)
	}
	run.Funcs(st.funcs())
	out := &headBuffer{max: r.maxOutput(def)}
	if err := run.Execute(out, data); err != nil {
		// A failed call changes nothing: state and store stay as they were.
		return errorResult("tool %s: response template failed: %v", label, err)
	}
	if st.stateDirty {
		if err := WriteJSONObject(call.StateFile, st.state); err != nil {
			return errorResult("tool %s: save state: %v", label, err)
		}
	}
	if st.storeDirty {
		if err := WriteJSONObject(call.StoreFile, st.store); err != nil {
			return errorResult("tool %s: save store: %v", label, err)
		}
	}
	return Result{Content: out.String()}
}

func readKV(path string) (map[string]any, error) {
	if path == "" {
		return map[string]any{}, nil
	}
	return ReadJSONObject(path)
}

// lockFiles takes the in-process locks of the given files, in a fixed order
// so two calls never wait on each other crosswise.
func (r *Runner) lockFiles(paths ...string) (unlock func()) {
	var keys []string
	for _, p := range paths {
		if p != "" && !slices.Contains(keys, p) {
			keys = append(keys, p)
		}
	}
	slices.Sort(keys)
	var held []*sync.Mutex
	for _, k := range keys {
		m, _ := r.fileLocks.LoadOrStore(k, &sync.Mutex{})
		mu := m.(*sync.Mutex)
		mu.Lock()
		held = append(held, mu)
	}
	return func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i].Unlock()
		}
	}
}

// renderState is one call's view of its skill's state and store.
type renderState struct {
	stateFile, storeFile   string
	state, store           map[string]any
	stateDirty, storeDirty bool
}

func (s *renderState) funcs() template.FuncMap {
	return template.FuncMap{
		"json":  toJSON,
		"state": func(k string) any { return s.state[k] },
		"setState": func(k string, v any) (string, error) {
			if s.stateFile == "" {
				return "", fmt.Errorf("setState %q: this tool has no skill state (it is not a skill's tool)", k)
			}
			s.state[k] = v
			s.stateDirty = true
			return "", nil
		},
		"store": func(k string) any { return s.store[k] },
		"setStore": func(k string, v any) (string, error) {
			if err := s.canStore("setStore", k); err != nil {
				return "", err
			}
			s.store[k] = v
			s.storeDirty = true
			return "", nil
		},
		"appendStore": func(k string, v any) (string, error) {
			if err := s.canStore("appendStore", k); err != nil {
				return "", err
			}
			var list []any
			switch old := s.store[k].(type) {
			case nil:
			case []any:
				list = old
			default:
				return "", fmt.Errorf("appendStore %q: the store holds %s there, not a list", k, aJSONKind(old))
			}
			s.store[k] = append(list, v)
			s.storeDirty = true
			return "", nil
		},
		"incrStore": func(k string) (any, error) {
			if err := s.canStore("incrStore", k); err != nil {
				return nil, err
			}
			n, ok := toFloat(s.store[k])
			if !ok {
				return nil, fmt.Errorf("incrStore %q: the store holds %s there, not a number", k, aJSONKind(s.store[k]))
			}
			n++
			s.store[k] = n
			s.storeDirty = true
			if n == float64(int64(n)) {
				return int64(n), nil
			}
			return n, nil
		},
		"default": func(d, v any) any {
			if isEmpty(v) {
				return d
			}
			return v
		},
		"upper": func(v any) string { return strings.ToUpper(toText(v)) },
		"lower": func(v any) string { return strings.ToLower(toText(v)) },
		"join":  join,
		printFunc: func(v any) any {
			switch v := v.(type) {
			case nil:
				return ""
			case float64:
				return formatFloat(v)
			}
			return v
		},
	}
}

func (s *renderState) canStore(fn, k string) error {
	if s.storeFile == "" {
		return fmt.Errorf("%s %q: this tool has no skill store (it is not a skill's tool)", fn, k)
	}
	return nil
}

func toJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("json: %w", err)
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case nil:
		return 0, true
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// toText is how upper, lower and join see a value: missing is empty, JSON
// numbers read as written.
func toText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return formatFloat(v)
	}
	return fmt.Sprint(v)
}

// isEmpty says whether default should replace v: missing, null, "", an
// empty list or object. false and 0 are values, not gaps.
func isEmpty(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return rv.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

func join(list any, sep string) (string, error) {
	switch l := list.(type) {
	case nil:
		return "", nil
	case []string:
		return strings.Join(l, sep), nil
	case []any:
		parts := make([]string, len(l))
		for i, v := range l {
			parts[i] = toText(v)
		}
		return strings.Join(parts, sep), nil
	case string:
		return l, nil
	}
	return "", fmt.Errorf("join: want a list, got %s", aJSONKind(list))
}
