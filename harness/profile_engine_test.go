package harness

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"skillet/harness/chat"
	"skillet/harness/config"
	"skillet/harness/event"
	"skillet/harness/harnesstest"
	"skillet/harness/profile"
	"skillet/harness/rulebook"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden request bodies under testdata/profiles")

// activateStep is a call of the profile's activation tool for a skill of
// the workspace, with an id of its own so that golden bodies do not
// depend on which tests ran before.
func activateStep(prof, root, skill string) step {
	path := filepath.Join(root, skill, "SKILL.md")
	name, args := rulebook.ToolLoadSkill, fmt.Sprintf(`{"name":%q}`, skill)
	switch prof {
	case "claude-code":
		name, args = "Skill", fmt.Sprintf(`{"skill":%q}`, skill)
	case "codex":
		name, args = "exec_command", fmt.Sprintf(`{"cmd":"cat %s"}`, path)
	case "crush":
		name, args = "view", fmt.Sprintf(`{"file_path":%q}`, path)
	case "opencode":
		name = "skill"
	case "gemini-cli":
		name = "activate_skill"
	}
	return func(*chat.Request) (*chat.Reply, error) {
		return &chat.Reply{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "activate_" + skill, Type: "function",
			Function: chat.FunctionCall{Name: name, Arguments: args}}}}, FinishReason: "tool_calls"}, nil
	}
}

var (
	wallTime = regexp.MustCompile(`Wall time: [0-9.]+ seconds`)
	chunkID  = regexp.MustCompile(`Chunk ID: [0-9a-f]+`)
)

func openProfile(t *testing.T, w *workspace, prof, cfg string) *fixture {
	t.Helper()
	return w.open(cfg, func(o *Options) { o.Profile = prof })
}

// TestProfileGoldenRequests pins the exact body of the two requests of one
// turn under every profile: the catalogue before any activation, then the
// activation's result where the profile puts it.
func TestProfileGoldenRequests(t *testing.T) {
	for _, prof := range profile.Names() {
		t.Run(prof, func(t *testing.T) {
			w := newWorkspace(t)
			basicSkills(w)
			f := openProfile(t, w, prof, "[agent]\nprompt = \"You are a careful analyst.\"\n")
			f.turn("review account ACC-1042 for anomalies", activateStep(prof, w.root, "alpha"), say("done"))
			reqs := f.model.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			var got bytes.Buffer
			for _, r := range reqs {
				b, err := json.MarshalIndent(r, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				got.Write(b)
				got.WriteString("\n")
			}
			text := strings.ReplaceAll(got.String(), w.root, "$WORKSPACE")
			// a command's timing, and the chunk id Codex derives from it,
			// differ from run to run
			text = wallTime.ReplaceAllString(text, "Wall time: $$SECONDS seconds")
			text = chunkID.ReplaceAllString(text, "Chunk ID: $$ID")
			file := filepath.Join("testdata", "profiles", prof+".json")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -run TestProfileGoldenRequests -update to write it)", err)
			}
			if text != string(want) {
				t.Errorf("request bodies differ from %s:\n%s", file, harnesstest.FirstDiff(string(want), text))
			}
		})
	}
}

