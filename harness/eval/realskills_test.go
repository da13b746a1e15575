package eval

import (
	"context"
	"os"
	"testing"

	"skillet/harness"
	"skillet/harness/config"
	"skillet/harness/demo"
	"skillet/harness/event"
	"skillet/harness/llm"
	"skillet/skills"
)

// realSkills is the shared folder of twelve real skills, from this
// package's folder in the repository's main checkout.
const realSkills = "../../../shared/real-skills"

func TestExecute_RealSkillsWithTheDemoModel(t *testing.T) {
	if _, err := os.Stat(realSkills); err != nil {
		t.Skipf("the real skills are not at %s: %v", realSkills, err)
	}
	srv, err := demo.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client, err := llm.New(llm.Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	cat := skills.NewCatalog([]skills.Root{{Dir: realSkills}}, nil)
	if _, err := cat.Refresh(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sk := range cat.All() {
		if sk.Valid() {
			names = append(names, sk.Name)
		}
	}
	if len(names) < 10 {
		t.Fatalf("only %d valid real skills: %v", len(names), names)
	}
	open := func(spec RunSpec, on func(event.Event)) (Session, error) {
		cfg := config.Default()
		for _, n := range spec.Order {
			cfg.Skills = append(cfg.Skills, config.SkillRef{Name: n})
		}
		return harness.New(harness.Options{Config: cfg, Catalog: cat, Model: client, ModelName: demo.ModelName, Demo: true, Dir: spec.Dir, OnEvent: on, NewID: func() string { return spec.ID }})
	}
	m := manifest(names, Plan{Runs: 3, Seed: 9, Arms: []string{""}},
		q("gh-fix-ci", "use gh-fix-ci to look at the failing build", true),
		q("gh-fix-ci", "use mcp-builder to start an MCP server", false),
		q("mcp-builder", "help me build an MCP server in TypeScript", true))
	dir := t.TempDir()
	out, err := Execute(context.Background(), Options{Dir: dir, Manifest: m, Workers: 2, NewSession: open})
	if err != nil {
		t.Fatal(err)
	}
	rep := Score(m, out.Runs)
	if g := queryScore(t, rep, "gh-fix-ci", "use gh-fix-ci to look at the failing build"); g.Triggers != 3 || g.Outcomes[OutcomeTriggered] != 3 {
		t.Errorf("explicit load: %+v", g)
	}
	if g := queryScore(t, rep, "gh-fix-ci", "use mcp-builder to start an MCP server"); g.Triggers != 0 || g.Outcomes[OutcomeOtherSkill] != 3 {
		t.Errorf("another skill named: %+v", g.Outcomes)
	}
	for _, r := range out.Runs {
		if r.Result.Outcome == OutcomeError || r.Result.Rank == 0 || r.Result.Listed != len(names) {
			t.Errorf("run %s: %+v", r.Session, r.Result)
		}
	}
	runs, _ := ReadRuns(dir)
	again, problems := Rescore(dir, m, runs)
	if len(problems) > 0 || len(again) != 9 {
		t.Errorf("rescoring: %v", problems)
	}
}
