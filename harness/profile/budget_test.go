package profile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func sk(name, desc string) Skill {
	return Skill{Name: name, Description: desc, Dir: "/tmp/" + name, Path: "/tmp/" + name + "/SKILL.md", Root: "/tmp"}
}

func states(c Catalogue) string {
	var out []string
	for _, e := range c.Entries {
		out = append(out, fmt.Sprintf("%s=%s/%d", e.Name, e.State, e.Kept))
	}
	return strings.Join(out, " ")
}

func TestClaudeBudgetFormula(t *testing.T) {
	for _, c := range []struct{ window, want int }{{200_000, 8_000}, {1_000_000, 40_000}, {0, 8_000}, {875, 35}} {
		if got := ClaudeBudget(c.window); got != c.want {
			t.Errorf("ClaudeBudget(%d) = %d, want %d", c.window, got, c.want)
		}
	}
}

// Two entries of 17 characters and a newline make a 35-character listing:
// a 35-character budget (window 875) lists both whole; one character less
// (window 850) costs the least-used skill its description.
func TestClaudeBudgetEdge(t *testing.T) {
	now := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	one, two := sk("one", strings.Repeat("x", 10)), sk("two", strings.Repeat("y", 10))
	two.Usage = Usage{Count: 5, LastUsed: now}
	p := claudeCode{}

	at := p.Catalogue(Input{NoBundled: true, Skills: []Skill{one, two}, ContextWindow: 875, Now: now})
	if got := states(at); got != "one=full/10 two=full/10" || at.Budget.Used != 35 || at.Budget.Limit != 35 {
		t.Fatalf("at the budget: %s, used %d of %d", got, at.Budget.Used, at.Budget.Limit)
	}
	under := p.Catalogue(Input{NoBundled: true, Skills: []Skill{one, two}, ContextWindow: 850, Now: now})
	if got := states(under); got != "one=name-only/0 two=full/10" {
		t.Fatalf("one over the budget: %s", got)
	}
	if !strings.Contains(under.Text(), "\n- one\n- two: yyyyyyyyyy\n") {
		t.Errorf("listing keeps input order and every name:\n%s", under.Text())
	}
	if under.Budget.Used != 23 || len(under.Warnings) != 1 {
		t.Errorf("used %d, warnings %v", under.Budget.Used, under.Warnings)
	}
	// without usage the later skill keeps its description only by order
	one.Usage, two.Usage = Usage{Count: 1, LastUsed: now}, Usage{}
	if got := states(p.Catalogue(Input{NoBundled: true, Skills: []Skill{one, two}, ContextWindow: 850, Now: now})); got != "one=full/10 two=name-only/0" {
		t.Errorf("usage decides: %s", got)
	}
	// names are listed even when the names alone exceed the budget
	tiny := p.Catalogue(Input{NoBundled: true, Skills: []Skill{one, two}, ContextWindow: 100, Now: now})
	if got := states(tiny); got != "one=name-only/0 two=name-only/0" || !strings.Contains(tiny.Text(), "- one\n- two\n") {
		t.Errorf("names always listed: %s\n%s", got, tiny.Text())
	}
}