// TestProfileActivationIsTheModelsLoad checks that an activation is
// recorded as the model's load and counted per profile: Offered (in the
// catalogue with its description), Loaded, Delivered.
func TestProfileActivationIsTheModelsLoad(t *testing.T) {
	for _, prof := range profile.Names()[1:] {
		t.Run(prof, func(t *testing.T) {
			w := newWorkspace(t)
			basicSkills(w)
			f := openProfile(t, w, prof, "")
			end := f.turn("review account ACC-1042", activateStep(prof, w.root, "alpha"), say("done"))
			if !has(end.Loaded, "alpha") || !has(end.Delivered, "alpha") || len(end.Loaded) != 1 {
				t.Fatalf("loaded %v delivered %v, want alpha in both", end.Loaded, end.Delivered)
			}
			for _, n := range []string{"alpha", "beta", "gamma"} {
				if !has(end.Offered, n) {
					t.Errorf("offered %v lacks %s", end.Offered, n)
				}
			}
			loads := f.rec.ofType(event.TypeSkillLoaded)
			if len(loads) != 1 || loads[0].(*event.SkillLoaded).By != event.ByModel {
				t.Fatalf("skill_loaded events %v, want one by the model", loads)
			}
			res := f.lastResult()
			if res.Activated != "alpha" || res.IsError {
				t.Fatalf("activation result %+v", res)
			}
			if names := toolNamesOf(f.model.last()); has(names, rulebook.ToolLoadSkill) {
				t.Errorf("tools %v: load_skill is skillet's", names)
			}
			// the body reaches the model in the second request
			if body, _ := f.model.last().Body(); !strings.Contains(string(body), "Alpha instructions.") {
				t.Errorf("the second request does not carry alpha's body")
			}
			if f.s.State().Profile != prof {
				t.Errorf("state profile %q", f.s.State().Profile)
			}
		})
	}
}

// TestClaudeCodeReminderAndBodyMessage checks Claude Code's placements:
// the listing is a user message before the first user message, and the
// body is a user message after the tool result.
func TestClaudeCodeReminderAndBodyMessage(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := openProfile(t, w, "claude-code", "")
	f.turn("first question", say("ok"))
	f.turn("review account ACC-1042", load("x"), call("Skill", `{"skill":"alpha","args":"ACC-1042"}`), say("done"))
	msgs := f.model.last().Messages
	var roles []string
	for _, m := range msgs {
		roles = append(roles, string(m.Role))
	}
	last := len(msgs) - 1
	if msgs[last].Role != chat.RoleUser || !strings.HasPrefix(msgs[last].Content, "Base directory for this skill: ") || !strings.Contains(msgs[last].Content, "ARGUMENTS: ACC-1042") {
		t.Fatalf("last message %q (roles %v)", msgs[last].Content, roles)
	}
	if msgs[last-1].Role != chat.RoleTool || msgs[last-1].Content != "Launching skill: alpha" {
		t.Fatalf("tool result %q", msgs[last-1].Content)
	}
	rem := -1
	for i, m := range msgs {
		if strings.Contains(m.Content, "The following skills are available for use with the Skill tool:") {
			if rem >= 0 {
				t.Fatal("two reminders")
			}
			rem = i
		}
	}
	// sent once, with the first user message, as Claude Code 2.1.332 does
	if rem < 0 || msgs[rem+1].Content != "first question" || msgs[rem].Role != chat.RoleUser {
		t.Fatalf("reminder at %d, roles %v", rem, roles)
	}
	// load_skill does not exist under claude-code: refused as unknown
	for _, e := range f.results() {
		if e.ToolName == rulebook.ToolLoadSkill && !e.Refused {
			t.Errorf("load_skill ran under claude-code: %+v", e)
		}
	}
	// a second invocation adds only a note, and is not a second delivery
	f.turn("again", call("Skill", `{"skill":"alpha"}`), say("done"))
	msgs = f.model.last().Messages
	if c := msgs[len(msgs)-1].Content; !strings.Contains(c, "already loaded") {
		t.Fatalf("repeat note %q", c)
	}
	if n := strings.Count(mustBody(t, f.model.last()), "Base directory for this skill: "); n != 1 {
		t.Errorf("%d copies of the body after a repeat, want 1", n)
	}
}

