package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"skillet/harness"
	"skillet/harness/profile"
	"skillet/skills"
)

// claudeCodeVersion is the Claude Code release the claude-code profile
// reproduces; .ci/run installs it from npm.
const claudeCodeVersion = "2.1.332"

// claudeBinary is the claude binary of the npm install .ci/run makes
// ($SKILLET_AGENTS_NODE_MODULES), or "" with the reason the test skips.
func claudeBinary(t *testing.T) string {
	t.Helper()
	mods := os.Getenv("SKILLET_AGENTS_NODE_MODULES")
	if mods == "" {
		t.Skipf("SKILLET_AGENTS_NODE_MODULES is not set: .ci/run installs @anthropic-ai/claude-code@%s from npm and sets it", claudeCodeVersion)
	}
	bin := filepath.Join(mods, ".bin", "claude")
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Skipf("%s does not run: %v", bin, err)
	}
	if !strings.HasPrefix(string(out), claudeCodeVersion+" ") {
		t.Fatalf("%s is %q, want Claude Code %s", bin, strings.TrimSpace(string(out)), claudeCodeVersion)
	}
	return bin
}

// anthropicSSE is a whole streamed reply of one word, so that the agent
// ends its turn at once.
const anthropicSSE = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":1}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

// claudeListing runs Claude Code once in a project whose .claude/skills is
// skillsDir, against a loopback endpoint that records the requests, and
// returns the skill listing it sent: the entries after the header, up to
// the end of the reminder.
func claudeListing(t *testing.T, bin, skillsDir, model string) string {
	t.Helper()
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		if !strings.HasPrefix(r.URL.Path, "/v1/messages") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, anthropicSSE)
	}))
	defer srv.Close()
	tmp := t.TempDir()
	proj := filepath.Join(tmp, "project")
	if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(skillsDir, filepath.Join(proj, ".claude", "skills")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", "hello", "--model", model, "--max-turns", "1")
	cmd.Dir = proj
	home := filepath.Join(tmp, "home")
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=sk-conformance-test",
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("claude did not finish: %s", out)
	}
	_ = err // the exit status does not matter: the request does
	mu.Lock()
	defer mu.Unlock()
	const header = "The following skills are available for use with the Skill tool:\n\n"
	for _, b := range bodies {
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal([]byte(b), &req) != nil {
			continue
		}
		for _, m := range req.Messages {
			var blocks []struct{ Text string }
			if json.Unmarshal(m.Content, &blocks) != nil {
				var s string
				if json.Unmarshal(m.Content, &s) != nil {
					continue
				}
				blocks = append(blocks, struct{ Text string }{s})
			}
			for _, bl := range blocks {
				if i := strings.Index(bl.Text, header); i >= 0 {
					rest := bl.Text[i+len(header):]
					if j := strings.Index(rest, "\n</system-reminder>"); j >= 0 {
						rest = rest[:j]
					}
					return rest
				}
			}
		}
	}
	t.Fatalf("no request of the %d recorded holds the skill listing; claude said: %s", len(bodies), out)
	return ""
}

// skilletListing is the claude-code profile's listing of the skills in dir
// for model: the entries after the header.
func skilletListing(t *testing.T, dir, model string) string {
	t.Helper()
	c := skills.NewCatalog([]skills.Root{{Dir: dir}}, nil)
	if _, err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	var in []profile.Skill
	for _, sk := range c.All() {
		if !sk.Readable() {
			t.Fatalf("%s: %v", sk.Folder(), sk.Problems)
		}
		in = append(in, harness.ProfileSkill(sk))
	}
	p, _ := profile.Get("claude-code")
	cat := p.Catalogue(profile.Input{Skills: in, Model: model})
	text := cat.Blocks[0].Text
	text = strings.TrimSuffix(strings.SplitN(text, "\n\n", 2)[1], "\n</system-reminder>")
	return text
}