func TestClaudeEntryCut(t *testing.T) {
	p := claudeCode{}
	at := p.Catalogue(Input{NoBundled: true, Skills: []Skill{sk("a", strings.Repeat("d", 1536))}, ContextWindow: 1_000_000})
	over := p.Catalogue(Input{NoBundled: true, Skills: []Skill{sk("a", strings.Repeat("d", 1537))}, ContextWindow: 1_000_000})
	if got := states(at); got != "a=full/1536" {
		t.Errorf("1,536 characters: %s", got)
	}
	if got := states(over); got != "a=truncated/1536" || strings.Contains(over.Text(), strings.Repeat("d", 1537)) {
		t.Errorf("1,537 characters: %s", got)
	}
	// when_to_use counts toward the cap
	w := sk("w", strings.Repeat("d", 1530))
	w.WhenToUse = "always"
	if got := states(p.Catalogue(Input{NoBundled: true, Skills: []Skill{w}, ContextWindow: 1_000_000})); got != "w=truncated/1536" {
		t.Errorf("description + when_to_use: %s", got)
	}
	// the cap counts UTF-16 units (an emoji is two) and keeps 1,535 and an
	// ellipsis; 800 CJK characters, 1,600 columns, stay whole (measured on
	// 2.1.332)
	emoji := p.Catalogue(Input{NoBundled: true, Skills: []Skill{sk("e", strings.Repeat("d", 1535)+"😀")}, ContextWindow: 1_000_000})
	if got := states(emoji); got != "e=truncated/1536" || !strings.Contains(emoji.Text(), strings.Repeat("d", 1535)+"…\n") {
		t.Errorf("UTF-16 length: %s", got)
	}
	cjk := p.Catalogue(Input{NoBundled: true, Skills: []Skill{sk("c", strings.Repeat("字", 800))}, ContextWindow: 1_000_000})
	if got := states(cjk); got != "c=full/800" {
		t.Errorf("800 CJK characters: %s", got)
	}
	// the budget counts columns: 100 CJK characters cost 200
	wide := p.Catalogue(Input{NoBundled: true, Skills: []Skill{sk("w", strings.Repeat("字", 100))}, ContextWindow: 5_000})
	if got := states(wide); got != "w=name-only/0" || wide.Budget.Used != 3 {
		t.Errorf("100 CJK characters at a 200-character budget: %s, used %d", got, wide.Budget.Used)
	}
}

func TestDecayedUsage(t *testing.T) {
	now := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		u    Usage
		want float64
	}{
		{Usage{Count: 8, LastUsed: now}, 8},
		{Usage{Count: 8, LastUsed: now.Add(-7 * 24 * time.Hour)}, 4},
		{Usage{Count: 8, LastUsed: now.Add(-14 * 24 * time.Hour)}, 2},
		{Usage{Count: 8, LastUsed: now.Add(-70 * 24 * time.Hour)}, 0.8},
		{Usage{}, 0},
	} {
		if got := DecayedUsage(c.u, now); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("DecayedUsage(%+v) = %v, want %v", c.u, got, c.want)
		}
	}
}

func TestCodexBudgetFormula(t *testing.T) {
	for _, c := range []struct {
		window int
		unit   string
		limit  int
	}{{200_000, "tokens", 4_000}, {272_000, "tokens", 5_440}, {99, "tokens", 1}, {0, "characters", 8_000}, {-1, "characters", 8_000}} {
		b := CodexBudget(c.window)
		if b.Unit != c.unit || b.Limit != c.limit {
			t.Errorf("CodexBudget(%d) = %d %s, want %d %s", c.window, b.Limit, b.Unit, c.limit, c.unit)
		}
	}
}

func codexLines(skills ...Skill) []*codexLine {
	var out []*codexLine
	for _, j := range codexOrder(skills) {
		s := skills[j]
		out = append(out, &codexLine{idx: j, name: s.Name, desc: s.Description, path: s.Path})
	}
	return out
}

func chars(n int) Budget { return Budget{Unit: "characters", Limit: n} }

func minCost(ls []*codexLine) int {
	n := 0
	for _, l := range ls {
		n += l.cost(chars(0), 0)
	}
	return n
}

// The cases of render.rs's own tests.
func TestCodexSharesDescriptions(t *testing.T) {
	ls := codexLines(sk("beta-skill", "uvwxyz"), sk("alpha-skill", "abcdef"))
	r := codexRenderLines(chars(minCost(ls)+6), ls)
	want := []string{"- alpha-skill: ab (file: /tmp/alpha-skill/SKILL.md)", "- beta-skill: uv (file: /tmp/beta-skill/SKILL.md)"}
	if strings.Join(r.lines, "\n") != strings.Join(want, "\n") || r.truncSum != 8 || r.omitted != 0 {
		t.Errorf("equal shares: %q, %d removed", r.lines, r.truncSum)
	}
	ls = codexLines(sk("short-skill", "x"), sk("long-skill", "abcdefghi"))
	r = codexRenderLines(chars(minCost(ls)+11), ls)
	want = []string{"- long-skill: abcdefgh (file: /tmp/long-skill/SKILL.md)", "- short-skill: x (file: /tmp/short-skill/SKILL.md)"}
	if strings.Join(r.lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("unused share goes to the long one: %q", r.lines)
	}
}