func mustBody(t *testing.T, r *chat.Request) string {
	t.Helper()
	b, err := r.Body()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestProfileLifecycleSwitch: with the lifecycle rules on, an LRU of one
// unloads the first skill and its text leaves the history; off (the
// default outside skillet), both stay.
func TestProfileLifecycleSwitch(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprint("lifecycle=", on), func(t *testing.T) {
			w := newWorkspace(t)
			basicSkills(w)
			cfg := "[session]\nmax_loaded_skills = 1\n"
			if on {
				cfg += "lifecycle = true\n"
			}
			f := openProfile(t, w, "gemini-cli", cfg)
			end := f.turn("two skills", activateStep("gemini-cli", w.root, "alpha"), activateStep("gemini-cli", w.root, "beta"), say("done"))
			body := mustBody(t, f.model.last())
			hasAlpha := strings.Contains(body, "Alpha instructions.")
			if hasAlpha == on {
				t.Errorf("alpha's text in the last request: %v, want %v", hasAlpha, !on)
			}
			if !strings.Contains(body, "Beta instructions.") {
				t.Error("beta's text is missing")
			}
			want := []string{"beta", "alpha"}
			if on {
				want = []string{"beta"}
			}
			if got := loadedNames(f.s); strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("loaded %v, want %v", got, want)
			}
			if !has(end.Loaded, "alpha") || !has(end.Loaded, "beta") {
				t.Errorf("turn loaded %v", end.Loaded)
			}
			if f.s.Snapshot().Lifecycle != on {
				t.Errorf("snapshot lifecycle %v", f.s.Snapshot().Lifecycle)
			}
		})
	}
}

// TestProfileBudgetNameOnlyIsNotOffered: a small context window leaves
// Claude Code names only; such skills are not Offered.
func TestProfileBudgetNameOnlyIsNotOffered(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	// 2,000 tokens × 4 × 1 % = 80 characters: one description fits, once
	// the bundled skills are left out
	f := w.open("[session]\nbundled_skills = false\n", func(o *Options) { o.Profile, o.ContextWindow = "claude-code", 2000 })
	end := f.turn("hello", say("hi"))
	if len(end.Offered) != 1 || end.Offered[0] != "alpha" {
		t.Fatalf("offered %v, want only alpha", end.Offered)
	}
	if len(end.LeftOff) != 0 {
		t.Errorf("left off %v: every name is listed", end.LeftOff)
	}
	cat := f.s.Snapshot().Catalogue
	if cat == nil || cat.Budget == nil || cat.Budget.Limit != 80 || cat.Entries[1].State != profile.NameOnly {
		t.Fatalf("catalogue %+v", cat)
	}
	if !strings.Contains(f.rec.warnings(), "descriptions dropped") {
		t.Errorf("no warning about dropped descriptions: %q", f.rec.warnings())
	}
}

