package demo

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestDemoSequence replays the scripted demo: a few plain user messages
// that, with the sample skills and a limit of 3 loaded skills, make the
// lifecycle rules visible one after another.
func TestDemoSequence(t *testing.T) {
	w := newWorld(t)
	steps := []struct {
		user    string
		calls   []string
		lru     []string
		inReply []string
	}{
		{
			user:    "review account ACC-1042 for anomalies",
			calls:   []string{`load_skill {"name":"account-review"}`, `get_account_activity {"account_id":"ACC-1042"}`},
			lru:     []string{"account-review"},
			inReply: []string{"`get_account_activity` answered: ok: yes", "`account-review` (active)", "`house-style` (preloaded)", "> Read every page of activity"},
		},
		{
			user:    "write an incident report for yesterday's outage",
			calls:   []string{`load_skill {"name":"incident-report"}`},
			lru:     []string{"incident-report", "account-review"},
			inReply: []string{"`load_skill` answered: loaded incident-report", "`incident-report` (active)", "Also loaded: `account-review`.", "> Start with the timeline, in UTC."},
		},
		{
			user:    "capture meeting notes: we decided to ship on Friday",
			calls:   []string{`load_skill {"name":"meeting-notes"}`, `save_action_item {"text":"capture meeting notes: we decided to ship on Friday"}`},
			lru:     []string{"meeting-notes", "incident-report", "account-review"},
			inReply: []string{"`save_action_item` answered:"},
		},
		{
			user:    "run the release checks for v1.4.0",
			calls:   []string{`load_skill {"name":"release-checklist"}`, `run_checks {"version":"v1.4.0"}`},
			lru:     []string{"release-checklist", "meeting-notes", "incident-report"}, // account-review left (R2)
			inReply: []string{"`run_checks` answered: ok: yes"},
		},
		{
			// The tool left with its skill; the demo model calls it anyway (R6),
			// reads "Unknown tool", loads the skill again and calls it again.
			user: "get account activity for ACC-1042 again",
			calls: []string{
				`get_account_activity {"account_id":"ACC-1042"}`,
				`load_skill {"name":"account-review"}`,
				`get_account_activity {"account_id":"ACC-1042"}`,
			},
			lru:     []string{"account-review", "release-checklist", "meeting-notes"},
			inReply: []string{"was refused with `Unknown tool: get_account_activity`", "it was not offered then, and it is offered again now."},
		},
		{
			// A loaded skill that is not active, named again, is read again to
			// become active (R3) without a new load.
			user:    "back to meeting-notes: list the action items",
			calls:   []string{`load_skill {"name":"meeting-notes"}`, `list_action_items {}`},
			lru:     []string{"meeting-notes", "account-review", "release-checklist"},
			inReply: []string{"`load_skill` answered: meeting-notes became active", "`meeting-notes` (active)"},
		},
		{
			// An explicit call of a tool no loaded skill offers (R6).
			user:    "call score_risk {\"transaction_id\": \"T-77\"}",
			calls:   []string{`score_risk {"transaction_id":"T-77"}`},
			lru:     []string{"meeting-notes", "account-review", "release-checklist"},
			inReply: []string{"`Unknown tool: score_risk`", "it is not offered.", "Loading `fraud-triage` may bring it back: `load fraud-triage`."},
		},
	}
	for i, st := range steps {
		calls, answer := w.turn(st.user)
		if !slices.Equal(calls, st.calls) {
			t.Fatalf("step %d %q: calls\n got %q\nwant %q", i+1, st.user, calls, st.calls)
		}
		if !slices.Equal(w.lru, st.lru) {
			t.Errorf("step %d: loaded skills %v, want %v", i+1, w.lru, st.lru)
		}
		if !strings.HasPrefix(answer, answerPrefix) {
			t.Errorf("step %d: answer does not start with %q: %q", i+1, answerPrefix, answer)
		}
		for _, want := range st.inReply {
			if !strings.Contains(answer, want) {
				t.Errorf("step %d: answer lacks %q:\n%s", i+1, want, answer)
			}
		}
	}
}

// TestDeterminism_SameChatSameTranscript plays the same chat twice: every
// message, tool call id included, comes out byte for byte the same.
func TestDeterminism_SameChatSameTranscript(t *testing.T) {
	play := func() []byte {
		w := newWorld(t)
		for _, u := range []string{
			"review account ACC-1042 for anomalies",
			"write an incident report for yesterday's outage",
			"capture meeting notes: we decided to ship on Friday",
			"run the release checks for v1.4.0",
			"get account activity for ACC-1042 again",
		} {
			w.turn(u)
		}
		b, err := json.Marshal(w.transcript)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := play(), play()
	if string(a) != string(b) {
		t.Fatalf("two plays of one chat differ:\n%s\n%s", a, b)
	}
	// Tool call ids are unique within the chat, as the engine needs.
	var msgs []struct {
		ToolCalls []struct{ ID string } `json:"tool_calls"`
	}
	if err := json.Unmarshal(a, &msgs); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			if tc.ID == "" || seen[tc.ID] {
				t.Fatalf("tool call id %q empty or repeated", tc.ID)
			}
			seen[tc.ID] = true
		}
	}
	if len(seen) < 8 {
		t.Fatalf("only %d tool calls in the chat", len(seen))
	}
}
