package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"skillet/skills"
)

func responseTool(name, tmpl string) *skills.ToolDef {
	return &skills.ToolDef{Name: name, Version: 1, Kind: skills.KindResponse, Response: tmpl, File: "/skills/demo/tools/" + name + ".yaml"}
}

func runResponseCall(t *testing.T, r *Runner, def *skills.ToolDef, args string, state, store string) Result {
	t.Helper()
	return r.Run(context.Background(), Call{ID: "c", Def: def, Args: json.RawMessage(args), StateFile: state, StoreFile: store})
}

func TestResponse_RendersArgumentsWithFunctions(t *testing.T) {
	r := NewRunner(Options{})
	def := responseTool("weather",
		`{"city": {{json .city}}, "units": {{json (default "metric" .units)}}, "shout": "{{upper .city}}", "quiet": "{{lower .city}}", "tags": "{{join .tags ", "}}"}`)
	res := runResponseCall(t, r, def, `{"city":"Oslo <N>","tags":["cold","dark"]}`, "", "")
	if res.IsError {
		t.Fatalf("unexpected error: %s", res.Content)
	}
	want := `{"city": "Oslo <N>", "units": "metric", "shout": "OSLO <N>", "quiet": "oslo <n>", "tags": "cold, dark"}`
	if res.Content != want {
		t.Fatalf("got  %s\nwant %s", res.Content, want)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(res.Content), &v); err != nil {
		t.Fatalf("rendered JSON does not parse: %v", err)
	}
}

func TestResponse_MissingOptionalArgumentRendersEmpty(t *testing.T) {
	r := NewRunner(Options{})
	def := responseTool("greet", `Hello {{.name}}{{if .title}}, {{.title}}{{end}}! [{{.nick}}] [{{upper .nick}}] {{if eq .mode "x"}}x{{end}}`)
	res := runResponseCall(t, r, def, `{"name":"Ada"}`, "", "")
	if res.IsError {
		t.Fatalf("unexpected error: %s", res.Content)
	}
	if want := "Hello Ada! [] [] "; res.Content != want {
		t.Fatalf("got %q, want %q", res.Content, want)
	}
}

func TestResponse_NumbersPrintAsWritten(t *testing.T) {
	r := NewRunner(Options{})
	def := responseTool("n", `{{.big}} {{.frac}} {{json .big}} {{join .list "+"}}`)
	res := runResponseCall(t, r, def, `{"big":1000000,"frac":0.25,"list":[1,2500000]}`, "", "")
	if want := "1000000 0.25 1000000 1+2500000"; res.Content != want {
		t.Fatalf("got %q, want %q", res.Content, want)
	}
}

func TestResponse_DefaultKeepsFalseAndZero(t *testing.T) {
	r := NewRunner(Options{})
	def := responseTool("d", `{{default "x" .a}} {{default "x" .b}} {{default "x" .c}} {{default "x" .d}} {{default "x" .e}}`)
	res := runResponseCall(t, r, def, `{"a":false,"b":0,"c":"","d":[],"e":null}`, "", "")
	if want := "false 0 x x x"; res.Content != want {
		t.Fatalf("got %q, want %q", res.Content, want)
	}
}

