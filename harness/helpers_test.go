package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"skillet/harness/chat"
	"skillet/skills"
)

// step is one scripted model reply, computed from the request it answers.
type step func(req *chat.Request) (*chat.Reply, error)

// scripted is a model that answers from a script and records every
// request, so tests can check exactly what the model was given.
type scripted struct {
	mu    sync.Mutex
	steps []step
	reqs  []*chat.Request
	// fallback answers when the script runs out.
	fallback step
}

func (m *scripted) Complete(ctx context.Context, req *chat.Request, on func(chat.StreamEvent)) (*chat.Reply, error) {
	// keep a deep copy: the engine may reuse slices
	b, _ := req.Body()
	var cp chat.Request
	_ = json.Unmarshal(b, &cp)
	m.mu.Lock()
	m.reqs = append(m.reqs, &cp)
	var st step
	if len(m.steps) > 0 {
		st, m.steps = m.steps[0], m.steps[1:]
	} else {
		st = m.fallback
	}
	m.mu.Unlock()
	if st == nil {
		st = say("done")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := st(&cp)
	if r != nil && on != nil && r.Message.Content != "" {
		on(chat.StreamEvent{Kind: chat.EventText, Text: r.Message.Content})
	}
	return r, err
}

func (m *scripted) add(steps ...step) {
	m.mu.Lock()
	m.steps = append(m.steps, steps...)
	m.mu.Unlock()
}

func (m *scripted) last() *chat.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reqs[len(m.reqs)-1]
}

func (m *scripted) requests() []*chat.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*chat.Request(nil), m.reqs...)
}

func say(text string) step {
	return func(*chat.Request) (*chat.Reply, error) {
		return &chat.Reply{Message: chat.Message{Role: chat.RoleAssistant, Content: text}, FinishReason: "stop"}, nil
	}
}

var callSeq int

// call makes a reply with tool calls, each "name args".
func call(pairs ...string) step {
	return func(*chat.Request) (*chat.Reply, error) {
		r := &chat.Reply{Message: chat.Message{Role: chat.RoleAssistant}, FinishReason: "tool_calls"}
		for i := 0; i+1 < len(pairs); i += 2 {
			callSeq++
			r.Message.ToolCalls = append(r.Message.ToolCalls, chat.ToolCall{ID: fmt.Sprintf("c%d", callSeq), Type: "function", Function: chat.FunctionCall{Name: pairs[i], Arguments: pairs[i+1]}})
		}
		return r, nil
	}
}

func load(name string) step { return call(ToolLoadSkill, fmt.Sprintf(`{"name":%q}`, name)) }

// workspace is a folder of skills and tools made for one test.
type workspace struct {
	t    testing.TB
	root string
}

func newWorkspace(t testing.TB) *workspace {
	t.Helper()
	return &workspace{t: t, root: t.TempDir()}
}

