package profile

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"skillet/harness/harnesstest"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var goldenNow = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

// goldenSkills is a fixed set covering what profiles treat differently:
// XML-special characters, a folder with files, usage, when_to_use and a
// skill only the user may invoke.
func goldenSkills() []Skill {
	return []Skill{
		{
			Name: "pdf-forms", Description: "Fill and flatten PDF forms. Use when a user hands you a PDF with fields & asks for <filled> output.",
			Dir: "/work/skills/pdf-forms", Path: "/work/skills/pdf-forms/SKILL.md", Root: "/work/skills",
			Body:   "# PDF forms\n\nRun `scripts/fill.py FILE` then check the result.\n",
			Source: "---\nname: pdf-forms\ndescription: Fill and flatten PDF forms.\n---\n# PDF forms\n\nRun `scripts/fill.py FILE` then check the result.\n",
			Files:  []string{"SKILL.md", "scripts/fill.py", "references/fields.md", "references/Acro.md"},
			Usage:  Usage{Count: 3, LastUsed: goldenNow.Add(-7 * 24 * time.Hour)},
		},
		{
			Name: "commit-notes", Description: "Write a commit message from the staged diff.", WhenToUse: "When the user says \"commit\".",
			Dir: "/work/skills/commit-notes", Path: "/work/skills/commit-notes/SKILL.md", Root: "/work/skills", Scope: "user",
			Body:   "Summarize the diff in one line, then $ARGUMENTS.\n",
			Source: "---\nname: commit-notes\ndescription: Write a commit message from the staged diff.\n---\nSummarize the diff in one line, then $ARGUMENTS.\n",
			Files:  []string{"SKILL.md"},
		},
		{
			// breaks the spec in two ways only some agents enforce
			Name: "Vercel-View", Description: "Animate route changes.\nUse for view transitions.", Folder: "view-transitions",
			Dir: "/work/skills/view-transitions", Path: "/work/skills/view-transitions/SKILL.md", Root: "/work/skills",
			Body: "Wrap the update in startViewTransition.\n", Source: "---\nname: Vercel-View\n---\nWrap the update in startViewTransition.\n", Files: []string{"SKILL.md"},
			Breaches: []Breach{
				{Rule: BreachNameFolder, Message: `name: "Vercel-View" does not match the folder name "view-transitions"`},
				{Rule: BreachNameFormat, Message: `name: "Vercel-View" must be lowercase`},
			},
		},
		{
			Name: "deploy", Description: "Deploy the service to production.", DisableModelInvocation: true,
			Dir: "/work/skills/deploy", Path: "/work/skills/deploy/SKILL.md", Root: "/work/skills",
			Body: "Run the deploy script.\n", Source: "---\nname: deploy\n---\nRun the deploy script.\n", Files: []string{"SKILL.md", "deploy.sh"},
		},
	}
}

func goldenEngine() *EngineList {
	return &EngineList{
		Text:     "<available_skills>\n<skill>\n<name>pdf-forms</name>\n<description>…</description>\n</skill>\n</available_skills>\nCall load_skill with a skill's name to read it before you follow it.",
		Offered:  []string{"pdf-forms"},
		LeftOff:  []string{"commit-notes"},
		ListSize: 1, Preloaded: []string{"deploy"},
		Tool: &Tool{Name: "load_skill", Description: "Load a skill by name.", Parameters: json.RawMessage(`{"type":"object"}`)},
	}
}

// render writes everything a profile produces for the golden skills.
func render(p Profile) string {
	in := Input{NoBundled: true, Skills: goldenSkills(), Now: goldenNow, Engine: goldenEngine(), Roots: []string{"/work/skills"}}
	cat := p.Catalogue(in)
	var b strings.Builder
	fmt.Fprintf(&b, "== catalogue (%s) ==\n%s\n", p.Name(), cat.Text())
	b.WriteString("== entries ==\n")
	for _, e := range cat.Entries {
		fmt.Fprintf(&b, "%s: %s %d/%d rank %d: %s\n", e.Name, e.State, e.Kept, e.Length, e.Rank, e.Reason)
		if e.Warning != "" {
			fmt.Fprintf(&b, "  warning: %s\n", e.Warning)
		}
	}
	if cat.Agent != "" {
		fmt.Fprintf(&b, "== agent ==\n%s\n", cat.Agent)
	}
	if cat.Budget != nil {
		fmt.Fprintf(&b, "== budget ==\n%d of %d %s (%s)\n", cat.Budget.Used, cat.Budget.Limit, cat.Budget.Unit, cat.Budget.Rule)
	}
	for _, w := range cat.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	b.WriteString("== tool ==\n")
	if t := p.Tool(in); t != nil {
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		_ = enc.Encode(t)
	} else {
		b.WriteString("none\n")
	}
	for _, r := range []struct {
		label string
		req   Request
	}{{"activate", Request{Args: "keep it short"}}, {"mention", Request{Mention: true}}, {"repeat", Request{Repeat: true}}} {
		for _, s := range goldenSkills()[:2] {
			a := p.Activate(s, r.req)
			fmt.Fprintf(&b, "== %s %s ==\n", r.label, s.Name)
			if a.ToolResult != "" {
				fmt.Fprintf(&b, "[tool result]\n%s\n", a.ToolResult)
			}
			for _, m := range a.Messages {
				fmt.Fprintf(&b, "[%s message]\n%s\n", m.Role, m.Text)
			}
			if a.Note != "" {
				fmt.Fprintf(&b, "[note] %s\n", a.Note)
			}
		}
	}
	ps, _ := json.Marshal(p.Persistence())
	fmt.Fprintf(&b, "== persistence ==\n%s\n", ps)
	return b.String()
}

// TestGolden compares each profile's whole output for the golden skills
// with testdata/NAME.golden (reviewed against the sources named in the
// code; go test -update rewrites them).
func TestGolden(t *testing.T) {
	for _, p := range All() {
		t.Run(p.Name(), func(t *testing.T) {
			got := render(p)
			file := filepath.Join("testdata", p.Name()+".golden")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("read golden file (go test -update writes it): %v", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s:\n%s", p.Name(), file, harnesstest.FirstDiff(string(want), got))
			}
		})
	}
}

func TestGetUnknownListsKnown(t *testing.T) {
	_, err := Get("cursor")
	if err == nil {
		t.Fatal("unknown profile accepted")
	}
	for _, n := range Names() {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not name %s", err, n)
		}
	}
	for _, n := range Names() {
		p, err := Get(n)
		if err != nil || p.Name() != n {
			t.Errorf("Get(%q) = %v, %v", n, p, err)
		}
	}
}

// TestLifecycleOnlySkillet: Skillet's own lifecycle rules are on by
// default in the skillet profile alone.
func TestLifecycleOnlySkillet(t *testing.T) {
	for _, p := range All() {
		if got := p.Persistence().Lifecycle; got != (p.Name() == "skillet") {
			t.Errorf("%s: lifecycle %v", p.Name(), got)
		}
	}
}
