package uitest

import (
	"context"
	"encoding/json"
	"strings"

	"skillet/harness"
	"skillet/skills"
)

func params(s string) json.RawMessage { return json.RawMessage(s) }

// Sample is an engine with a handful of skills that exercise every pane:
// a preload, skills with tools (one asks for approval), an invalid skill
// and a shadowed one.
func Sample() *Engine {
	activity := harness.ToolInfo{Name: "get_account_activity", Version: 1, Pinned: true, Approval: harness.ApproveNever, Kind: skills.KindResponse,
		Description: "Fetch one page of an account's activity.",
		Parameters:  params(`{"type":"object","properties":{"account_id":{"type":"string","description":"The account to read."},"page":{"type":"integer","description":"Page number, from 1."},"include_pending":{"type":"boolean"}},"required":["account_id"]}`)}
	checks := harness.ToolInfo{Name: "run_checks", Version: 2, Approval: harness.ApproveAsk, Kind: skills.KindCommand,
		Description: "Run the review's consistency checks.",
		Parameters:  params(`{"type":"object","properties":{"account_id":{"type":"string"},"quick":{"type":"boolean"}},"required":["account_id"]}`)}
	tone := harness.ToolInfo{Name: "tone_check", Version: 1, Approval: harness.ApproveNever, Kind: skills.KindResponse,
		Description: "Score a draft against the brand voice.", Parameters: params(`{"type":"object","properties":{"draft":{"type":"string"}},"required":["draft"]}`)}
	weather := harness.ToolInfo{Name: "get_weather", Version: 1, Pinned: true, Source: "agent", Approval: harness.ApproveNever, Kind: skills.KindResponse,
		Description: "Weather for a city.", Parameters: params(`{"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string","enum":["metric","imperial"]}},"required":["city"]}`)}
	return New([]Skill{
		{Name: "house-style", Version: "1", Preload: true, Description: "House writing style.",
			Body: "Write plainly. Prefer short sentences.\nNever promise dates."},
		{Name: "account-review", Version: "2", Description: "Review account activity for anomalies. Use when asked to review or audit an account.",
			Body:  "# Account review\nRead every page of activity before you conclude.\nMark the review incomplete when a page fails.",
			Tools: []harness.ToolInfo{activity, checks}},
		{Name: "brand-voice", Version: "1", Description: "Keep replies in the brand voice. Use when drafting customer-facing text.",
			Body: "# Brand voice\nWarm, direct, no jargon.", Tools: []harness.ToolInfo{tone}},
		{Name: "pdf-tools", Version: "3", Description: "Fill and read PDF forms.", Body: "# PDF tools\nUse the form fields as given."},
		{Name: "data-cleanup", Version: "1", Description: "Normalise CSV exports before analysis.", Body: "# Data cleanup\nTrim, dedupe, then sort."},
		{Name: "broken-skill", Description: "", Problems: []string{"description: must not be empty", "name: must match the folder name"}},
		{Name: "pdf-tools-old", Version: "1", Description: "An older copy.", Shadowed: true},
	}, []harness.ToolInfo{weather})
}

// Demo is the default turn: the model loads a skill, calls its tools (one
// needs approval) and answers in Markdown. Keywords pick other paths:
// "voice" loads brand-voice, "pdf" calls a tool it does not have (R6),
// "long" returns a long tool result.
func Demo(ctx context.Context, e *Engine, text string) (*harness.TurnEnd, error) {
	e.StartTurn(text)
	lower := strings.ToLower(text)
	switch {
	case strings.Contains(lower, "voice"):
		return loadThenAnswer(ctx, e, "brand-voice", "Here is the draft in the **brand voice**: warm, direct, no jargon.")
	case strings.Contains(lower, "pdf"):
		call := e.ModelCall()
		c := e.NewCall("render_pdf", map[string]any{"file": "form.pdf"})
		e.Assistant(call, "", "", c)
		e.RunTool(ctx, c, "")
		return answer(ctx, e, "I cannot render PDFs here: `render_pdf` is not one of my tools.")
	case strings.Contains(lower, "long"):
		call := e.ModelCall()
		c := e.NewCall("get_weather", map[string]any{"city": "Oslo"})
		e.Assistant(call, "", "", c)
		var b strings.Builder
		for i := 0; i < 300; i++ {
			b.WriteString(`{"hour":` + itoa(i) + `,"temp":4},`)
		}
		e.RunTool(ctx, c, `{"hours":[`+strings.TrimSuffix(b.String(), ",")+`]}`)
		return answer(ctx, e, "Cold all day.")
	}
	call := e.ModelCall()
	reasoning := "The user asks for an account review. The account-review skill matches; load it first."
	if err := e.Stream(ctx, call, reasoning, true); err != nil {
		return nil, err
	}
	c := e.NewCall("load_skill", map[string]any{"name": "account-review"})
	e.Assistant(call, "", reasoning, c)
	e.RunTool(ctx, c, "")
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	call = e.ModelCall()
	c = e.NewCall("get_account_activity", map[string]any{"account_id": "ACME-42", "page": 1})
	e.Assistant(call, "Reading the first page of activity.", "", c)
	e.RunTool(ctx, c, `{"account":"ACME-42","items":[{"id":1,"amount":120.5,"kind":"card"},{"id":2,"amount":-9999,"kind":"refund"}],"next_page":null}`)
	call = e.ModelCall()
	c = e.NewCall("run_checks", map[string]any{"account_id": "ACME-42", "quick": true})
	e.Assistant(call, "", "", c)
	e.RunTool(ctx, c, `{"ok":false,"findings":["refund larger than any purchase"]}`)
	return answer(ctx, e, "## Review of ACME-42\n\n- 2 items read, **1 anomaly**: a refund of `-9999` with no matching purchase.\n- Checks flagged it too.\n\nThe review is complete.")
}

func loadThenAnswer(ctx context.Context, e *Engine, skill, text string) (*harness.TurnEnd, error) {
	call := e.ModelCall()
	c := e.NewCall("load_skill", map[string]any{"name": skill})
	e.Assistant(call, "", "", c)
	e.RunTool(ctx, c, "")
	return answer(ctx, e, text)
}

// answer streams the final message and ends the turn.
func answer(ctx context.Context, e *Engine, text string) (*harness.TurnEnd, error) {
	call := e.ModelCall()
	if err := e.Stream(ctx, call, text, false); err != nil {
		return nil, err
	}
	e.Assistant(call, text, "")
	return e.EndTurn("done"), nil
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