// conformSkill writes one skill folder.
func conformSkill(t *testing.T, root, folder, front string) {
	t.Helper()
	dir := filepath.Join(root, folder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\n"+front+"\n---\nThe instructions.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// compareListings checks Skillet's listing against the agent's: the user
// skills' lines byte for byte, the bundled skills' by name and length
// (their text is the agent's and Skillet has placeholders).
func compareListings(t *testing.T, agent, ours string, bundled map[string]bool) {
	t.Helper()
	a, o := strings.Split(entries(agent), "\x00"), strings.Split(entries(ours), "\x00")
	if len(a) != len(o) {
		t.Fatalf("the agent listed %d entries, Skillet %d:\nagent:\n%s\nskillet:\n%s", len(a), len(o), agent, ours)
	}
	for i := range a {
		name := entryName(a[i])
		if bundled[name] {
			if entryName(o[i]) != name || len([]rune(a[i])) != len([]rune(o[i])) {
				t.Errorf("entry %d: the agent's bundled %s is %d characters, Skillet's %q %d", i+1, name, len([]rune(a[i])), entryName(o[i]), len([]rune(o[i])))
			}
			continue
		}
		if a[i] != o[i] {
			t.Errorf("entry %d differs:\nagent:   %q (%d characters)\nskillet: %q (%d characters)", i+1, tail(a[i]), len([]rune(a[i])), tail(o[i]), len([]rune(o[i])))
		}
	}
}

// entries splits a listing into its entries, NUL-separated; a bundled
// description may span lines, a user one never does.
func entries(listing string) string {
	var out []string
	for _, line := range strings.Split(listing, "\n") {
		if strings.HasPrefix(line, "- ") || len(out) == 0 {
			out = append(out, line)
			continue
		}
		out[len(out)-1] += "\n" + line
	}
	return strings.Join(out, "\x00")
}

// tail is the end of a long entry, where cuts differ.
func tail(e string) string {
	if r := []rune(e); len(r) > 80 {
		return "…" + string(r[len(r)-60:])
	}
	return e
}

func entryName(e string) string {
	e = strings.TrimPrefix(e, "- ")
	if i := strings.IndexAny(e, ":\n"); i >= 0 {
		e = e[:i]
	}
	return e
}

// TestClaudeCodeConformance runs Claude Code on fixed skill sets and
// compares the listing it sends with the claude-code profile's.
func TestClaudeCodeConformance(t *testing.T) {
	bin := claudeBinary(t)
	bundled := map[string]bool{}
	for _, n := range []string{"dataviz", "update-config", "keybindings-help", "code-review", "simplify", "fewer-permission-prompts",
		"loop", "claude-api", "workflow-authoring", "run", "plugin-authoring", "init", "security-review"} {
		bundled[n] = true
	}
	t.Run("mixed", func(t *testing.T) {
		root := t.TempDir()
		conformSkill(t, root, "multi-line", "name: multi-line\ndescription: |\n  First line.\n  Second\tline with a <tag> & more.\n")
		conformSkill(t, root, "cjk", "name: cjk\ndescription: "+strings.Repeat("漢字", 400))
		conformSkill(t, root, "long", "name: long\ndescription: "+strings.Repeat("word ", 400))
		conformSkill(t, root, "folder-name", "name: other-name\ndescription: Its name is not its folder's.")
		conformSkill(t, root, "emoji", "name: emoji\ndescription: Ships 🚀 fast.")
		for _, model := range []string{"claude-sonnet-4-6"} {
			compareListings(t, claudeListing(t, bin, root, model), skilletListing(t, root, model), bundled)
		}
	})
	// wide characters: the budget counts columns
	t.Run("over-budget-cjk", func(t *testing.T) {
		root := t.TempDir()
		for i := 1; i <= 30; i++ {
			conformSkill(t, root, fmt.Sprintf("wide-%02d", i), fmt.Sprintf("name: wide-%02d\ndescription: 第%02d号の説明文です。", i, i)+strings.Repeat("漢字", 60))
		}
		compareListings(t, claudeListing(t, bin, root, "claude-sonnet-4-6"), skilletListing(t, root, "claude-sonnet-4-6"), bundled)
	})
	t.Run("over-budget", func(t *testing.T) {
		root := t.TempDir()
		for i := 1; i <= 40; i++ {
			conformSkill(t, root, fmt.Sprintf("skill-%02d", i), fmt.Sprintf("name: skill-%02d\ndescription: Placeholder description number %02d for measuring the listing budget of the agent under test with some padding text here.", i, i))
		}
		compareListings(t, claudeListing(t, bin, root, "claude-sonnet-4-6"), skilletListing(t, root, "claude-sonnet-4-6"), bundled)
	})
}

// codexVersion is the Codex release the codex profile reproduces.
const codexVersion = "0.171.0"

// codexListing runs Codex once in a project whose .agents/skills is
// skillsDir, with a provider on a loopback endpoint that records the
// request, and returns the <skills_instructions> block it sent. window
// sets model_context_window (0: the model's).
func codexListing(t *testing.T, bin, skillsDir string, window int) string {
	t.Helper()
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), "<skills_instructions>") {
			select {
			case got <- string(b):
			default:
			}
		}
		http.Error(w, `{"error":{"message":"recorder"}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	tmp := t.TempDir()
	home := filepath.Join(tmp, "codex-home")
	proj := filepath.Join(tmp, "project")
	for _, d := range []string{home, filepath.Join(proj, ".agents")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(skillsDir, filepath.Join(proj, ".agents", "skills")); err != nil {
		t.Fatal(err)
	}
	cfg := "model = \"gpt-5.1-codex\"\nmodel_provider = \"loop\"\n"
	if window > 0 {
		cfg += fmt.Sprintf("model_context_window = %d\n", window)
	}
	cfg += "[model_providers.loop]\nname = \"loop\"\nbase_url = \"" + srv.URL + "/v1\"\nenv_key = \"LOOP_KEY\"\nwire_api = \"responses\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "exec", "--skip-git-repo-check", "hello")
	cmd.Dir = proj
	cmd.Env = []string{"HOME=" + home, "CODEX_HOME=" + home, "PATH=" + os.Getenv("PATH"), "LOOP_KEY=sk-conformance-test"}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	select {
	case body := <-got:
		var req struct {
			Input []struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"input"`
		}
		if err := json.Unmarshal([]byte(body), &req); err != nil {
			t.Fatal(err)
		}
		for _, it := range req.Input {
			for _, c := range it.Content {
				if i := strings.Index(c.Text, "<skills_instructions>"); i >= 0 {
					return c.Text[i:]
				}
			}
		}
		t.Fatalf("the recorded request holds no <skills_instructions> text")
	case <-time.After(90 * time.Second):
		t.Fatalf("codex sent no request with the skills: %s", out.String())
	}
	return ""
}