func TestCodexScopeOrderAndScan(t *testing.T) {
	mk := func(name, scope string) Skill { s := sk(name, "desc"); s.Scope = scope; return s }
	skills := []Skill{mk("system-skill", "system"), mk("user-skill", "user"), mk("repo-skill", "repo"), mk("admin-skill", "admin")}
	ls := codexLines(skills...)
	budget := ls[0].cost(chars(0), 0) + ls[1].cost(chars(0), 0)
	r := codexRenderLines(chars(budget), ls)
	if r.omitted != 2 || len(r.lines) != 2 || !strings.HasPrefix(r.lines[0], "- system-skill:") || !strings.HasPrefix(r.lines[1], "- admin-skill:") {
		t.Errorf("priority: %q, %d omitted", r.lines, r.omitted)
	}
	big := mk("oversized-system-skill", "system")
	big.Description = strings.Repeat("desc ", 100)
	repo := mk("repo-skill", "repo")
	ls = codexLines(big, repo)
	r = codexRenderLines(chars(ls[1].cost(chars(0), 4)), ls)
	if r.omitted != 1 || len(r.lines) != 1 || !strings.HasPrefix(r.lines[0], "- repo-skill:") {
		t.Errorf("a line that does not fit does not stop the scan: %q", r.lines)
	}
}

// One unit under and over each of Codex's two thresholds, in tokens
// through the whole catalogue: the window is 50 × the token limit.
func TestCodexBudgetEdges(t *testing.T) {
	skills := []Skill{sk("alpha", strings.Repeat("a", 40)), sk("beta", strings.Repeat("b", 40))}
	tok := Budget{Unit: "tokens", Limit: 1 << 30}
	// the skills have a root, so their paths are aliased
	_, ls := codexAliased(tok, Input{Skills: skills, Roots: []string{"/tmp"}}, codexOrder(skills))
	full, min := 0, 0
	for _, l := range ls {
		full += l.cost(tok, 40)
		min += l.cost(tok, 0)
	}
	at := func(limit int) Catalogue {
		return codex{}.Catalogue(Input{NoBundled: true, Skills: skills, ContextWindow: limit * 50, Roots: []string{"/tmp"}})
	}
	if got := states(at(full)); got != "alpha=full/40 beta=full/40" {
		t.Errorf("at the full cost (%d tokens): %s", full, got)
	}
	if got := states(at(full - 1)); !strings.Contains(got, "truncated") || strings.Contains(got, "omitted") {
		t.Errorf("one token under the full cost: %s", got)
	}
	// at the minimum every name stays (a description may still keep the
	// characters that round into a token already paid for); one under it,
	// a skill is left out
	if got := states(at(min)); strings.Contains(got, "omitted") {
		t.Errorf("at the minimum cost (%d tokens): %s", min, got)
	}
	if got := states(at(min - 1)); !strings.Contains(got, "omitted") {
		t.Errorf("one token under the minimum cost: %s", got)
	}
	// in characters, with no aliases to fall back on
	cl := codexLines(skills...)
	cmin := minCost(cl)
	if r := codexRenderLines(chars(cmin), cl); r.phase != 2 || r.omitted != 0 {
		t.Errorf("at the minimum: phase %d, %d omitted", r.phase, r.omitted)
	}
	if r := codexRenderLines(chars(cmin-1), cl); r.phase != 3 || r.omitted != 1 {
		t.Errorf("one under the minimum: phase %d, %d omitted", r.phase, r.omitted)
	}
	cfull := 0
	for _, l := range cl {
		cfull += l.cost(chars(0), 40)
	}
	if r := codexRenderLines(chars(cfull), cl); r.phase != 1 {
		t.Errorf("at the full cost: phase %d", r.phase)
	}
	if r := codexRenderLines(chars(cfull-1), cl); r.phase != 2 || r.truncSum != 1 {
		t.Errorf("one under the full cost: phase %d, %d removed", r.phase, r.truncSum)
	}
}

