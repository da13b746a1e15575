package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"skillet/harness"
	"skillet/harness/profile"
	"skillet/skills"
)

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
// and the user skills' entries byte for byte and in Gemini CLI's order.
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
	conformSkill(t, root, "no-name", "description: A skill without a name.")
	conformSkill(t, root, "meta", "name: meta\ndescription: A metadata list.\nmetadata:\n  tags: [a, b]")
	conformSkill(t, root, "skill-creator", "name: skill-creator\ndescription: Mine replaces the built-in one.")
	// a block that ends the frontmatter, and one a key follows
	writeSkillFile(t, root, "block-end", "---\nname: block-end\ndescription: |\n  Ends the\n  frontmatter.\n---\nThe instructions.\n")
	writeSkillFile(t, root, "block-key", "---\nname: block-key\ndescription: |\n  A key follows.\nlicense: MIT\n---\nThe instructions.\n")
	// the read order: folders by name, descending in UTF-16 code units,
	// whatever order they were made in
	for _, folder := range []string{"b-second", "Upper", "10-digits", "2-digits", "é-accent", "漢字", "a-first", "c_under", "c.dot", "c-dash"} {
		conformSkill(t, root, folder, "name: "+folder+"\ndescription: Folder "+folder+".")
	}
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
	// the user's skills byte for byte; their order is the order the
	// agent's asynchronous glob finishes its checks in, which varies from
	// run to run, so they are compared as a set
	user := func(es []string) []string {
		out := make([]string, 0, len(es))
		for _, e := range es[2:] {
			out = append(out, strings.TrimSuffix(e, "</available_skills>"))
		}
		slices.Sort(out)
		return out
	}
	au, ou := user(ae), user(oe)
	for i := range au {
		if au[i] != ou[i] {
			t.Errorf("user skill %d of %d (sorted):\nagent:   %q\nskillet: %q", i+1, len(au), au[i], ou[i])
		}
	}
}
