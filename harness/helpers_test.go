package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"skillet/harness/chat"
	"skillet/harness/config"
	"skillet/harness/event"
	"skillet/harness/harnesstest"
	"skillet/harness/rulebook"
	"skillet/skills"
)

// step is one scripted model reply, computed from the request it answers.
type step = func(req *chat.Request) (*chat.Reply, error)

// scripted is a model that answers from a script and records every
// request (harnesstest.Model), with the script's steps written as plain
// functions of the request.
type scripted struct {
	harnesstest.Model
	// fallback answers when the script runs out.
	fallback step
	once     sync.Once
}

func (m *scripted) Complete(ctx context.Context, req *chat.Request, on func(chat.StreamEvent)) (*chat.Reply, error) {
	m.once.Do(func() {
		// read at each call: tests set fallback after the session opened
		m.Model.Fallback = func(ctx context.Context, req *chat.Request, on func(chat.StreamEvent)) (*chat.Reply, error) {
			st := m.fallback
			if st == nil {
				st = say("done")
			}
			return harnesstest.Func(st)(ctx, req, on)
		}
	})
	return m.Model.Complete(ctx, req, on)
}

func (m *scripted) add(steps ...step) {
	for _, st := range steps {
		m.Model.Add(harnesstest.Func(st))
	}
}

func (m *scripted) last() *chat.Request { return m.Model.Last() }

func (m *scripted) requests() []*chat.Request { return m.Model.Requests() }

func say(text string) step {
	return func(*chat.Request) (*chat.Reply, error) { return harnesstest.Text(text), nil }
}

// call makes a reply with tool calls, each "name args".
func call(pairs ...string) step {
	return func(*chat.Request) (*chat.Reply, error) { return harnesstest.Calls(pairs...), nil }
}

func load(name string) step { return call(rulebook.ToolLoadSkill, harnesstest.LoadArgs(name)) }

// The fixtures name the engine's tool and config file without importing it.
func TestHarnesstestNamesAreTheEngines(t *testing.T) {
	if harnesstest.LoadSkillTool != rulebook.ToolLoadSkill || harnesstest.ConfigFile != config.File {
		t.Fatalf("harnesstest says %q and %q, the engine %q and %q", harnesstest.LoadSkillTool, harnesstest.ConfigFile, rulebook.ToolLoadSkill, config.File)
	}
}

// workspace is a folder of skills and tools made for one test
// (harnesstest.Workspace).
type workspace struct {
	t    testing.TB
	root string
}

func newWorkspace(t testing.TB) *workspace {
	t.Helper()
	return &workspace{t: t, root: t.TempDir()}
}

func (w *workspace) ws() *harnesstest.Workspace { return &harnesstest.Workspace{T: w.t, Root: w.root} }

// skill writes a skill; extra is YAML added to the frontmatter.
func (w *workspace) skill(name, desc, body, extra string) string {
	w.t.Helper()
	return w.ws().Skill(name, desc, body, extra)
}

// tool writes a workspace tool file.
func (w *workspace) tool(file, yamlText string) {
	w.t.Helper()
	w.ws().Tool(file, yamlText)
}

// responseTool writes a response tool NAME version V answering text.
func (w *workspace) responseTool(name string, version int, response string) {
	w.t.Helper()
	w.ws().ResponseTool(name, version, response)
}

func (w *workspace) catalog() *skills.Catalog {
	w.t.Helper()
	return w.ws().Catalog()
}

// recorder keeps every event a session emits.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
}

func (r *recorder) on(e event.Event) { r.mu.Lock(); r.events = append(r.events, e); r.mu.Unlock() }

func (r *recorder) all() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Event(nil), r.events...)
}

func (r *recorder) ofType(typ string) []event.Event {
	var out []event.Event
	for _, e := range r.all() {
		if e.EventType() == typ {
			out = append(out, e)
		}
	}
	return out
}

func (r *recorder) warnings() string {
	var b strings.Builder
	for _, e := range r.ofType(event.TypeWarning) {
		b.WriteString(e.(*event.Warning).Message + "\n")
	}
	return b.String()
}

type fixture struct {
	t     testing.TB
	ws    *workspace
	model *scripted
	rec   *recorder
	s     *Session
	cfg   *config.Config
}

// open starts a session over the workspace with a config (TOML text, "" for
// none).
func (w *workspace) open(cfgText string, mod func(*Options)) *fixture {
	w.t.Helper()
	cfg := config.Default()
	if cfgText != "" {
		var err error
		cfg, err = config.Parse([]byte(cfgText), filepath.Join(w.root, config.File))
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
func (f *fixture) turn(text string, steps ...step) *event.TurnEnd {
	f.t.Helper()
	f.model.add(steps...)
	end, err := f.s.Turn(context.Background(), text)
	if err != nil {
		f.t.Fatalf("turn %q: %v", text, err)
	}
	return end
}

// results returns the tool result contents of the transcript by call order.
func (f *fixture) results() []rulebook.Entry {
	var out []rulebook.Entry
	for _, e := range f.s.Transcript().Items() {
		if e.Kind == rulebook.EntryTool {
			out = append(out, e)
		}
	}
	return out
}

func (f *fixture) lastResult() rulebook.Entry {
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