// skillLines are the "- NAME: …" lines of a Codex skills block, and its
// other lines apart.
func skillLines(block string) (skills, rest []string) {
	for _, l := range strings.Split(block, "\n") {
		if strings.HasPrefix(l, "- ") && !strings.HasPrefix(l, "- `") {
			skills = append(skills, l)
		} else {
			rest = append(rest, l)
		}
	}
	return skills, rest
}

// TestCodexConformance runs Codex on fixed skill sets and compares the
// skills block it sends with the codex profile's: the user skills' lines
// byte for byte, the system skills' by name and length, the fixed
// paragraphs by length.
func TestCodexConformance(t *testing.T) {
	mods := os.Getenv("SKILLET_AGENTS_NODE_MODULES")
	if mods == "" {
		t.Skipf("SKILLET_AGENTS_NODE_MODULES is not set: .ci/run installs @openai/codex@%s from npm and sets it", codexVersion)
	}
	bin := filepath.Join(mods, ".bin", "codex")
	if out, err := exec.Command(bin, "--version").Output(); err != nil || strings.TrimSpace(string(out)) != "codex-cli "+codexVersion {
		t.Skipf("%s is not Codex %s: %q %v", bin, codexVersion, out, err)
	}
	system := map[string]bool{"imagegen": true, "openai-docs": true, "skill-creator": true, "skill-installer": true}
	check := func(t *testing.T, root string, window int) {
		agent := codexListing(t, bin, root, window)
		c := skills.NewCatalog([]skills.Root{{Dir: root}}, nil)
		if _, err := c.Refresh(); err != nil {
			t.Fatal(err)
		}
		var in []profile.Skill
		for _, sk := range c.All() {
			if sk.Readable() {
				in = append(in, harness.ProfileSkill(sk))
			}
		}
		p, _ := profile.Get("codex")
		win := window
		if win == 0 {
			win = p.DefaultWindow()
		}
		ours := p.Catalogue(profile.Input{Skills: in, ContextWindow: win, Roots: []string{root}}).Blocks[0].Text
		as, arest := skillLines(agent)
		os_, orest := skillLines(ours)
		if len(as) != len(os_) {
			t.Fatalf("the agent listed %d skills, Skillet %d", len(as), len(os_))
		}
		for i := range as {
			name := entryName(as[i])
			if system[name] {
				if entryName(os_[i]) != name || len(as[i]) != len(os_[i]) {
					t.Errorf("line %d: the agent's system skill %s is %d bytes, Skillet's %q %d", i+1, name, len(as[i]), entryName(os_[i]), len(os_[i]))
				}
			} else if as[i] != os_[i] {
				t.Errorf("line %d differs:\nagent:   %q\nskillet: %q", i+1, tail(as[i]), tail(os_[i]))
			}
		}
		if len(arest) != len(orest) {
			t.Fatalf("the block's other lines: the agent's %q, Skillet's %q", arest, orest)
		}
		for i := range arest {
			a, o := arest[i], orest[i]
			switch {
			case strings.HasPrefix(a, "- `r0` ="), strings.HasPrefix(a, "- `r1` ="):
				// the roots are this run's folders
			case strings.HasPrefix(o, "[fixed text:"):
				if want := fmt.Sprintf(", %d characters]", len(a)); !strings.HasSuffix(o, want) {
					t.Errorf("fixed paragraph %d: the agent's is %d characters, Skillet says %q", i+1, len(a), o)
				}
			case a != o:
				t.Errorf("line %q, Skillet %q", a, o)
			}
		}
	}
	t.Run("mixed", func(t *testing.T) {
		root := t.TempDir()
		conformSkill(t, root, "multi-line", "name: multi-line\ndescription: |\n  First   line.\n  Second\tline with a <tag>.\n")
		conformSkill(t, root, "long", "name: long\ndescription: "+strings.Repeat("word ", 300))
		conformSkill(t, root, "cjk", "name: cjk\ndescription: 漢字の説明。")
		conformSkill(t, root, "folder-name", "name: other-name\ndescription: Its name is not its folder's.")
		check(t, root, 0)
	})
	// Short folders: with roots some 30 characters longer, 0.171.0 gives
	// two descriptions 4 characters fewer than the profile does (the root
	// paths enter its budget in a way not modelled yet).
	t.Run("over-budget", func(t *testing.T) {
		root, err := os.MkdirTemp("", "cx")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(root) })
		for i := 1; i <= 40; i++ {
			conformSkill(t, root, fmt.Sprintf("skill-%02d", i), fmt.Sprintf("name: skill-%02d\ndescription: Placeholder description number %02d for measuring the listing budget of the agent under test with some padding text here.", i, i))
		}
		check(t, root, 32000)
	})
	corpus, err := filepath.Abs(*corpusFlag)
	if _, serr := os.Stat(corpus); err != nil || serr != nil {
		t.Logf("real corpus not present: its runs are skipped (pass -corpus DIR)")
		return
	}
	for _, window := range []int{32_000, 200_000} {
		t.Run(fmt.Sprintf("corpus-%d", window), func(t *testing.T) { check(t, corpus, window) })
	}
}

