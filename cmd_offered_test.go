package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"skillet/harness/profile"
)

var corpusFlag = flag.String("corpus", "../shared/real-corpus/skills", "the folder of real skills the offered test and benchmark read")

// writeFrontmatter writes DIR/NAME/SKILL.md with the given frontmatter lines.
func writeFrontmatter(t testing.TB, dir, name string, front ...string) {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	text := "---\n" + strings.Join(front, "\n") + "\n---\nDo the thing.\n"
	if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// offeredFixture is a folder of three skills: a plain one, one only the
// user may invoke (with when_to_use), and an invalid one.
func offeredFixture(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(isolate(t), "skills")
	writeFrontmatter(t, dir, "alpha", "name: alpha", "description: "+strings.Repeat("a", 60))
	writeFrontmatter(t, dir, "beta", "name: beta", "description: Deploys the service.", "when_to_use: when asked to ship", "disable-model-invocation: true")
	writeFrontmatter(t, dir, "broken", "name: not-broken", "description: Name and folder differ.")
	return dir
}

func decodeOffered(t *testing.T, stdout string) offeredJSON {
	t.Helper()
	var doc offeredJSON
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

func entryOf(t *testing.T, p offeredProfile, name string) profile.Entry {
	t.Helper()
	for _, e := range p.Entries {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("%s: no entry for %s", p.Name, name)
	return profile.Entry{}
}

func TestOfferedTableOfEveryProfile(t *testing.T) {
	dir := offeredFixture(t)
	code, out, errOut := runCmd(t, "", "offered", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	head := "SKILL       SKILLET  CLAUDE-CODE  CODEX  CRUSH    OPENCODE  GEMINI-CLI"
	for _, want := range []string{
		head,
		"alpha       full     full         full   full     full      full",
		"beta        full     omitted      full   omitted  full      full",
		"not-broken  omitted  full         full   omitted  full      full",
		"claude-code (Claude Code 2.1.332): budget 8000 characters (context window 200000 tokens × 4 bytes a token × 1 %; 13 skills bundled with Claude Code 2.1.332 share it), used 6327;",
		"; and 13 bundled with the agent",
		"codex (Codex 0.171.0): budget 5440 tokens",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestOfferedOneProfileShowsWhyAndTheText(t *testing.T) {
	dir := offeredFixture(t)
	code, out, errOut := runCmd(t, "", "offered", "--profile", "claude-code", "--set", "bundled_skills=false", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"beta        omitted  -     disable-model-invocation: only the user can invoke it",
		"--- reminder-message ---\n<system-reminder>\nThe following skills are available for use with the Skill tool:\n\n- alpha: " + strings.Repeat("a", 60) + "\n- broken (not-broken): Name and folder differ.\n</system-reminder>\n",
		`(warning: the Agent Skills spec does not accept this skill (see skillet validate): name: "not-broken" does not match the folder name "broken"`,
		"--- activation tool Skill ---",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Flags may follow the folder.
	if code, out2, _ := runCmd(t, "", "offered", dir, "--profile", "claude-code", "--set", "bundled_skills=false"); code != 0 || out2 != out {
		t.Errorf("flags after DIR: exit %d, same output %v", code, out2 == out)
	}
}

// A 1,000-token window gives Claude Code 40 characters: alpha's line (64)
// no longer fits and only its name is listed; Codex's 20 tokens still
// hold its name and path.
func TestOfferedContextWindowDrivesTheBudgets(t *testing.T) {
	dir := offeredFixture(t)
	code, out, errOut := runCmd(t, "", "offered", "--json", "--context-window", "1000", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	doc := decodeOffered(t, out)
	if doc.ContextWindow != 1000 || len(doc.Profiles) != len(profile.Names()) {
		t.Fatalf("window %d, %d profiles", doc.ContextWindow, len(doc.Profiles))
	}
	byName := map[string]offeredProfile{}
	for _, p := range doc.Profiles {
		byName[p.Name] = p
	}
	cc := byName["claude-code"]
	if cc.Budget == nil || cc.Budget.Limit != 40 || cc.Window != 1000 {
		t.Fatalf("claude-code budget %+v, window %d", cc.Budget, cc.Window)
	}
	if e := entryOf(t, cc, "alpha"); e.State != profile.NameOnly || !strings.Contains(cc.Blocks[0].Text, "\n- alpha\n") {
		t.Errorf("alpha under claude-code: %+v\n%s", e, cc.Blocks[0].Text)
	}
	cx := byName["codex"]
	if cx.Budget.Limit != 20 || cx.Budget.Unit != "tokens" {
		t.Errorf("codex budget %+v", cx.Budget)
	}
	if e := entryOf(t, cx, "alpha"); e.State == profile.Full {
		t.Errorf("alpha under codex at 20 tokens: %+v", e)
	}
	if sk := byName["skillet"]; sk.ListSize != 30 || entryOf(t, sk, "alpha").State != profile.Full || sk.Window != 0 {
		t.Errorf("skillet: %+v", sk)
	}
	// a name that is not its folder's breaks the spec, but only Crush and
	// Skillet leave the skill out
	if len(doc.LeftOut) != 0 {
		t.Errorf("left out: %+v", doc.LeftOut)
	}
	for name, want := range map[string]profile.State{"skillet": profile.Omitted, "crush": profile.Omitted, "opencode": profile.Full, "gemini-cli": profile.Full} {
		e := entryOf(t, byName[name], "not-broken")
		if e.State != want || !strings.Contains(e.Warning, `does not match the folder name "broken"`) {
			t.Errorf("not-broken under %s: %+v, want %s with the spec's warning", name, e, want)
		}
	}
	if e := entryOf(t, byName["crush"], "not-broken"); !strings.Contains(e.Reason, `Crush rejects it: name "not-broken" must match directory "broken"`) {
		t.Errorf("crush's reason: %q", e.Reason)
	}
	if !strings.Contains(cc.Blocks[0].Text, "\n- broken (not-broken)\n") {
		t.Errorf("claude-code lists the skill by its folder, the name in parentheses:\n%s", cc.Blocks[0].Text)
	}
}

// --usage decides which skill keeps its description under Claude Code:
// at 1,500 tokens (60 characters) only one of the two lines fits.
func TestOfferedUsageRanksClaudeCode(t *testing.T) {
	dir := filepath.Join(isolate(t), "skills")
	writeFrontmatter(t, dir, "first", "name: first", "description: "+strings.Repeat("f", 30))
	writeFrontmatter(t, dir, "second", "name: second", "description: "+strings.Repeat("s", 30))
	state := func(args ...string) string {
		code, out, errOut := runCmd(t, "", append([]string{"offered", "--json", "--profile", "claude-code", "--context-window", "1500", "--set", "bundled_skills=false"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		p := decodeOffered(t, out).Profiles[0]
		return string(entryOf(t, p, "first").State) + " " + string(entryOf(t, p, "second").State)
	}
	if got := state(dir); got != "full name-only" {
		t.Errorf("never used, folder order: %s", got)
	}
	usage := filepath.Join(filepath.Dir(dir), "usage.json")
	if err := os.WriteFile(usage, []byte(`{"second": {"count": 2, "last_used": "2026-09-01T12:00:00Z"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := state("--usage", usage, dir); got != "name-only full" {
		t.Errorf("second used: %s", got)
	}
	if err := os.WriteFile(usage, []byte(`["second"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCmd(t, "", "offered", "--usage", usage, dir); code != 2 || !strings.Contains(errOut, "--usage "+usage+": want {") {
		t.Errorf("bad usage file: exit %d, %s", code, errOut)
	}
}

func TestOfferedBadInput(t *testing.T) {
	dir := offeredFixture(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"offered", "--profile", "cursor", dir}, `unknown profile "cursor": known profiles are skillet, claude-code, codex, crush, opencode, gemini-cli, or all`},
		{[]string{"offered", "--profile", "claude-code@2.0.0", dir}, `unknown Claude Code version "2.0.0": the claude-code profile reproduces Claude Code 2.1.332 only (known versions: 2.1.332)`},
		{[]string{"offered", "--profile", "skillet@1", dir}, `profile skillet reproduces no other agent, so it takes no version ("1")`},
		{[]string{"offered", "--context-window", "0", dir}, "--context-window 0: want a positive number of tokens"},
		{[]string{"offered", "--context-window", "-5", dir}, "--context-window -5: want a positive number of tokens"},
		{[]string{"offered", "--context-window", "lots", dir}, `want a whole number of tokens, not "lots"`},
		{[]string{"offered", filepath.Join(dir, "missing")}, "missing: not a folder"},
		{[]string{"offered", filepath.Join(dir, "alpha")}, "alpha is a skill folder: give the folder that holds it (" + dir + ")"},
	} {
		code, _, errOut := runCmd(t, "", c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// A folder with nothing valid still says what it found and why it was
// left out, and exits 1.
func TestOfferedNothingValid(t *testing.T) {
	dir := filepath.Join(isolate(t), "skills")
	writeFrontmatter(t, dir, "only", "name: only")
	code, out, _ := runCmd(t, "", "offered", dir)
	if code != 1 || !strings.Contains(out, "no skill is enabled") || !strings.Contains(out, "only ("+filepath.Join(dir, "only")+"): invalid: description: missing required field") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	empty := filepath.Join(filepath.Dir(dir), "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "", "offered", "--profile", "codex", empty)
	if code != 1 || !strings.Contains(out, "no skill is enabled") || !strings.Contains(errOut, "holds no skills") {
		t.Errorf("empty folder: exit %d:\n%s\n%s", code, out, errOut)
	}
}

// The real corpus: every valid skill gets a state under every profile,
// and Claude Code's budget leaves names only once the corpus outgrows it.
func TestOfferedRealCorpus(t *testing.T) {
	corpus, err := filepath.Abs(*corpusFlag)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("real corpus not present (%v); pass -corpus DIR to point at it", err)
	}
	isolate(t)
	code, out, errOut := runCmd(t, "", "offered", "--json", corpus)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	doc := decodeOffered(t, out)
	n := len(doc.Profiles[0].Entries)
	if n != 1180 || len(doc.LeftOut) != 0 {
		t.Fatalf("%d skills reach the profiles and %d are left out of the corpus, want all 1,180 and none", n, len(doc.LeftOut))
	}
	// What each agent lists of the corpus (name only counts; omitted does
	// not). Skillet lists list_size = 30 of the 1,150 valid skills. Claude
	// Code leaves out the 4 with disable-model-invocation, Crush those 4,
	// 29 of the 30 invalid ones (it reads past a long body only) and 2
	// whose description is at most 1,024 characters but over 1,024 bytes.
	// Codex's budget at its 272,000-token default keeps 337 names and
	// paths. opencode and Gemini CLI list everything. Bundled skills that
	// a corpus skill of the same name hides are not listed: claude-api,
	// code-review, simplify… leave Claude Code 7 of its 13; Codex lists
	// its 4 system skills beside user skills of the same name.
	wantListed := map[string]int{"skillet": 30, "claude-code": 1176, "codex": 337, "crush": 1145, "opencode": 1180, "gemini-cli": 1180}
	wantBundled := map[string]int{"claude-code": 7, "codex": 4, "crush": 3, "opencode": 1, "gemini-cli": 1}
	for _, p := range doc.Profiles {
		listed, warned := 0, 0
		for _, e := range p.Entries {
			if e.State != profile.Omitted {
				listed++
			}
			if e.Warning != "" {
				warned++
			}
		}
		t.Logf("%s: %d of %d listed, %d with the spec's warning, %d bundled", p.Name, listed, n, warned, len(p.Bundled))
		if listed != wantListed[p.Name] || warned != 30 || len(p.Bundled) != wantBundled[p.Name] {
			t.Errorf("%s lists %d of the corpus with %d warnings and %d bundled skills, want %d, 30 and %d", p.Name, listed, warned, len(p.Bundled), wantListed[p.Name], wantBundled[p.Name])
		}
	}
	for _, p := range doc.Profiles {
		if len(p.Entries) != n {
			t.Errorf("%s: %d entries, want %d", p.Name, len(p.Entries), n)
		}
		for _, e := range p.Entries {
			if e.State == "" || e.Reason == "" {
				t.Errorf("%s: %s without a state or reason", p.Name, e.Name)
			}
		}
		if p.Budget != nil && p.Budget.Used > p.Budget.Limit && p.Name != "claude-code" {
			t.Errorf("%s uses %d of %d", p.Name, p.Budget.Used, p.Budget.Limit)
		}
	}
}

// BenchmarkOfferedAllRealCorpus times `skillet offered --profile all`
// over the real corpus, from discovery to the printed table, and reports
// it as a multiple of `skillet validate` over the same folder, measured in
// the same run (x_validate): reading and checking the skills is the floor
// any command over them pays.
func BenchmarkOfferedAllRealCorpus(b *testing.B) {
	corpus, err := filepath.Abs(*corpusFlag)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(corpus); err != nil {
		b.Skipf("real corpus not present (%v); pass -corpus DIR", err)
	}
	tmp := b.TempDir()
	b.Setenv("HOME", tmp)
	b.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache"))
	b.Chdir(tmp)
	const floorRuns = 3
	start := time.Now()
	for range floorRuns {
		var out, errOut strings.Builder
		runValidate([]string{corpus}, &out, &errOut)
	}
	floor := time.Since(start) / floorRuns
	b.ResetTimer()
	for b.Loop() {
		var out, errOut strings.Builder
		if code := runOffered([]string{"--profile", "all", corpus}, &out, &errOut); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut.String())
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(floor), "x_validate")
}
