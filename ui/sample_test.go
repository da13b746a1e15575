package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"skillet/harness"
	"skillet/harness/chat"
	"skillet/harness/config"
	"skillet/harness/harnesstest"
)

// The sample workspace of the interface's tests: a preload, skills with
// tools (one a command that asks for approval), an agent tool, an invalid
// skill and one shadowed by an earlier root, so every pane has something
// to show.
const sampleConfig = `
[agent]
prompt = "You are a careful assistant for account reviews."
tools = [{ name = "get_weather", version = 1 }]

[[skills]]
name = "house-style"
preload = true

[[skills]]
name = "account-review"

[[skills]]
name = "brand-voice"

[[skills]]
name = "pdf-tools"

[[skills]]
name = "data-cleanup"
`

const (
	activityTool = `name: get_account_activity
version: 1
description: Fetch one page of an account's activity.
parameters:
  type: object
  properties:
    account_id: {type: string, description: The account to read.}
    page: {type: integer, description: "Page number, from 1."}
    include_pending: {type: boolean}
  required: [account_id]
response: '{"account":{{json .account_id}},"items":[{"id":1,"amount":120.5,"kind":"card"},{"id":2,"amount":-9999,"kind":"refund"}],"next_page":null}'
`
	checksTool = `name: run_checks
version: 2
description: Run the review's consistency checks.
parameters:
  type: object
  properties:
    account_id: {type: string}
    quick: {type: boolean}
  required: [account_id]
command: ["./run_checks.sh"]
timeout: 10s
`
	checksScript = "#!/bin/sh\ncat >/dev/null\necho '{\"ok\":false,\"findings\":[\"refund larger than any purchase\"]}'\n"
	toneTool     = `name: tone_check
version: 1
description: Score a draft against the brand voice.
parameters:
  type: object
  properties:
    draft: {type: string}
  required: [draft]
response: '{"score":0.9}'
`
)

// weatherTool answers a long forecast, to be folded in the transcript.
func weatherTool() string {
	var hours []string
	for i := 0; i < 300; i++ {
		hours = append(hours, fmt.Sprintf(`{"hour":%d,"temp":4}`, i))
	}
	return `name: get_weather
version: 1
description: Weather for a city.
parameters:
  type: object
  properties:
    city: {type: string}
    units: {type: string, enum: [metric, imperial]}
  required: [city]
response: '{"city":{{json .city}},"hours":[` + strings.Join(hours, ",") + `]}'
`
}

// sampleWorkspace writes the sample workspace; the second root holds an
// older pdf-tools, shadowed by the first.
func sampleWorkspace(tb testing.TB) (w *harnesstest.Workspace, older string) {
	tb.Helper()
	w = harnesstest.NewWorkspace(tb)
	w.Config(sampleConfig)
	w.Skill("house-style", "House writing style.", "Write plainly. Prefer short sentences.\nNever promise dates.", "metadata:\n  version: \"1\"\n")
	w.Skill("account-review", "Review account activity for anomalies. Use when asked to review or audit an account.",
		"# Account review\nRead every page of activity before you conclude.\nMark the review incomplete when a page fails.",
		"metadata:\n  version: \"2\"\ntools:\n  - name: get_account_activity\n    version: 1\n  - name: run_checks\n")
	w.Tool("get_account_activity.v1.yaml", activityTool)
	w.SkillTool("account-review", "run_checks.yaml", checksTool)
	w.SkillTool("account-review", "run_checks.sh", checksScript)
	w.Skill("brand-voice", "Keep replies in the brand voice. Use when drafting customer-facing text.", "# Brand voice\nWarm, direct, no jargon.",
		"metadata:\n  version: \"1\"\ntools:\n  - name: tone_check\n")
	w.SkillTool("brand-voice", "tone_check.yaml", toneTool)
	w.Skill("pdf-tools", "Fill and read PDF forms.", "# PDF tools\nUse the form fields as given.", "metadata:\n  version: \"3\"\n")
	w.Skill("data-cleanup", "Normalise CSV exports before analysis.", "# Data cleanup\nTrim, dedupe, then sort.", "metadata:\n  version: \"1\"\n")
	w.Write("broken-skill/SKILL.md", "---\nname: broken\ndescription: \"\"\n---\nNothing here.\n")
	w.Tool("get_weather.v1.yaml", weatherTool())
	old := harnesstest.NewWorkspace(tb)
	old.Skill("pdf-tools", "An older copy.", "# PDF tools\nThe old way.", "metadata:\n  version: \"1\"\n")
	chmodX(tb, filepath.Join(w.Root, "account-review", "tools", "run_checks.sh"))
	return w, old.Root
}

// sampleModels are what the sample session's model lists.
var sampleModels = []string{"gpt-4o-mini", "gpt-4o", "o4-mini", "demo"}

// sampleSession starts a real session over the sample workspace, its
// events and approvals going through sink. script answers; nil plays
// demoTurn for every model call. It returns the script it used.
func sampleSession(tb testing.TB, sink *Sink, script *harnesstest.Model) (*harness.Session, *harnesstest.Model) {
	tb.Helper()
	return sampleSessionWith(tb, sink, script, nil)
}