func TestR26_ResponseStateAndStorePersistAcrossCalls(t *testing.T) {
	dir := t.TempDir()
	state, store := filepath.Join(dir, "state.json"), filepath.Join(dir, "store.json")
	r := NewRunner(Options{})
	def := responseTool("visit",
		`{{setState "last" .page}}{{appendStore "pages" .page}}visit {{incrStore "visits"}}; previous state {{json (state "prev")}}{{setState "prev" .page}}`)

	for i, page := range []string{"home", "about", "docs"} {
		res := runResponseCall(t, r, def, `{"page":"`+page+`"}`, state, store)
		if res.IsError {
			t.Fatalf("call %d: %s", i, res.Content)
		}
		wantPrefix := "visit " + []string{"1", "2", "3"}[i]
		if !strings.HasPrefix(res.Content, wantPrefix) {
			t.Fatalf("call %d: %q should start %q", i, res.Content, wantPrefix)
		}
	}
	gotState, err := ReadJSONObject(state)
	if err != nil {
		t.Fatal(err)
	}
	if gotState["last"] != "docs" || gotState["prev"] != "docs" {
		t.Errorf("state = %v", gotState)
	}
	gotStore, err := ReadJSONObject(store)
	if err != nil {
		t.Fatal(err)
	}
	if gotStore["visits"] != float64(3) {
		t.Errorf("visits = %v, want 3", gotStore["visits"])
	}
	pages, _ := json.Marshal(gotStore["pages"])
	if string(pages) != `["home","about","docs"]` {
		t.Errorf("pages = %s", pages)
	}

	// A template that only reads sees what earlier calls wrote.
	reader := responseTool("read", `{{store "visits"}} {{state "last"}} {{join (store "pages") ","}}`)
	res := runResponseCall(t, r, reader, `{}`, state, store)
	if want := "3 docs home,about,docs"; res.Content != want {
		t.Fatalf("got %q, want %q", res.Content, want)
	}
}

func TestR26_ResponseWritesOnlyWhenChanged(t *testing.T) {
	dir := t.TempDir()
	state, store := filepath.Join(dir, "state.json"), filepath.Join(dir, "store.json")
	r := NewRunner(Options{})
	res := runResponseCall(t, r, responseTool("ro", `[{{store "x"}}{{state "y"}}]`), `{}`, state, store)
	if res.IsError || res.Content != "[]" {
		t.Fatalf("got %+v", res)
	}
	for _, p := range []string{state, store} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s was written by a template that changed nothing", p)
		}
	}
}

func TestR26_FailedTemplateChangesNothing(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store.json")
	if err := WriteJSONObject(store, map[string]any{"n": 5}); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(Options{})
	def := responseTool("broken", `{{incrStore "n"}}{{join .notalist ","}}`)
	res := runResponseCall(t, r, def, `{"notalist":7}`, "", store)
	if !res.IsError || !strings.Contains(res.Content, "broken@1") || !strings.Contains(res.Content, "join: want a list") {
		t.Fatalf("want an error naming the tool and the problem, got %+v", res)
	}
	got, _ := ReadJSONObject(store)
	if got["n"] != float64(5) {
		t.Fatalf("store changed by a failed call: %v", got)
	}
}

func TestResponse_TemplateErrorsNameToolAndProblem(t *testing.T) {
	r := NewRunner(Options{})
	cases := map[string]struct{ tmpl, args, want string }{
		"parse":         {`{{.a`, `{}`, "bad response template"},
		"unknown func":  {`{{frobnicate .a}}`, `{}`, `function "frobnicate" not defined`},
		"nested absent": {`{{.a.b}}`, `{}`, "nil pointer evaluating"},
		"store kind":    {`{{setStore "k" "text"}}{{incrStore "k"}}`, `{}`, "not a number"},
		"append kind":   {`{{setStore "k" 1}}{{appendStore "k" 2}}`, `{}`, "not a list"},
	}
	store := filepath.Join(t.TempDir(), "store.json")
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			res := runResponseCall(t, r, responseTool("t_"+strings.ReplaceAll(name, " ", "_"), c.tmpl), c.args, "", store)
			if !res.IsError {
				t.Fatalf("want an error, got %q", res.Content)
			}
			if !strings.Contains(res.Content, "t_"+strings.ReplaceAll(name, " ", "_")+"@1") || !strings.Contains(res.Content, c.want) {
				t.Fatalf("%q should name the tool and say %q", res.Content, c.want)
			}
		})
	}
}

func TestResponse_AgentToolHasNoStateOrStore(t *testing.T) {
	r := NewRunner(Options{})
	for _, tmpl := range []string{`{{setState "a" 1}}`, `{{setStore "a" 1}}`, `{{appendStore "a" 1}}`, `{{incrStore "a"}}`} {
		res := runResponseCall(t, r, responseTool("agent", tmpl), `{}`, "", "")
		if !res.IsError || !strings.Contains(res.Content, "not a skill's tool") {
			t.Errorf("%s: want an error saying there is no state, got %+v", tmpl, res)
		}
	}
	// Reading is fine: there is nothing to read.
	res := runResponseCall(t, r, responseTool("agent", `[{{state "a"}}{{store "b"}}]`), `{}`, "", "")
	if res.IsError || res.Content != "[]" {
		t.Fatalf("got %+v", res)
	}
}

