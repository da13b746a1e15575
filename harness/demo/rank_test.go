package demo

import "testing"

func loadPick(t *testing.T, listed []testSkill, u string) string {
	t.Helper()
	sys := systemMessage("You help.", nil, listed, nil)
	name, args := callOf(t, Respond(req(sys, offer(t, "load_skill"), user(u))))
	if name != toolLoadSkill {
		t.Fatalf("want load_skill, got %s %s", name, args)
	}
	return args
}

func TestNotForClausesSendTheMessageToTheNamedSkill(t *testing.T) {
	listed := []testSkill{
		{name: "account-review", desc: "Review a customer account's recent activity for anomalies. Use when asked to review an account; not for deciding whether to escalate a single transaction (that is fraud-triage)."},
		{name: "fraud-triage", desc: "Triage suspicious transactions and decide whether to escalate them to the fraud team."},
	}
	if got := loadPick(t, listed, "should we escalate this single transaction?"); got != `{"name":"fraud-triage"}` {
		t.Fatalf("the exclusion should send it to fraud-triage: %s", got)
	}
	if got := loadPick(t, listed, "review the account activity of ACC-1"); got != `{"name":"account-review"}` {
		t.Fatalf("the review itself stays with account-review: %s", got)
	}
}

func TestTiesGoToTheBetterDescription(t *testing.T) {
	listed := []testSkill{
		{name: "sales", desc: "Track the team's numbers."},
		{name: "reports", desc: "Weekly sales summaries."},
	}
	// both share two words with the message; reports through its description
	if got := loadPick(t, listed, "sales numbers weekly"); got != `{"name":"reports"}` {
		t.Fatalf("tie: %s", got)
	}
}

func TestEngineLinesAnywhereAreNotTheUsersWords(t *testing.T) {
	for in, want := range map[string]string{
		"contextChanged: loaded x\n  | body line\n  | more\nhello there": "hello there",
		"hello\ncontextChanged: unloaded x (lru)\n  | gone text":         "hello",
		"harness.log: tool y left out\n\nreal words":                     "real words",
		"no notes | at all": "no notes | at all",
	} {
		if got := stripEngineLines(in); got != want {
			t.Errorf("stripEngineLines(%q) = %q, want %q", in, got, want)
		}
	}
}