// sampleSessionWith is sampleSession with the options changed by mod.
func sampleSessionWith(tb testing.TB, sink *Sink, script *harnesstest.Model, mod func(*harness.Options)) (*harness.Session, *harnesstest.Model) {
	tb.Helper()
	w, older := sampleWorkspace(tb)
	return openSession(tb, w, sink, script, mod, older)
}

// openSession starts a real session over a workspace (its config read
// from the workspace's config file) and the extra roots.
func openSession(tb testing.TB, w *harnesstest.Workspace, sink *Sink, script *harnesstest.Model, mod func(*harness.Options), roots ...string) (*harness.Session, *harnesstest.Model) {
	tb.Helper()
	if script == nil {
		script = &harnesstest.Model{Fallback: demoTurn}
	}
	if script.Names == nil {
		script.Names = sampleModels
	}
	script.Raw = true // the inspector shows the raw reply
	cfg, err := config.Load(filepath.Join(w.Root, config.File))
	if err != nil {
		tb.Fatal(err)
	}
	// the screens these tests pin down show the sample skills' own tools;
	// the agent tools have tests of their own (agenttools_test.go), which
	// turn them back on through mod
	cfg.Session.AgentTools = false
	seq := 0
	opts := harness.Options{Config: cfg, Catalog: w.Catalog(roots...), Model: script, ModelName: "gpt-4o-mini", BaseURL: "https://api.openai.com/v1",
		Dir: tb.TempDir(), OnEvent: sink.OnEvent, Approver: NewApprover(sink),
		NewID: func() string { seq++; return fmt.Sprintf("s-%d", seq) }}
	if mod != nil {
		mod(&opts)
	}
	s, err := harness.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s, script
}

// demoTurn is the sample session's model: it loads a skill, calls its
// tools (one needs approval) and answers in Markdown. Words of the user's
// message pick other paths: "voice" loads brand-voice, "pdf" calls a tool
// it does not have (R6), "long" gets a long tool result.
func demoTurn(ctx context.Context, req *chat.Request, on func(chat.StreamEvent)) (*chat.Reply, error) {
	user, after := harnesstest.SinceUser(req)
	step := 0
	for _, m := range after {
		if m.Role == chat.RoleAssistant {
			step++
		}
	}
	answer := func(text string) (*chat.Reply, error) {
		return harnesstest.Stream(harnesstest.Streamed{Text: text})(ctx, req, on)
	}
	lower := strings.ToLower(user)
	script := [][]string{{harnesstest.LoadSkillTool, harnesstest.LoadArgs("account-review")},
		{"get_account_activity", `{"account_id":"ACME-42","page":1}`}, {"run_checks", `{"account_id":"ACME-42","quick":true}`}}
	final := "## Review of ACME-42\n\n- 2 items read, **1 anomaly**: a refund of `-9999` with no matching purchase.\n- Checks flagged it too.\n\nThe review is complete."
	switch {
	case strings.Contains(lower, "voice"):
		script, final = script[:1], "Here is the draft in the **brand voice**: warm, direct, no jargon."
		script[0] = []string{harnesstest.LoadSkillTool, harnesstest.LoadArgs("brand-voice")}
	case strings.Contains(lower, "pdf"):
		script, final = [][]string{{"render_pdf", `{"file":"form.pdf"}`}}, "I cannot render PDFs here: `render_pdf` is not one of my tools."
	case strings.Contains(lower, "long"):
		script, final = [][]string{{"get_weather", `{"city":"Oslo"}`}}, "Cold all day."
	}
	if step >= len(script) {
		return answer(final)
	}
	s := harnesstest.Streamed{Calls: script[step]}
	switch {
	case script[step][0] == harnesstest.LoadSkillTool && !strings.Contains(lower, "voice"):
		s.Reasoning = "The user asks for an account review. The account-review skill matches; load it first."
	case script[step][0] == "get_account_activity":
		s.Text = "Reading the first page of activity."
	}
	return harnesstest.Stream(s)(ctx, req, on)
}

func chmodX(tb testing.TB, path string) {
	tb.Helper()
	if err := os.Chmod(path, 0o755); err != nil {
		tb.Fatal(err)
	}
}

// harnessLogDriver drives a sample session that lists two skills at most
// and sends two messages a request, answered by steps; its skill
// weather-notes names a tool that exists nowhere.
func harnessLogDriver(t *testing.T, steps ...harnesstest.Step) *driver {
	t.Helper()
	w, older := sampleWorkspace(t)
	w.Config(strings.Replace(sampleConfig, "[[skills]]", "[session]\nlist_size = 2\nmax_transcript_messages = 2\n\n[[skills]]\nname = \"weather-notes\"\n\n[[skills]]", 1))
	w.Skill("weather-notes", "Notes on the weather.", "Say the weather plainly.", "tools:\n  - name: missing_tool\n")
	sink := NewEventSink()
	script := harnesstest.New(steps...)
	s, _ := openSession(t, w, sink, script, nil, older)
	return driveEngine(t, s, sink, 160, 48)
}