// skill writes a skill; extra is YAML added to the frontmatter.
func (w *workspace) skill(name, desc, body, extra string) string {
	w.t.Helper()
	dir := filepath.Join(w.root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	text := fmt.Sprintf("---\nname: %s\ndescription: %s\n%s---\n%s\n", name, desc, extra, body)
	p := filepath.Join(dir, "SKILL.md")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
	// make sure a rewrite within the same clock tick still looks changed
	future := time.Now().Add(time.Duration(len(text)) * time.Millisecond)
	_ = os.Chtimes(p, future, future)
	return dir
}

// tool writes a workspace tool file.
func (w *workspace) tool(file, yamlText string) {
	w.t.Helper()
	dir := filepath.Join(w.root, "tools")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(yamlText), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// responseTool writes a response tool NAME version V answering text.
func (w *workspace) responseTool(name string, version int, response string) {
	w.tool(fmt.Sprintf("%s.v%d.yaml", name, version), fmt.Sprintf("name: %s\nversion: %d\ndescription: The %s tool.\nparameters:\n  type: object\n  properties:\n    q: {type: string}\nresponse: %q\n", name, version, name, response))
}

func (w *workspace) catalog() *skills.Catalog {
	w.t.Helper()
	c := skills.NewCatalog([]skills.Root{{Dir: w.root, Label: "test"}}, nil)
	if _, err := c.Refresh(); err != nil {
		w.t.Fatal(err)
	}
	return c
}

// recorder keeps every event a session emits.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) on(e Event) { r.mu.Lock(); r.events = append(r.events, e); r.mu.Unlock() }

func (r *recorder) all() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

func (r *recorder) ofType(typ string) []Event {
	var out []Event
	for _, e := range r.all() {
		if e.EventType() == typ {
			out = append(out, e)
		}
	}
	return out
}

func (r *recorder) warnings() string {
	var b strings.Builder
	for _, e := range r.ofType(TypeWarning) {
		b.WriteString(e.(*Warning).Message + "\n")
	}
	return b.String()
}

type fixture struct {
	t     testing.TB
	ws    *workspace
	model *scripted
	rec   *recorder
	s     *Session
	cfg   *Config
}

// open starts a session over the workspace with a config (TOML text, "" for
// none).
func (w *workspace) open(cfgText string, mod func(*Options)) *fixture {
	w.t.Helper()
	cfg := DefaultConfig()
	if cfgText != "" {
		var err error
		cfg, err = ParseConfig([]byte(cfgText), filepath.Join(w.root, ConfigFile))
		if err != nil {
			w.t.Fatal(err)
		}
	}
	f := &fixture{t: w.t, ws: w, model: &scripted{}, rec: &recorder{}, cfg: cfg}
	seq := 0
	opts := Options{Config: cfg, Catalog: w.catalog(), Model: f.model, ModelName: "test-model", Dir: w.t.TempDir(), OnEvent: f.rec.on,
		NewID: func() string { seq++; return fmt.Sprintf("s%d", seq) }}
	if mod != nil {
		mod(&opts)
	}
	s, err := New(opts)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { s.Close() })
	f.s = s
	return f
}

// turn runs a turn with a script and fails the test on a model error.
func (f *fixture) turn(text string, steps ...step) *TurnEnd {
	f.t.Helper()
	f.model.add(steps...)
	end, err := f.s.Turn(context.Background(), text)
	if err != nil {
		f.t.Fatalf("turn %q: %v", text, err)
	}
	return end
}

// results returns the tool result contents of the transcript by call order.
func (f *fixture) results() []Entry {
	var out []Entry
	for _, e := range f.s.Transcript() {
		if e.Kind == EntryTool {
			out = append(out, e)
		}
	}
	return out
}

func (f *fixture) lastResult() Entry {
	r := f.results()
	if len(r) == 0 {
		f.t.Fatal("no tool results")
	}
	return r[len(r)-1]
}

func loadedNames(s *Session) []string {
	var out []string
	for _, l := range s.Snapshot().Loaded {
		out = append(out, l.Name)
	}
	return out
}

func system(req *chat.Request) string {
	if len(req.Messages) > 0 && req.Messages[0].Role == chat.RoleSystem {
		return req.Messages[0].Content
	}
	return ""
}

func toolNamesOf(req *chat.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

func has(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// basicSkills writes three plain skills with one tool each.
func basicSkills(w *workspace) {
	w.skill("alpha", "Alpha reviews accounts for anomalies.", "Alpha instructions.\nSecond alpha line.", "tools:\n  - name: alpha_tool\n")
	w.skill("beta", "Beta drafts release notes.", "Beta instructions.", "tools:\n  - name: beta_tool\n")
	w.skill("gamma", "Gamma writes incident reports.", "Gamma instructions.", "tools:\n  - name: gamma_tool\n")
	w.responseTool("alpha_tool", 1, "alpha says {{.q}}")
	w.responseTool("beta_tool", 1, "beta says {{.q}}")
	w.responseTool("gamma_tool", 1, "gamma says {{.q}}")
}

func readFileErr(p string) ([]byte, error) { return os.ReadFile(p) }

type ctxT = context.Context

type (
	chatRequest = chat.Request
	chatReply   = chat.Reply
)

var errBoom = fmt.Errorf("model API said 500: boom")

func ctxBG() context.Context { return context.Background() }
