package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"skillet/skills"
)

// sharedDir finds rel (such as "real-skills") in a shared/ folder beside
// one of the folders above the repository, relative to it; "" when there
// is none. The checkout may sit at any depth.
func sharedDir(rel string) string {
	up := ".."
	for range 6 {
		p := filepath.Join(up, "shared", rel)
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			return p
		}
		up = filepath.Join(up, "..")
	}
	return ""
}

var realSkillsDir = sharedDir("real-skills")

func validate(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = runValidate(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

func decodeValidate(t *testing.T, stdout string) validateJSON {
	t.Helper()
	var doc validateJSON
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("--json output is not one JSON document: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Fatalf("more than one JSON document:\n%s", stdout)
	}
	return doc
}

// TestValidate_RealSkillsVerdicts checks each public skill's verdict:
// per SOURCES.md, claude-api (a description over 1024 characters, and by
// R18 instructions over 65,536) and react-view-transitions (name not equal
// to its folder) are invalid. Unknown keys (iterate-pr) and comma-separated
// allowed-tools (django-access-review, skill-scanner) are warnings.
func TestValidate_RealSkillsVerdicts(t *testing.T) {
	if realSkillsDir == "" {
		t.Skip("real skills not present: no shared/real-skills above the repository")
	}
	stdout, stderr, code := validate(t, "--json", realSkillsDir)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", code, stderr)
	}
	doc := decodeValidate(t, stdout)
	invalid := map[string][]string{}
	warnings := map[string][]string{}
	for _, s := range doc.Skills {
		folder := filepath.Base(s.Folder)
		if !s.Valid {
			for _, p := range s.Problems {
				invalid[folder] = append(invalid[folder], p.Field)
			}
		}
		for _, w := range s.Warnings {
			warnings[folder] = append(warnings[folder], w.Field)
		}
		if s.Valid != (len(s.Problems) == 0) {
			t.Errorf("%s: valid %v with problems %v", folder, s.Valid, s.Problems)
		}
	}
	want := map[string][]string{
		"claude-api":             {"description", "body"},
		"react-view-transitions": {"name"},
	}
	if len(invalid) != len(want) {
		t.Errorf("invalid skills = %q, want %q", invalid, want)
	}
	for name, fields := range want {
		if !slices.Equal(invalid[name], fields) {
			t.Errorf("%s: problem fields %q, want %q", name, invalid[name], fields)
		}
	}
	for name, field := range map[string]string{
		"iterate-pr":           "disable-model-invocation",
		"django-access-review": "allowed-tools",
		"skill-scanner":        "allowed-tools",
		"writing-skills":       "body",
	} {
		if _, bad := invalid[name]; bad || !slices.Contains(warnings[name], field) {
			t.Errorf("%s: want valid with a %q warning, got problems %q warnings %q", name, field, invalid[name], warnings[name])
		}
	}
	sum := doc.Summary
	if doc.OK || sum.Skills != 12 || sum.Valid != 10 || sum.Invalid != 2 || sum.ToolFiles != 0 {
		t.Errorf("ok %v, summary %+v", doc.OK, sum)
	}
}

func TestValidate_TextOutput(t *testing.T) {
	if realSkillsDir == "" {
		t.Skip("real skills not present: no shared/real-skills above the repository")
	}
	stdout, _, code := validate(t, realSkillsDir)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	for _, want := range []string{
		"ok iterate-pr",
		realSkillsDir + "/claude-api: description: is 1068 characters, over the 1024 limit",
		realSkillsDir + `/react-view-transitions: name: "vercel-react-view-transitions" does not match the folder name "react-view-transitions" (the spec requires them to be equal)`,
		// what each agent does with the key, as its profile says
		realSkillsDir + "/iterate-pr: warning: disable-model-invocation: Claude Code's key, not the spec's; only true changes anything (here it is false): every agent lists the skill",
	} {
		if !slices.Contains(lines, filepath.FromSlash(want)) {
			t.Errorf("output lacks the line %q:\n%s", want, stdout)
		}
	}
	if slices.Contains(lines, "ok claude-api") || slices.Contains(lines, "ok vercel-react-view-transitions") {
		t.Errorf("an invalid skill printed as ok:\n%s", stdout)
	}
	if last := lines[len(lines)-1]; last != "12 skills: 10 valid, 2 invalid; 1 can never load under the default limits" {
		t.Errorf("summary line = %q", last)
	}
}

func TestValidate_SaysWhatEachAgentDoesWithDisableModelInvocation(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "user-only"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "---\nname: user-only\ndescription: Deploys the site. Use when asked to deploy.\ndisable-model-invocation: true\n---\nDeploy.\n"
	if err := os.WriteFile(filepath.Join(dir, "user-only", "SKILL.md"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, _, code := validate(t, dir)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
	want := dir + "/user-only: warning: disable-model-invocation: Claude Code's key, not the spec's: only the user may invoke the skill; claude-code, crush leave it out of the model's list; codex, opencode, gemini-cli, Skillet's own profile list it as usual (skillet offered shows each list)"
	if !slices.Contains(strings.Split(stdout, "\n"), want) {
		t.Fatalf("output lacks %q:\n%s", want, stdout)
	}
	if strings.Contains(stdout, "kept and ignored") {
		t.Fatalf("the key is called ignored although two agents act on it:\n%s", stdout)
	}
}

func TestValidate_SampleSkillsPass(t *testing.T) {
	stdout, stderr, code := validate(t, "sample-skills")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "warning") {
		t.Errorf("the samples should have no warnings:\n%s", stdout)
	}
	if !strings.HasSuffix(stdout, "7 skills: 7 valid, 0 invalid; 9 tool files: 9 valid, 0 invalid\n") {
		t.Errorf("summary:\n%s", stdout)
	}
	// One skill folder, its SKILL.md, and a flag after the path.
	for _, args := range [][]string{
		{filepath.Join("sample-skills", "account-review")},
		{filepath.Join("sample-skills", "account-review", "SKILL.md")},
		{filepath.Join("sample-skills", "account-review"), "--json"},
	} {
		stdout, _, code := validate(t, args...)
		if code != 0 {
			t.Errorf("%q: exit %d\n%s", args, code, stdout)
		}
		if args[len(args)-1] == "--json" {
			doc := decodeValidate(t, stdout)
			if !doc.OK || len(doc.Skills) != 1 || doc.Skills[0].Name != "account-review" || doc.Skills[0].Version != "2" || doc.Summary.ToolFiles != 1 {
				t.Errorf("json: %+v", doc)
			}
		} else if !strings.HasPrefix(stdout, "ok account-review\n") {
			t.Errorf("%q:\n%s", args, stdout)
		}
	}
}

func TestValidate_UsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"--bogus", "sample-skills"},
		{"no-such-folder"},
		{"sample-skills", "no-such-folder"},
		{"go.mod"},
	} {
		stdout, stderr, code := validate(t, args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "skillet validate: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	stdout, _, code := validate(t, "-h")
	if code != 0 || !strings.HasPrefix(stdout, "usage: skillet validate") {
		t.Errorf("-h: exit %d, %q", code, stdout)
	}
}

func TestValidate_InvalidSkillAndToolFileExit1(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good/SKILL.md", "---\nname: good\ndescription: Fine. Use when testing.\ntools:\n  - name: helper\n  - name: elsewhere\n---\nBody\n")
	write("good/tools/helper.yaml", "name: helper\nversion: 1\ndescription: d\nresponse: ok\n")
	write("tools/broken.yaml", "name: broken\nversion: 0\ndescription: d\nresponse: x\n")
	write("bad/SKILL.md", "---\nname: Bad\n---\n")
	stdout, _, code := validate(t, root)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	for _, want := range []string{
		"ok good",
		filepath.Join(root, "good") + `: warning: tools[1]: tool "elsewhere" is defined neither in the skill's tools/ nor in the root's tools/; it must come from tools_dirs of skillet.toml`,
		filepath.Join(root, "bad") + `: name: "Bad" must be lowercase`,
		filepath.Join(root, "bad") + ": description: missing required field",
		filepath.Join(root, "tools", "broken.yaml") + ": version: must be a whole number of at least 1, not the number \"0\"",
		"ok tool helper@1 (" + filepath.Join(root, "good", "tools", "helper.yaml") + ")",
		"2 skills: 1 valid, 1 invalid; 2 tool files: 1 valid, 1 invalid",
	} {
		if !strings.Contains(stdout, want+"\n") {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	doc := decodeValidate(t, func() string { s, _, _ := validate(t, "--json", root); return s }())
	if doc.OK || doc.Summary.InvalidToolFiles != 1 || len(doc.ToolFiles) != 2 {
		t.Errorf("json: %+v", doc)
	}
	for _, tf := range doc.ToolFiles {
		if tf.Valid != (len(tf.Problems) == 0) || tf.Problems == nil {
			t.Errorf("tool file entry %+v", tf)
		}
	}
}

func TestValidate_NoPathUsesDefaultRoots(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", filepath.Join(dir, "home"))
	stdout, stderr, code := validate(t)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "none of the default skills folders exists") {
		t.Errorf("no roots: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	skill := filepath.Join(dir, ".agents", "skills", "local")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: local\ndescription: A local skill. Use when testing.\n---\nBody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = validate(t)
	if code != 0 || stdout != "ok local\n1 skills: 1 valid, 0 invalid\n" || !strings.Contains(stderr, "no PATH given: checking the default skills folders "+filepath.Join(dir, ".agents", "skills")) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, _, _ = validate(t, "--json")
	if doc := decodeValidate(t, stdout); len(doc.Notes) != 1 || len(doc.Paths) != 1 || !doc.OK {
		t.Errorf("json: %+v", doc)
	}
}

// TestValidate_LoadLimits checks the warning for a valid skill that can
// never load: under the default limits, and under those of --config.
func TestValidate_LoadLimits(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) string {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	skill := func(name, extra string, bodyChars int) {
		write(name+"/SKILL.md", "---\nname: "+name+"\ndescription: A skill. Use when testing.\n"+extra+"---\n"+strings.Repeat("x", bodyChars)+"\n")
	}
	skill("at-limit", "", 24000)                                                     // 24,000 characters, about 6,000 tokens: loads
	skill("too-big", "", 24001)                                                      // one character over max_skill_chars
	skill("with-example", "examples:\n  - situation: s\n    resolution: r\n", 23950) // the examples count
	skill("small", "", 5000)
	skill("broken", "compatibility: \"\"\n", 30000) // invalid: no load verdict beyond that

	stdout, stderr, code := validate(t, "--json", root)
	if code != 1 {
		t.Fatalf("exit %d (only broken is invalid), stderr %s", code, stderr)
	}
	doc := decodeValidate(t, stdout)
	if doc.Limits != (validateLimits{From: "defaults", MaxSkillChars: 24000, LoadTokenBudget: 6000}) {
		t.Errorf("limits %+v", doc.Limits)
	}
	verdict := func(doc validateJSON) map[string]string {
		out := map[string]string{}
		for _, s := range doc.Skills {
			out[s.Name] = s.Load
			loadWarnings := 0
			for _, w := range s.Warnings {
				if w.Field == "load" {
					loadWarnings++
				}
			}
			if (loadWarnings > 0) != (s.Load == "too_large" || s.Load == "over_budget") {
				t.Errorf("%s: load %q with warnings %v", s.Name, s.Load, s.Warnings)
			}
			if s.TokensEstimate != (s.Chars+3)/4 {
				t.Errorf("%s: %d chars, %d tokens", s.Name, s.Chars, s.TokensEstimate)
			}
		}
		return out
	}
	want := map[string]string{"at-limit": "ok", "too-big": "too_large", "with-example": "too_large", "small": "ok", "broken": "invalid"}
	if got := verdict(doc); !maps.Equal(got, want) {
		t.Errorf("defaults: load %v, want %v", got, want)
	}
	if doc.Summary.CannotLoad != 2 {
		t.Errorf("summary %+v", doc.Summary)
	}
	text, _, _ := validate(t, root)
	for _, line := range []string{
		filepath.Join(root, "too-big") + ": warning: load: its text is 24001 characters, over max_skill_chars (24000): too large, can never load",
		filepath.Join(root, "too-big") + ": warning: load: its text is about 6001 tokens (estimated as characters/4), alone over load_token_budget (6000): over budget, can never load",
		"5 skills: 4 valid, 1 invalid; 2 can never load under the default limits",
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("output lacks %q:\n%s", line, text)
		}
	}

	cfg := write("skillet.toml", "[session]\nmax_skill_chars = 30000\nload_token_budget = 1000\n")
	stdout, _, _ = validate(t, "--json", "--config", cfg, root)
	doc = decodeValidate(t, stdout)
	want = map[string]string{"at-limit": "over_budget", "too-big": "over_budget", "with-example": "over_budget", "small": "over_budget", "broken": "invalid"}
	if got := verdict(doc); doc.Limits.From != cfg || doc.Limits.MaxSkillChars != 30000 || !maps.Equal(got, want) {
		t.Errorf("--config: limits %+v, load %v, want %v", doc.Limits, got, want)
	}
	text, _, _ = validate(t, root, "--config", cfg)
	if !strings.Contains(text, "5 skills: 4 valid, 1 invalid; 4 can never load under the limits of "+cfg+"\n") {
		t.Errorf("--config summary:\n%s", text)
	}

	for _, c := range []struct{ file, want string }{
		{filepath.Join(root, "missing.toml"), "no such file"},
		{write("bad.toml", "[session]\nmax_skill_chars = \"many\"\n"), "bad.toml"},
	} {
		stdout, stderr, code := validate(t, "--config", c.file, root)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "skillet validate: --config: ") || !strings.Contains(stderr, c.want) {
			t.Errorf("--config %s: exit %d, stdout %q, stderr %q", c.file, code, stdout, stderr)
		}
	}
}

// TestValidate_StricterThanLoading checks the two breaches of the spec
// that a session loads with a warning and validate refuses.
func TestValidate_StricterThanLoading(t *testing.T) {
	root := t.TempDir()
	for name, extra := range map[string]string{
		"colon":  "description: Use when: the user asks\n",
		"compat": "description: d\ncompatibility:\n",
	} {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\n"+extra+"---\nBody\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, _, code := validate(t, root)
	for _, want := range []string{
		filepath.Join(root, "colon") + `: description: the value holds ": " and is not quoted, which is invalid YAML: other tools cannot read the file; quote the value (loading reads it as if quoted)`,
		filepath.Join(root, "compat") + ": compatibility: is empty: the spec wants 1-500 characters when the key is present (leave it out instead)",
		"2 skills: 0 valid, 2 invalid",
	} {
		if !strings.Contains(stdout, want+"\n") {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	c := skills.NewCatalog([]skills.Root{{Dir: root}}, nil)
	if _, err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	for _, s := range c.All() {
		if !s.Valid() || len(s.Warnings) != 1 {
			t.Errorf("%s loads with one warning: problems %v, warnings %v", s.Name, s.Problems, s.Warnings)
		}
	}
}

// A folder that does not exist is a usage error, as the README says: exit 2.
func TestValidate_MissingFolderExits2(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-skills")
	_, stderr, code := validate(t, missing)
	if code != 2 || !strings.Contains(stderr, "no-such-skills") {
		t.Fatalf("exit %d, stderr %q; want 2 naming the folder", code, stderr)
	}
}