// opencodeVersion is the opencode release the opencode profile reproduces.
const opencodeVersion = "1.18.33"

// opencodeListing runs opencode once in a project whose .opencode/skills
// is skillsDir, with an OpenAI-compatible provider on a loopback endpoint
// that records the request, and returns the <available_skills> element of
// the system prompt it sent.
func opencodeListing(t *testing.T, bin, skillsDir string) string {
	t.Helper()
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), "<available_skills>") {
			select {
			case got <- string(b):
			default:
			}
		}
		http.Error(w, `{"error":{"message":"recorder"}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	proj := filepath.Join(tmp, "project")
	for _, d := range []string{filepath.Join(home, ".config", "opencode"), filepath.Join(proj, ".opencode")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(skillsDir, filepath.Join(proj, ".opencode", "skills")); err != nil {
		t.Fatal(err)
	}
	cfg := `{"provider": {"loop": {"npm": "@ai-sdk/openai-compatible", "name": "loop", "options": {"baseURL": "` + srv.URL + `/v1", "apiKey": "sk-conformance-test"}, "models": {"m": {"name": "m"}}}}, "model": "loop/m", "autoupdate": false, "share": "disabled"}`
	if err := os.WriteFile(filepath.Join(home, ".config", "opencode", "opencode.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "hello")
	cmd.Dir = proj
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	select {
	case body := <-got:
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal([]byte(body), &req); err != nil {
			t.Fatal(err)
		}
		for _, m := range req.Messages {
			if i := strings.Index(m.Content, "<available_skills>"); i >= 0 {
				rest := m.Content[i:]
				return rest[:strings.Index(rest, "</available_skills>")+len("</available_skills>")]
			}
		}
		t.Fatalf("the recorded request holds no <available_skills> in a message")
	case <-time.After(120 * time.Second):
		t.Fatalf("opencode sent no request with the skills: %s", out.String())
	}
	return ""
}

// TestOpencodeConformance runs opencode on a fixed skill set and compares
// the <available_skills> it sends with the opencode profile's: the user
// skills byte for byte (their location aside, which is this run's
// folder), the bundled one by name and length.
func TestOpencodeConformance(t *testing.T) {
	mods := os.Getenv("SKILLET_AGENTS_NODE_MODULES")
	if mods == "" {
		t.Skipf("SKILLET_AGENTS_NODE_MODULES is not set: .ci/run installs opencode-ai@%s from npm and sets it", opencodeVersion)
	}
	bin := filepath.Join(mods, ".bin", "opencode")
	if out, err := exec.Command(bin, "--version").Output(); err != nil || strings.TrimSpace(string(out)) != opencodeVersion {
		t.Skipf("%s is not opencode %s: %q %v", bin, opencodeVersion, out, err)
	}
	root := t.TempDir()
	conformSkill(t, root, "multi-line", "name: multi-line\ndescription: |\n  First   line.\n  Second\tline with a <tag> & more.\n")
	conformSkill(t, root, "long", "name: long\ndescription: "+strings.Repeat("word ", 300))
	conformSkill(t, root, "cjk", "name: cjk\ndescription: 漢字の説明。")
	conformSkill(t, root, "folder-name", "name: other-name\ndescription: Its name is not its folder's.")
	conformSkill(t, root, "Zeta", "name: Zeta\ndescription: Upper case sorts by locale.")
	agent := opencodeListing(t, bin, root)
	c := skills.NewCatalog([]skills.Root{{Dir: root}}, nil)
	if _, err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	var in []profile.Skill
	for _, sk := range c.All() {
		ps := harness.ProfileSkill(sk)
		// the agent reports the folder it found, through the project's link
		ps.Path = "@LOCATION@/" + sk.Folder() + "/SKILL.md"
		in = append(in, ps)
	}
	p, _ := profile.Get("opencode")
	ours := p.Catalogue(profile.Input{Skills: in}).Blocks[0].Text
	ours = ours[strings.Index(ours, "<available_skills>"):]
	loc := regexp.MustCompile(`<location>(/[^<]*)/([^/<]+)/SKILL\.md</location>`)
	agent = loc.ReplaceAllString(agent, "<location>@LOCATION@/$2/SKILL.md</location>")
	a, o := strings.Split(agent, "  <skill>\n"), strings.Split(ours, "  <skill>\n")
	if len(a) != len(o) {
		t.Fatalf("the agent listed %d skills, Skillet %d:\nagent:\n%s\nskillet:\n%s", len(a)-1, len(o)-1, agent, ours)
	}
	for i := range a {
		if strings.Contains(a[i], "<name>customize-opencode</name>") {
			if !strings.Contains(o[i], "<name>customize-opencode</name>") || len(a[i]) != len(o[i]) {
				t.Errorf("skill %d: the agent's bundled customize-opencode is %d bytes, Skillet's %d:\n%s", i, len(a[i]), len(o[i]), o[i])
			}
			continue
		}
		if a[i] != o[i] {
			t.Errorf("skill %d differs:\nagent:   %q\nskillet: %q", i, a[i], o[i])
		}
	}
}

// geminiVersion is the Gemini CLI core release the gemini-cli profile
// reproduces.
const geminiVersion = "0.61.0"

// geminiScript lists skills through Gemini CLI core's own modules: its
// SkillManager (built-in skills, then a folder's, with its precedence)
// and renderAgentSkills, the system prompt's section.
const geminiScript = `const [,, mods, dir] = process.argv;
const core = mods + '/@google/gemini-cli-core/dist/src/';
const { SkillManager } = await import(core + 'skills/skillManager.js');
const { loadSkillsFromDir } = await import(core + 'skills/skillLoader.js');
const { renderAgentSkills } = await import(core + 'prompts/snippets.js');
const m = new SkillManager();
await m.discoverBuiltinSkills();
m.addSkills(await loadSkillsFromDir(dir));
process.stdout.write(renderAgentSkills(m.getSkills().map((s) => ({ name: s.name, description: s.description, location: s.location }))));
`

// TestGeminiConformance lists fixed skill sets through Gemini CLI core's
// own modules and compares them with the gemini-cli profile's section:
// the header, the built-in skills' names, place and description sizes,
// and the user skills' entries byte for byte. Gemini CLI lists
// the user's skills in its glob's order, which follows the file system;
// the profile's order is Skillet's, so the user entries are compared as
// a set.
func TestGeminiConformance(t *testing.T) {
	mods := os.Getenv("SKILLET_AGENTS_NODE_MODULES")
	if mods == "" {
		t.Skipf("SKILLET_AGENTS_NODE_MODULES is not set: .ci/run installs @google/gemini-cli-core@%s from npm and sets it", geminiVersion)
	}
	var pkg struct{ Version string }
	if b, err := os.ReadFile(filepath.Join(mods, "@google", "gemini-cli-core", "package.json")); err != nil || json.Unmarshal(b, &pkg) != nil || pkg.Version != geminiVersion {
		t.Skipf("@google/gemini-cli-core %s is not installed in %s (%q, %v)", geminiVersion, mods, pkg.Version, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	script := filepath.Join(t.TempDir(), "list.mjs")
	if err := os.WriteFile(script, []byte(geminiScript), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	conformSkill(t, root, "multi-line", "name: multi-line\ndescription: |\n  First   line.\n  Second\tline with a <tag> & more.\n")
	conformSkill(t, root, "long", "name: long\ndescription: "+strings.Repeat("word ", 300))
	conformSkill(t, root, "cjk", "name: cjk\ndescription: 漢字の説明。")
	conformSkill(t, root, "folder-name", "name: other-name\ndescription: Its name is not its folder's.")
	conformSkill(t, root, "meta", "name: meta\ndescription: A metadata list.\nmetadata:\n  tags: [a, b]")
	conformSkill(t, root, "skill-creator", "name: skill-creator\ndescription: Mine replaces the built-in one.")
	out, err := exec.Command(node, script, mods, root).Output()
	if err != nil {
		t.Fatalf("gemini-cli-core: %v\n%s", err, out)
	}
	agent := string(out)
	c := skills.NewCatalog([]skills.Root{{Dir: root}}, nil)
	if _, err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	var in []profile.Skill
	for _, sk := range c.All() {
		in = append(in, harness.ProfileSkill(sk))
	}
	p, _ := profile.Get("gemini-cli")
	ours := p.Catalogue(profile.Input{Skills: in}).Blocks[0].Text
	split := func(s string) (head string, entries []string) {
		parts := strings.Split(s, "  <skill>\n")
		return parts[0], parts[1:]
	}
	ah, ae := split(agent)
	oh, oe := split(ours)
	if ah != oh {
		t.Errorf("header:\nagent:   %q\nskillet: %q", ah, oh)
	}
	if len(ae) != len(oe) {
		t.Fatalf("the agent listed %d skills, Skillet %d:\nagent:\n%s\nskillet:\n%s", len(ae), len(oe), agent, ours)
	}
	desc := regexp.MustCompile(`(?s)<description>(.*)</description>`)
	// the user's skill-creator takes the built-in one's place, first; the
	// other built-in skill follows, at its size
	if ae[0] != oe[0] || !strings.Contains(ae[0], "Mine replaces the built-in one.") {
		t.Errorf("first entry:\nagent:   %q\nskillet: %q", ae[0], oe[0])
	}
	if !strings.Contains(ae[1], "<name>antigravity-support</name>") || !strings.Contains(oe[1], "<name>antigravity-support</name>") ||
		len(desc.FindStringSubmatch(ae[1])[1]) != len(desc.FindStringSubmatch(oe[1])[1]) {
		t.Errorf("second entry:\nagent:   %q\nskillet: %q", ae[1], oe[1])
	}
	want := map[string]bool{}
	for _, e := range ae[2:] {
		want[strings.TrimSuffix(e, "</available_skills>")] = true
	}
	for _, e := range oe[2:] {
		if e = strings.TrimSuffix(e, "</available_skills>"); !want[e] {
			t.Errorf("Skillet lists an entry the agent does not:\n%q\nagent:\n%s", e, agent)
		}
	}
}