// TestProfileRecordedAndReopened: a reopened session composes the same
// request as the live one, under the profile and window its journal
// recorded, whatever the options say.
func TestProfileRecordedAndReopened(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := w.open("", func(o *Options) { o.Profile, o.ContextWindow = "claude-code", 5000 })
	f.turn("review account ACC-1042", activateStep("claude-code", w.root, "alpha"), say("done"))
	starts := f.rec.ofType(event.TypeSessionStart)
	if st := starts[0].(*event.SessionStart); st.Profile != "claude-code" || st.ContextWindow != 5000 || st.ProfileAgent != "Claude Code 2.1.332" {
		t.Fatalf("session_start profile %q window %d agent %q", st.Profile, st.ContextWindow, st.ProfileAgent)
	}
	live, _ := rulebook.ComposeNext(f.s.st, f.s.w.World).Request.Body()
	f.s.Close()
	s, err := Open(f.s.Dir(), Options{Catalog: w.catalog(), Model: &scripted{}, ModelName: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.mu.Lock()
	again, _ := rulebook.ComposeNext(s.st, s.w.World).Request.Body()
	s.mu.Unlock()
	if !bytes.Equal(live, again) {
		t.Fatalf("the reopened session composes differently:\n%s", harnesstest.FirstDiff(string(live), string(again)))
	}
	if v := s.State(); v.Profile != "claude-code" || v.ContextWindow != 5000 {
		t.Fatalf("state %q %d", v.Profile, v.ContextWindow)
	}
	// /clear keeps the profile; /profile switches it
	if err := s.Clear(); err != nil || s.State().Profile != "claude-code" {
		t.Fatalf("clear: %v, profile %q", err, s.State().Profile)
	}
	if err := s.SwitchProfile("opencode"); err != nil || s.State().Profile != "opencode" {
		t.Fatalf("switch: %v, profile %q", err, s.State().Profile)
	}
	if err := s.SwitchProfile("claud"); err == nil || !strings.Contains(err.Error(), "known profiles are skillet, claude-code") {
		t.Fatalf("unknown profile: %v", err)
	}
}

// TestProfileBadInput: unknown profiles list the known ones; windows of
// zero or less and settings that mean nothing under a profile are refused.
func TestProfileBadInput(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	base := Options{Catalog: w.catalog(), Model: &scripted{}}
	for _, tc := range []struct {
		name string
		mod  func(*Options)
		want string
	}{
		{"unknown", func(o *Options) { o.Profile = "cursor" }, `unknown profile "cursor": known profiles are skillet, claude-code, codex, crush, opencode, gemini-cli`},
		{"negative window", func(o *Options) { o.ContextWindow = -1 }, "context window -1"},
		{"lifecycle off under skillet", func(o *Options) {
			o.Config = config.Default()
			_ = o.Config.Session.Set("lifecycle", "false")
		}, "lifecycle=false needs a profile other than skillet"},
		{"freeze under a profile", func(o *Options) {
			o.Config, o.Profile = config.Default(), "crush"
			o.Config.Session.FreezePrompt = true
		}, "freeze_prompt applies to the skillet profile only"},
	} {
		o := base
		tc.mod(&o)
		_, err := New(o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	for _, text := range []string{"profile = \"nope\"\n", "context_window = 0\n", "context_window = -5\n"} {
		if _, err := config.Parse([]byte(text), "/ws/skillet.toml"); err == nil {
			t.Errorf("config %q accepted", text)
		}
	}
	cfg, err := config.Parse([]byte("profile = \"codex\"\ncontext_window = 64000\n[session]\nlifecycle = true\n"), "/ws/skillet.toml")
	if err != nil || cfg.Profile != "codex" || cfg.ContextWindow != 64000 || cfg.Session.Lifecycle == nil || !*cfg.Session.Lifecycle {
		t.Fatalf("config %+v: %v", cfg, err)
	}
}

// TestProfileFileToolStaysInsideSkills: the agent's file tools read the
// skills' folders and the workspace and nothing else, and reading a skill's
// resource is no activation.
func TestProfileFileToolStaysInsideSkills(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	if err := os.WriteFile(filepath.Join(w.root, "alpha", "notes.md"), []byte("alpha notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("do not read"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(w.root, "alpha", "leak.md")); err != nil {
		t.Fatal(err)
	}
	f := openProfile(t, w, "crush", "")
	f.turn("read", call("view", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(w.root, "alpha", "notes.md"))),
		call("view", fmt.Sprintf(`{"file_path":%q}`, secret)),
		call("view", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(w.root, "alpha", "leak.md"))),
		call("view", `{"file_path":"/etc/passwd"}`), say("done"))
	res := f.results()
	if !strings.Contains(res[0].Text, "alpha notes") || res[0].Activated != "" || res[0].IsError {
		t.Errorf("notes: %+v", res[0])
	}
	for _, r := range res[1:4] {
		if !r.IsError || strings.Contains(r.Text, "do not read") || strings.Contains(r.Text, "root:") {
			t.Errorf("read outside the skills and the workspace: %+v", r)
		}
	}
	if len(f.rec.ofType(event.TypeSkillLoaded)) != 0 {
		t.Error("reading a resource is not an activation")
	}
	// with the agent tools off, Codex's activation tool only reads skills
	g := openProfile(t, w, "codex", "[session]\nagent_tools = false\n")
	g.turn("run", call("shell", `{"command":["rm","-rf","x"]}`), say("done"))
	if r := g.lastResult(); !r.IsError || !strings.Contains(r.Text, "runs no commands") {
		t.Errorf("codex shell: %+v", r)
	}
}

// TestCodexMentionInjectsTheSkill: under codex, $name in the user's
// message adds Codex's <skill> message after it; the skill is Delivered,
// not Loaded, and the message stays in the history.
func TestCodexMentionInjectsTheSkill(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	f := openProfile(t, w, "codex", "")
	end := f.turn("use $alpha and $nosuch on ACC-1042, then $alpha again", say("done"))
	if !has(end.Delivered, "alpha") || len(end.Loaded) != 0 || len(end.Delivered) != 1 {
		t.Fatalf("delivered %v loaded %v, want alpha delivered only", end.Delivered, end.Loaded)
	}
	msgs := f.model.last().Messages
	n := len(msgs)
	want := "<skill>\n<name>alpha</name>\n<path>" + filepath.Join(w.root, "alpha", "SKILL.md") + "</path>\n"
	if msgs[n-2].Content != "use $alpha and $nosuch on ACC-1042, then $alpha again" || !strings.HasPrefix(msgs[n-1].Content, want) || !strings.Contains(msgs[n-1].Content, "Alpha instructions.") {
		t.Fatalf("last messages %q / %q", msgs[n-2].Content, msgs[n-1].Content)
	}
	end = f.turn("next", say("ok"))
	if body := mustBody(t, f.model.last()); strings.Count(body, "<name>alpha</name>") != 1 {
		t.Errorf("the injected message should stay in the history once")
	}
	if !has(end.Delivered, "alpha") {
		t.Errorf("delivered %v: the text is still in the request", end.Delivered)
	}
	// the same under another profile is plain text
	g := openProfile(t, w, "gemini-cli", "")
	if end := g.turn("use $alpha", say("ok")); len(end.Delivered) != 0 {
		t.Errorf("gemini-cli delivered %v for a $mention", end.Delivered)
	}
}

// TestProfileListsLaxSkills: a skill whose name is not its folder's is
// invalid to Skillet, yet Claude Code lists it by its folder and loads it
// when asked; Crush leaves it out, and the skillet profile never sees it.
func TestProfileListsLaxSkills(t *testing.T) {
	w := newWorkspace(t)
	basicSkills(w)
	dir := filepath.Join(w.root, "views")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: vercel-views\ndescription: Animate route changes.\n---\nWrap the update in startViewTransition.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := openProfile(t, w, "claude-code", "")
	f.turn("animate the route", func(*chat.Request) (*chat.Reply, error) {
		return &chat.Reply{Message: chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c1", Type: "function",
			Function: chat.FunctionCall{Name: "Skill", Arguments: `{"skill":"views"}`}}}}, FinishReason: "tool_calls"}, nil
	}, say("done"))
	reqs := f.model.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first, _ := json.Marshal(reqs[0])
	if !strings.Contains(string(first), `- views (vercel-views): Animate route changes.`) {
		t.Errorf("claude-code's listing lacks the skill by its folder:\n%s", first)
	}
	second, _ := json.Marshal(reqs[1])
	if !strings.Contains(string(second), "Launching skill: vercel-views") || !strings.Contains(string(second), "Wrap the update in startViewTransition.") {
		t.Errorf("the activation did not deliver the skill:\n%s", second)
	}
	cat := f.s.Snapshot().Catalogue
	var warned bool
	for _, e := range cat.Entries {
		if e.Name == "vercel-views" {
			warned = strings.Contains(e.Warning, `does not match the folder name "views"`)
		}
	}
	if !warned {
		t.Errorf("no spec warning on the entry: %+v", cat.Entries)
	}

	cr := openProfile(t, w, "crush", "")
	cr.turn("hello", say("hi"))
	if body, _ := json.Marshal(cr.model.requests()[0]); strings.Contains(string(body), "vercel-views") {
		t.Errorf("crush lists a skill it rejects")
	}
	sk := w.open("", nil)
	sk.turn("hello", say("hi"))
	if body, _ := json.Marshal(sk.model.requests()[0]); strings.Contains(string(body), "vercel-views") {
		t.Errorf("the skillet profile lists an invalid skill")
	}
}