// Codex 0.171.0 writes paths with root aliases whenever the skills have
// roots, budget or not, and does not charge the alias table.
func TestCodexAliases(t *testing.T) {
	root := "/Users/xl/.codex/plugins/cache/openai-curated/example/hash1234567890/skills-with-a-very-long-shared-prefix"
	var skills []Skill
	for i := range 12 {
		name := fmt.Sprintf("shared-root-skill-%d", i)
		skills = append(skills, Skill{Name: name, Description: "desc", Root: root, Path: fmt.Sprintf("%s/skill-%d/SKILL.md", root, i)})
	}
	in := Input{NoBundled: true, Skills: skills, Roots: []string{root}}
	got, lines := codexSelect(chars(1<<30), in)
	if len(got.roots) != 1 || got.roots[0] != "- `r0` = `"+root+"`" || !strings.Contains(got.lines[0], "(file: r0/skill-0/SKILL.md)") {
		t.Fatalf("no aliases with room for everything: roots %q, line %q", got.roots, got.lines[0])
	}
	aliasMin := 0
	for _, l := range lines {
		aliasMin += l.cost(chars(0), 0)
	}
	if at, _ := codexSelect(chars(aliasMin), in); at.omitted != 0 || len(at.lines) != 12 {
		t.Errorf("at the aliased lines' minimum, %d left out: the table must cost nothing", at.omitted)
	}
	if under, _ := codexSelect(chars(aliasMin-1), in); under.omitted != 1 {
		t.Errorf("one under the aliased lines' minimum: %d left out, want 1", under.omitted)
	}
	for i := range skills {
		skills[i].Root = ""
	}
	if plain, _ := codexSelect(chars(1<<30), Input{NoBundled: true, Skills: skills}); len(plain.roots) != 0 || !strings.Contains(plain.lines[0], "(file: "+root+"/skill-0/SKILL.md)") {
		t.Errorf("skills without roots: roots %q, line %q", plain.roots, plain.lines[0])
	}
}

func TestCodexWarnings(t *testing.T) {
	skills := []Skill{sk("alpha", "a"), sk("beta", "b"), sk("gamma", "c")}
	c := codex{}.Catalogue(Input{NoBundled: true, Skills: skills, ContextWindow: 50}) // 1 token
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "3 additional skills were not included") {
		t.Errorf("warnings %q, entries %s", c.Warnings, states(c))
	}
}

// BenchmarkCatalogue composes each profile's catalogue of 1,180 skills
// with 200-character descriptions at the default windows (so Claude Code
// and Codex both work over budget), as the engine would before every
// model call. x_join is the time as a multiple of joining every
// description once, measured in the same run.
func BenchmarkCatalogue(b *testing.B) {
	var skills []Skill
	for i := range 1180 {
		s := sk(fmt.Sprintf("skill-%04d", i), strings.Repeat(fmt.Sprintf("word%d ", i%97), 200/6))
		s.Usage = Usage{Count: i % 7}
		skills = append(skills, s)
	}
	in := Input{NoBundled: true, Skills: skills, Engine: &EngineList{}, Roots: []string{"/tmp"}}
	floor := func() time.Duration {
		const runs = 200
		start := time.Now()
		for range runs {
			var b strings.Builder
			for _, s := range skills {
				b.WriteString(s.Description)
			}
			_ = b.String()
		}
		return time.Since(start) / runs
	}()
	for _, p := range All() {
		b.Run(p.Name(), func(b *testing.B) {
			for b.Loop() {
				p.Catalogue(in)
			}
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(floor), "x_join")
		})
	}
}

