package skills

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/BurntSushi/toml"

	sampleskills "skillet/sample-skills"
)

const samplesDir = "../sample-skills"

var sampleNames = []string{"house-style", "account-review", "fraud-triage", "release-checklist",
	"meeting-notes", "incident-report", "sql-review"}

// samplesCatalog materializes the embedded samples and loads them as the
// built-in root, as the binary does.
func samplesCatalog(t *testing.T) (*Catalog, Root) {
	t.Helper()
	root, err := BuiltinRoot(sampleskills.FS, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := NewCatalog([]Root{root}, nil)
	refresh(t, c)
	return c, root
}

func TestSamples_EmbeddedMatchesDisk(t *testing.T) {
	disk := map[string][]byte{}
	err := filepath.WalkDir(samplesDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(samplesDir, p)
		data, err := os.ReadFile(p)
		disk[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	embedded := map[string][]byte{}
	err = fs.WalkDir(sampleskills.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(sampleskills.FS, p)
		embedded[p] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, data := range disk {
		if e, ok := embedded[p]; !ok {
			t.Errorf("%s is on disk but not embedded (add it to embed.go)", p)
		} else if !bytes.Equal(e, data) {
			t.Errorf("%s differs between disk and the embedded copy", p)
		}
	}
	for p := range embedded {
		if _, ok := disk[p]; !ok {
			t.Errorf("%s is embedded but not on disk", p)
		}
	}
	if len(disk) < 20 {
		t.Errorf("only %d sample files found", len(disk))
	}
}

func TestSamples_ValidWithoutWarnings(t *testing.T) {
	rep, err := Validate(samplesDir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range rep.Skills {
		got = append(got, s.Folder())
		if !s.Valid() || len(s.Warnings) != 0 {
			t.Errorf("%s: problems %v, warnings %v", s.Folder(), s.Problems, s.Warnings)
		}
		if n := strings.Count(s.Body, "\n") + 1; n < 15 || n > 60 {
			t.Errorf("%s: body is %d lines, want 15-60", s.Folder(), n)
		}
		if !strings.Contains(s.Description, "Use ") {
			t.Errorf("%s: the description should say when to use it: %q", s.Folder(), s.Description)
		}
		if s.Version == "" {
			t.Errorf("%s: no metadata.version", s.Folder())
		}
	}
	sorted := slices.Clone(sampleNames)
	slices.Sort(sorted)
	if !slices.Equal(got, sorted) {
		t.Errorf("skills = %q, want %q", got, sorted)
	}
	for _, tf := range rep.ToolFiles {
		if !tf.Valid() {
			t.Errorf("%s: %v", tf.File, tf.Problems)
		}
	}
	if len(rep.ToolFiles) != 9 {
		t.Errorf("tool files = %d", len(rep.ToolFiles))
	}
}

func TestSamples_ToolRefsResolveAndPinsDiffer(t *testing.T) {
	c, root := samplesCatalog(t)
	if got := names(c.All()); len(got) != len(sampleNames) {
		t.Fatalf("all = %q", got)
	}
	if probs := c.ToolProblems(); len(probs) != 0 {
		t.Errorf("tool problems: %v", probs)
	}
	for _, s := range c.All() {
		if !s.Valid() {
			t.Errorf("%s: %v", s.Name, s.Problems)
		}
		for _, ref := range s.Tools {
			def, err := c.Tool(s, ref)
			if err != nil {
				t.Errorf("%s: %v", s.Name, err)
				continue
			}
			if ref.Pinned() && def.Version != ref.Version {
				t.Errorf("%s: %v resolved to %s", s.Name, ref, def.Key())
			}
		}
	}
	pin := func(skill string) (ToolRef, *ToolDef) {
		s := c.Get(skill)
		for _, ref := range s.Tools {
			if ref.Name == "get_account_activity" {
				def, err := c.Tool(s, ref)
				if err != nil {
					t.Fatal(err)
				}
				return ref, def
			}
		}
		t.Fatalf("%s does not list get_account_activity", skill)
		return ToolRef{}, nil
	}
	ar, arDef := pin("account-review")
	ft, ftDef := pin("fraud-triage")
	// Two loaded skills pinning different versions of one tool is the R14
	// conflict the samples are there to show.
	if !ar.Pinned() || !ft.Pinned() || ar.Version == ft.Version || arDef.File == ftDef.File {
		t.Errorf("pins %v (%s) and %v (%s) should differ", ar, arDef.File, ft, ftDef.File)
	}
	if filepath.Dir(arDef.File) != filepath.Join(root.Dir, "tools") {
		t.Errorf("get_account_activity comes from the root's tools/: %s", arDef.File)
	}
	// The command tool is really a command, next to its script.
	rc, err := c.Tool(c.Get("release-checklist"), ToolRef{Name: "run_checks"})
	if err != nil || rc.Kind != KindCommand {
		t.Fatalf("run_checks: %v %v", rc, err)
	}
	if info, err := os.Stat(filepath.Join(filepath.Dir(rc.File), rc.Command[0])); err != nil || info.Mode()&0o111 == 0 {
		t.Errorf("run_checks program not executable after materializing: %v", err)
	}
}

// sampleConfig mirrors the parts of skillet.toml the samples rely on.
type sampleConfig struct {
	SkillsDirs []string `toml:"skills_dirs"`
	Agent      struct {
		Prompt string `toml:"prompt"`
	} `toml:"agent"`
	Approval map[string]string `toml:"approval"`
	Session  map[string]any    `toml:"session"`
	Skills   []struct {
		Name    string `toml:"name"`
		Version string `toml:"version"`
		Preload bool   `toml:"preload"`
	} `toml:"skills"`
}

func TestSamples_ConfigNamesEverySkill(t *testing.T) {
	data, err := fs.ReadFile(sampleskills.FS, "skillet.toml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg sampleConfig
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if und := md.Undecoded(); len(und) != 0 {
		t.Errorf("keys not in the shared format: %v", und)
	}
	if md.IsDefined("model") {
		t.Errorf("the samples must run on the offline demo model: no [model]")
	}
	if strings.TrimSpace(cfg.Agent.Prompt) == "" || cfg.Approval["run_checks"] != "ask" || len(cfg.Session) != 10 {
		t.Errorf("agent/approval/session: %+v", cfg)
	}
	var refs []Ref
	var got []string
	for _, s := range cfg.Skills {
		refs = append(refs, Ref{Name: s.Name, Version: s.Version, Preload: s.Preload})
		got = append(got, s.Name)
	}
	if !slices.Equal(got, sampleNames) {
		t.Errorf("[[skills]] = %q, want %q", got, sampleNames)
	}
	c, _ := samplesCatalog(t)
	sel, err := c.Select(refs)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Enabled) != 7 || len(sel.Preload) != 1 || sel.Preload[0].Name != "house-style" || len(sel.Unnamed) != 0 {
		t.Errorf("selection: enabled %q, preload %q, unnamed %q", names(sel.Enabled), names(sel.Preload), sel.Unnamed)
	}
}

// templateFuncs are stand-ins with the names and arities of the response
// template functions, over in-memory state and store.
func templateFuncs(state, store map[string]any) template.FuncMap {
	empty := func(v any) bool {
		switch x := v.(type) {
		case nil:
			return true
		case string:
			return x == ""
		case []any:
			return len(x) == 0
		}
		return false
	}
	return template.FuncMap{
		"json": func(v any) (string, error) {
			b, err := json.Marshal(v)
			return string(b), err
		},
		"state":    func(k string) any { return state[k] },
		"setState": func(k string, v any) string { state[k] = v; return "" },
		"store":    func(k string) any { return store[k] },
		"setStore": func(k string, v any) string { store[k] = v; return "" },
		"appendStore": func(k string, v any) string {
			list, _ := store[k].([]any)
			store[k] = append(list, v)
			return ""
		},
		"incrStore": func(k string) float64 {
			n, _ := store[k].(float64)
			store[k] = n + 1
			return n + 1
		},
		"default": func(d, v any) any {
			if empty(v) {
				return d
			}
			return v
		},
		"upper": strings.ToUpper,
		"lower": strings.ToLower,
		"join": func(list []any, sep string) string {
			parts := make([]string, len(list))
			for i, x := range list {
				b, _ := json.Marshal(x)
				parts[i] = strings.Trim(string(b), `"`)
			}
			return strings.Join(parts, sep)
		},
	}
}

func TestSamples_ResponseTemplatesRenderJSON(t *testing.T) {
	args := map[string]string{
		"get_account_activity@1": `{"account_id": "ACC-20931"}`,
		"get_account_activity@2": `{"account_id": "ACC-20931", "page": 2}`,
		"flag_transaction@1":     `{"transaction_id": "TX-88412", "reason": "New payee, new device", "evidence": ["EV-30117", "EV-30109"], "severity": "high"}`,
		"score_risk@1":           `{"transaction_id": "TX-88412", "amount": 4850, "signals": ["new_payee", "new_device", "night_time"]}`,
		"save_action_item@1":     `{"owner": "Priya", "task": "Draft the Q4 roadmap", "due": "Friday"}`,
		"draft_summary@1":        `{"text": "Decisions\n- Ship on the 3rd"}`,
		"list_action_items@1":    `{}`,
		"explain_query@1":        `{"sql": "SELECT * FROM orders WHERE status = 'open'"}`,
	}
	c, _ := samplesCatalog(t)
	defs := map[string]*ToolDef{}
	for _, s := range c.All() {
		for _, d := range s.ToolDefs {
			defs[d.Key()] = d
		}
	}
	for _, v := range []int{1, 2} {
		d, err := c.Tool(nil, ToolRef{Name: "get_account_activity", Version: v})
		if err != nil {
			t.Fatal(err)
		}
		defs[d.Key()] = d
	}
	state, store := map[string]any{}, map[string]any{}
	// Order matters: the list reads what the others stored.
	order := []string{"get_account_activity@1", "get_account_activity@2", "flag_transaction@1", "score_risk@1",
		"save_action_item@1", "draft_summary@1", "list_action_items@1", "explain_query@1"}
	outs := map[string]map[string]any{}
	for _, key := range order {
		d := defs[key]
		if d == nil {
			t.Fatalf("no tool %s", key)
		}
		delete(defs, key)
		tmpl, err := template.New(key).Funcs(templateFuncs(state, store)).Parse(d.Response)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		var in map[string]any
		if err := json.Unmarshal([]byte(args[key]), &in); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := tmpl.Execute(&buf, in); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		var out map[string]any
		if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
			t.Fatalf("%s does not answer JSON: %v\n%s", key, err, buf.String())
		}
		outs[key] = out
	}
	for key, d := range defs {
		if d.Kind == KindResponse {
			t.Errorf("response tool %s is not covered by this test", key)
		}
	}
	if outs["score_risk@1"]["band"] != "high" || outs["score_risk@1"]["recommendation"] != "escalate" {
		t.Errorf("score_risk = %v", outs["score_risk@1"])
	}
	if items, _ := outs["list_action_items@1"]["action_items"].([]any); len(items) != 1 || outs["list_action_items@1"]["draft"] == nil {
		t.Errorf("list_action_items = %v", outs["list_action_items@1"])
	}
	if flags, _ := store["flags"].([]any); len(flags) != 1 {
		t.Errorf("flag_transaction stores the flag: %v", store)
	}
	if outs["get_account_activity@2"]["page"] != float64(2) || outs["get_account_activity@1"]["page"] != float64(1) {
		t.Errorf("page defaults: %v %v", outs["get_account_activity@1"]["page"], outs["get_account_activity@2"]["page"])
	}
}

func TestSamples_RunChecksScript(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	c, _ := samplesCatalog(t)
	def, err := c.Tool(c.Get("release-checklist"), ToolRef{Name: "run_checks"})
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(filepath.Dir(def.File), def.Command[0])
	storeFile := filepath.Join(t.TempDir(), "store.json")
	run := func(input string) (map[string]any, string, int) {
		cmd := exec.Command(prog, def.Command[1:]...)
		cmd.Dir = filepath.Dir(def.File)
		cmd.Env = append(os.Environ(), "SKILLET_STORE="+storeFile)
		cmd.Stdin = strings.NewReader(input)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if code == 0 {
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
			}
		}
		return out, stderr.String(), code
	}
	status := func(out map[string]any) map[string]string {
		m := map[string]string{}
		for _, c := range out["checks"].([]any) {
			c := c.(map[string]any)
			m[c["name"].(string)] = c["status"].(string)
		}
		return m
	}
	out, _, code := run(`{"version": "v1.4.0"}`)
	if code != 0 || out["ready"] != true || out["run"] != float64(1) {
		t.Errorf("v1.4.0: code %d, %v", code, out)
	}
	out, _, _ = run(`{"version":"1.5"}`)
	if s := status(out); out["ready"] != false || s["version tag format"] != "fail" || s["changelog entry"] != "fail" || s["tests"] != "pass" {
		t.Errorf("1.5: %v", out)
	}
	out, _, _ = run("{\n  \"version\": \"v0.9.0\"\n}")
	if s := status(out); s["tests"] != "fail" || s["changelog entry"] != "pass" || out["run"] != float64(3) {
		t.Errorf("v0.9.0: %v", out)
	}
	var stored map[string]any
	data, _ := os.ReadFile(storeFile)
	if err := json.Unmarshal(data, &stored); err != nil || stored["runs"] != float64(3) || stored["last_version"] != "v0.9.0" {
		t.Errorf("store = %s (%v)", data, err)
	}
	_, stderr, code := run(`{}`)
	if code != 1 || !strings.Contains(stderr, `missing "version" argument`) {
		t.Errorf("missing version: code %d, stderr %q", code, stderr)
	}
}
