package ui

import (
	"os"
	"strings"
	"testing"

	"skillet/harness"
	"skillet/harness/harnesstest"
	"skillet/harness/sandbox"
)

// TestAgentToolsShowTheirRunsAndDiffs drives the real engine with the
// agent tools on: the tools pane lists them with their policies, a shell
// call shows its command, exit code and sandbox, a write shows its diff,
// and /files lists the changes call by call.
func TestAgentToolsShowTheirRunsAndDiffs(t *testing.T) {
	if _, err := sandbox.New(sandbox.Options{}); err != nil {
		if os.Getenv("SKILLET_REQUIRE_SANDBOX") != "" {
			t.Fatalf("no sandbox: %v", err)
		}
		t.Skipf("no sandbox can start here: %v", err)
	}
	script := &harnesstest.Model{}
	script.Add(harnesstest.Call("shell", `{"command":"echo hello from the sandbox; exit 3"}`),
		harnesstest.Call("write", `{"path":"notes/todo.md","content":"- ship it\n"}`),
		harnesstest.Say("Wrote the notes."))
	sink := NewEventSink()
	s, _ := sampleSessionWith(t, sink, script, func(o *harness.Options) {
		o.Config.Session.AgentTools = true
		o.ApproveAll, o.Approver = true, nil
	})
	d := driveEngine(t, s, sink, 160, 60)
	screen := d.screen()
	for _, want := range []string{"shell", "profile · ask · shell", "read", "profile · never · read"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the tools pane lacks %q:\n%s", want, screen)
		}
	}
	d.send("write the notes")
	d.until(func(m *model) bool { return !m.running })
	d.key("alt+e") // unfold all
	screen = d.screen()
	for _, want := range []string{"$ echo hello from the sandbox; exit 3", "exit 3", "bubblewrap sandbox", "hello from the sandbox", "+- ship it"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, screen)
		}
	}
	d.key("alt+f")
	d.settle()
	screen = d.screen()
	if !strings.Contains(screen, "changed files") || !strings.Contains(screen, "notes/todo.md") {
		t.Fatalf("/files does not list the write:\n%s", screen)
	}
	// time travel: as the second call went out, the write had not happened
	d.key("esc")
	d.key("alt+[")
	d.settle()
	d.key("alt+[")
	d.settle()
	d.key("alt+f")
	d.settle()
	screen = d.screen()
	if !strings.Contains(screen, "workspace at call 2") || strings.Contains(screen, "notes/todo.md") || !strings.Contains(screen, "--at 2 --out DIR") {
		t.Fatalf("/files while travelling:\n%s", screen)
	}
	d.key("esc")
	d.key("alt+]")
	d.settle()
	d.key("alt+f")
	d.settle()
	if screen = d.screen(); !strings.Contains(screen, "workspace at call 3") || !strings.Contains(screen, "notes/todo.md") {
		t.Fatalf("/files at the third call:\n%s", screen)
	}
}

// TestBenchRunsTheActiveSkillsEvals: /bench with no name benchmarks the
// active skill, says so, and shows the report when it is done.
func TestBenchRunsTheActiveSkillsEvals(t *testing.T) {
	var asked []string
	sink := NewEventSink()
	s, _ := sampleSession(t, sink, nil)
	d := driveEngineWith(t, s, sink, 160, 48, Options{Style: "dark", Bench: func(skill string) (*BenchResult, error) {
		asked = append(asked, skill)
		return &BenchResult{Report: "account-review: helps · delta +0.60 [0.12, 0.85]"}, nil
	}})
	d.send("/load account-review")
	d.send("/bench")
	d.settle()
	if len(asked) != 1 || asked[0] != "account-review" {
		t.Fatalf("benchmarked %v, want the active skill", asked)
	}
	if !strings.Contains(d.screen(), "helps · delta") {
		t.Fatalf("the report is not shown:\n%s", d.screen())
	}
}