// Claude Code's budget follows the model: bytes a token, and the window.
func TestClaudeBudgetForModel(t *testing.T) {
	for _, c := range []struct {
		model  string
		window int
		want   int
	}{
		{"", 0, 8000},
		{"claude-sonnet-4-6", 0, 8000},
		{"claude-sonnet-4-20250514", 0, 8000},
		{"claude-3-5-haiku-20241022", 0, 8000},
		{"claude-haiku-4-5-20251001", 0, 8000},
		{"claude-opus-4-1-20250805", 0, 8000},
		{"claude-opus-4-7", 0, 30000},
		{"claude-opus-5-5", 0, 6000},
		{"claude-haiku-4-0", 0, 6000},
		{"claude-sonnet-4-5[1m]", 0, 40000},
		{"claude-opus-4-7", 200_000, 6000},
		{"gpt-4o-mini", 0, 8000},
		{"some-other-model", 32_000, 1280},
	} {
		if got := ClaudeBudgetFor(c.model, c.window); got != c.want {
			t.Errorf("ClaudeBudgetFor(%q, %d) = %d, want %d", c.model, c.window, got, c.want)
		}
	}
}

// What Claude Code 2.1.332 sent for 40 user skills of a 121-character
// description at claude-sonnet-4-6: the 11 bundled skills kept their
// descriptions, then 12 user skills theirs; the other 28, init and
// security-review were listed by name.
func TestClaudeBundledMeasured(t *testing.T) {
	var skills []Skill
	for i := 1; i <= 40; i++ {
		name := fmt.Sprintf("skill-%02d", i)
		skills = append(skills, sk(name, fmt.Sprintf("Placeholder description number %02d for measuring the listing budget of the agent under test with some padding text here.", i)))
	}
	c := claudeCode{}.Catalogue(Input{Skills: skills, Model: "claude-sonnet-4-6"})
	full := 0
	for _, e := range c.Entries {
		if e.State == Full {
			full++
		}
	}
	if full != 12 || c.Entries[11].State != Full || c.Entries[12].State != NameOnly {
		t.Errorf("%d user skills with a description, want the first 12", full)
	}
	if len(c.Bundled) != 13 {
		t.Fatalf("%d bundled entries, want 13", len(c.Bundled))
	}
	for _, e := range c.Bundled {
		want := Full
		if e.Name == "init" || e.Name == "security-review" {
			want = NameOnly
		}
		if e.State != want || !e.Bundled {
			t.Errorf("bundled %s: %s, want %s", e.Name, e.State, want)
		}
	}
	// the entries the agent sent took 7,968 characters, newlines between
	// them included
	text := c.Blocks[0].Text
	body := strings.TrimSuffix(strings.SplitN(text, "\n\n", 2)[1], "\n</system-reminder>")
	if n := runes(body); n != 7968 || c.Budget.Used != 7968 {
		t.Errorf("listing body is %d characters (budget used %d), want 7,968 as measured", n, c.Budget.Used)
	}
	if !strings.HasPrefix(body, "- skill-01: ") || !strings.HasSuffix(body, "\n- init\n- security-review") {
		t.Errorf("order: user skills first, the built-in commands last: %.40q … %q", body, body[len(body)-40:])
	}
	// a user skill of the same name hides a bundled one; NoBundled leaves
	// them all out
	hidden := claudeCode{}.Catalogue(Input{Skills: []Skill{sk("dataviz", "mine")}})
	for _, e := range hidden.Bundled {
		if e.Name == "dataviz" {
			t.Errorf("a user skill named dataviz still lists the bundled one")
		}
	}
	if len(hidden.Bundled) != 12 {
		t.Errorf("%d bundled entries beside a user dataviz, want 12", len(hidden.Bundled))
	}
	if none := (claudeCode{}).Catalogue(Input{Skills: skills, NoBundled: true}); len(none.Bundled) != 0 || strings.Contains(none.Text(), "placeholder") {
		t.Errorf("NoBundled still lists %d bundled skills", len(none.Bundled))
	}
}
