package demo_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"skillet/harness"
	"skillet/harness/chat"
	"skillet/harness/demo"
	"skillet/harness/demo/demotest"
	"skillet/harness/event"
)

// session runs the real engine over the sample skills with the demo model
// served on loopback.
func session(t *testing.T) (*harness.Session, *[]*event.Assistant) {
	t.Helper()
	var calls []*event.Assistant
	p := demotest.Sample(t, "../../sample-skills")
	o := harness.Options{Config: p.Config, Catalog: p.Catalog, Model: p.Model, ModelName: p.ModelName, Demo: true, OnEvent: func(ev event.Event) {
		if a, ok := ev.(*event.Assistant); ok {
			calls = append(calls, a)
		}
	}}
	s, err := harness.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &calls
}

func toolCalls(as []*event.Assistant) []string {
	var out []string
	for _, a := range as {
		for _, tc := range a.ToolCalls {
			out = append(out, tc.Name+" "+tc.Arguments)
		}
	}
	return out
}

func TestAHandLoadedSkillIsNeverTheUsersWords(t *testing.T) {
	s, calls := session(t)
	if err := s.LoadSkill("account-review"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Turn(context.Background(), "run the release checks for v1.4.0"); err != nil {
		t.Fatal(err)
	}
	got := toolCalls(*calls)
	for _, c := range got {
		if strings.HasPrefix(c, "get_account_activity") || strings.HasPrefix(c, "flag_transaction") {
			t.Fatalf("the skill's text was read as the user's words: %v", got)
		}
	}
	if len(got) == 0 || got[0] != `load_skill {"name":"release-checklist"}` {
		t.Fatalf("want release-checklist loaded first, got %v", got)
	}
	var sawChecks bool
	for _, c := range got {
		if c == `run_checks {"version":"v1.4.0"}` {
			sawChecks = true
		}
	}
	if !sawChecks {
		t.Fatalf("want run_checks for v1.4.0, got %v", got)
	}
}

// engineNote is a user message as the engine sends it after a hand load:
// the pending contextChanged note with the skill's text on continuation
// lines, then the user's own words.
const engineNote = "contextChanged: loaded account-review version 2 as execution x-2; it is the active skill; tools: flag_transaction@1, get_account_activity@1\n" +
	"  | # Account review\n  | A transfer of EUR 4,850 went to account ACC-55555.\n  | Never say an account is clean.\n"

func TestEngineLinesAreDroppedWhereverTheNoteEnds(t *testing.T) {
	params := json.RawMessage(`{"type":"object","properties":{"account_id":{"type":"string","description":"The account to read, such as ACC-20931."}},"required":["account_id"]}`)
	tool := chat.Tool{Type: "function", Function: &openaiDef{Name: "get_account_activity", Description: "Fetch a customer account's recent activity.", Parameters: params}}
	req := &chat.Request{Model: demo.ModelName, Tools: []chat.Tool{tool}, Messages: []chat.Message{
		{Role: chat.RoleSystem, Content: "You help."},
		{Role: chat.RoleUser, Content: engineNote + "show the account activity please"},
	}}
	m := demo.Respond(req)
	if len(m.ToolCalls) != 1 {
		t.Fatalf("want one call, got %+v", m)
	}
	// nothing in the user's words: the schema's example, never the skill's text
	if args := m.ToolCalls[0].Function.Arguments; args != `{"account_id":"ACC-20931"}` {
		t.Fatalf("arguments: %s", args)
	}
	req.Messages[1].Content = engineNote + "show the account activity for ACC-777"
	if args := demo.Respond(req).ToolCalls[0].Function.Arguments; args != `{"account_id":"ACC-777"}` {
		t.Fatalf("the message's id should win: %s", args)
	}
}

type openaiDef = chat.FunctionDefinition
