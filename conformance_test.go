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
		conformSkill(t, root, "no-name", "description: A skill without a name.")
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

// claudeListings runs Claude Code twice in one project whose .claude/skills
// is skillsDir: once, then, after between has changed the skills, again
// with --continue; it returns the skill listings of the second run's last
// request, each as the text after the header, in message order.
func claudeListings(t *testing.T, bin, skillsDir, model string, between func()) []string {
	t.Helper()
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if !strings.HasPrefix(r.URL.Path, "/v1/messages") {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, anthropicSSE)
	}))
	defer srv.Close()
	tmp := t.TempDir()
	proj, home := filepath.Join(tmp, "project"), filepath.Join(tmp, "home")
	if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(skillsDir, filepath.Join(proj, ".claude", "skills")); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append(args, "--model", model, "--max-turns", "1")...)
		cmd.Dir = proj
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=sk-conformance-test",
			"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
		if out, _ := cmd.CombinedOutput(); ctx.Err() != nil {
			t.Fatalf("claude did not finish: %s", out)
		}
	}
	run("-p", "first")
	between()
	mu.Lock()
	n := len(bodies)
	mu.Unlock()
	run("-p", "second", "--continue")
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) == n {
		t.Fatal("the --continue run sent no request")
	}
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(bodies[len(bodies)-1]), &req); err != nil {
		t.Fatalf("the last request: %v", err)
	}
	const header = "<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n"
	var out []string
	for _, m := range req.Messages {
		for _, bl := range m.Content {
			if strings.HasPrefix(bl.Text, header) {
				out = append(out, strings.TrimSuffix(strings.TrimPrefix(bl.Text, header), "\n</system-reminder>"))
			}
		}
	}
	return out
}

// TestClaudeCodeLaterListing: a skill added between two runs of one
// conversation is listed alone with the second user message, under the
// same header, and the first listing stays as it was; the claude-code
// profile's later listing (Input.Listed) is the agent's byte for byte.
func TestClaudeCodeLaterListing(t *testing.T) {
	bin := claudeBinary(t)
	const model = "claude-sonnet-4-6"
	root := t.TempDir()
	conformSkill(t, root, "alpha", "name: alpha\ndescription: Alpha reviews accounts.")
	conformSkill(t, root, "beta", "name: beta\ndescription: Beta drafts notes.")
	before := skilletCatalogue(t, root, model, nil)
	got := claudeListings(t, bin, root, model, func() {
		conformSkill(t, root, "gamma", "name: gamma\ndescription: |\n  Added <mid> session,\n  on two lines.\n")
		conformSkill(t, root, "cjk", "name: cjk\ndescription: 途中で追加。")
	})
	if len(got) != 2 {
		t.Fatalf("the second run's request holds %d skill listings, want 2: %q", len(got), got)
	}
	first := strings.TrimSuffix(strings.SplitN(before.Blocks[0].Text, "\n\n", 2)[1], "\n</system-reminder>")
	bundled := map[string]bool{}
	for _, e := range before.Bundled {
		bundled[e.Name] = true
	}
	compareListings(t, got[0], first, bundled)
	later := skilletCatalogue(t, root, model, before.Listed)
	if len(later.Blocks) != 1 {
		t.Fatalf("the profile's later listing has %d blocks", len(later.Blocks))
	}
	ours := strings.TrimSuffix(strings.SplitN(later.Blocks[0].Text, "\n\n", 2)[1], "\n</system-reminder>")
	if got[1] != ours {
		t.Errorf("the later listing differs:\nagent:   %q\nskillet: %q", got[1], ours)
	}
}

// skilletCatalogue is the claude-code profile's catalogue of the skills in
// dir for model, after the listings that named listed.
func skilletCatalogue(t *testing.T, dir, model string, listed profile.Listed) profile.Catalogue {
	t.Helper()
	c := skills.NewCatalog([]skills.Root{{Dir: dir}}, nil)
	if _, err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	var in []profile.Skill
	for _, sk := range c.All() {
		in = append(in, harness.ProfileSkill(sk))
	}
	p, _ := profile.Get("claude-code")
	return p.Catalogue(profile.Input{Skills: in, Model: model, Listed: listed})
}