func TestResponse_CorruptStoreIsAToolError(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store.json")
	if err := os.WriteFile(store, []byte(`[1,2]`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(Options{})
	res := runResponseCall(t, r, responseTool("x", `ok`), `{}`, "", store)
	if !res.IsError || !strings.Contains(res.Content, "holds an array, want a JSON object") {
		t.Fatalf("got %+v", res)
	}
}

func TestResponse_TemplateParsedOncePerVersion(t *testing.T) {
	r := NewRunner(Options{})
	def := responseTool("cached", `v1 {{.a}}`)
	runResponseCall(t, r, def, `{"a":1}`, "", "")
	first, _ := r.template(def)
	runResponseCall(t, r, def, `{"a":2}`, "", "")
	second, _ := r.template(def)
	if first == nil || first != second {
		t.Fatalf("template parsed again for the same file and version")
	}
	// An edited file (same version) is parsed again.
	edited := *def
	edited.Response = `v2 {{.a}}`
	res := runResponseCall(t, r, &edited, `{"a":3}`, "", "")
	if res.Content != "v2 3" {
		t.Fatalf("edited template not used: %q", res.Content)
	}
}

func TestResponse_ConcurrentCallsDoNotLoseStoreUpdates(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store.json")
	r := NewRunner(Options{})
	def := responseTool("count", `{{incrStore "n"}}`)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if res := runResponseCall(t, r, def, `{}`, "", store); res.IsError {
				t.Errorf("call failed: %s", res.Content)
			}
		})
	}
	wg.Wait()
	got, _ := ReadJSONObject(store)
	if got["n"] != float64(20) {
		t.Fatalf("n = %v after 20 concurrent increments", got["n"])
	}
}

func TestResponse_OutputIsCapped(t *testing.T) {
	r := NewRunner(Options{DefaultMaxOutput: 50})
	res := runResponseCall(t, r, responseTool("big", `{{range .items}}{{.}}{{end}}`), `{"items":[`+strings.Repeat(`"0123456789",`, 20)+`"end"]}`, "", "")
	body, _, ok := strings.Cut(res.Content, "\n[output cut: ")
	if !ok || len(body) != 50 {
		t.Fatalf("want 50 bytes and a note, got %q", res.Content)
	}
}

func TestRun_BadCallsBecomeErrors(t *testing.T) {
	r := NewRunner(Options{})
	if res := r.Run(context.Background(), Call{ID: "c9"}); !res.IsError || !strings.Contains(res.Content, "c9") {
		t.Errorf("nil definition: %+v", res)
	}
	res := r.Run(context.Background(), Call{Def: &skills.ToolDef{Name: "odd", Version: 1, Kind: "weird"}})
	if !res.IsError || !strings.Contains(res.Content, `unknown kind "weird"`) {
		t.Errorf("unknown kind: %+v", res)
	}
	res = r.Run(context.Background(), Call{Def: responseTool("x", "ok"), Args: json.RawMessage(`{not json`)})
	if !res.IsError || !strings.Contains(res.Content, "not valid JSON") {
		t.Errorf("bad arguments: %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := r.Run(ctx, Call{Def: responseTool("x", "ok")}); !res.IsError {
		t.Errorf("cancelled context: %+v", res)
	}
}

func BenchmarkResponseTool(b *testing.B) {
	r := NewRunner(Options{})
	dir := b.TempDir()
	def := responseTool("bench", `{"city": {{json .city}}, "n": {{incrStore "n"}}, "units": {{json (default "metric" .units)}}}`)
	call := Call{Def: def, Args: json.RawMessage(`{"city":"Oslo"}`), StoreFile: filepath.Join(dir, "store.json")}
	for b.Loop() {
		if res := r.Run(context.Background(), call); res.IsError {
			b.Fatal(res.Content)
		}
	}
}
