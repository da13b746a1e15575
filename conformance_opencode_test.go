package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"skillet/harness"
	"skillet/harness/profile"
	"skillet/skills"
)

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
	writeSkillFile(t, root, "block-end", "---\nname: block-end\ndescription: |\n  Ends the\n  frontmatter.\n---\nThe instructions.\n")
	conformSkill(t, root, "cjk", "name: cjk\ndescription: 漢字の説明。")
	conformSkill(t, root, "folder-name", "name: other-name\ndescription: Its name is not its folder's.")
	conformSkill(t, root, "no-name", "description: A skill without a name.")
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
