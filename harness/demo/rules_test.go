package demo

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"skillet/harness/chat"
)

// baseSys is the instructions of a fresh session: house-style preloaded and
// the sample skills listed, nothing loaded.
func baseSys() string {
	return systemMessage("You are a careful assistant.", []testSkill{houseStyle}, sampleListed, nil)
}

func TestRule1_LoadCommands(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"load account-review", `{"name":"account-review"}`},
		{"Use sql-review", `{"name":"sql-review"}`},
		{"read skill fraud-triage", `{"name":"fraud-triage"}`},
		{"load no-such-skill", `{"name":"no-such-skill"}`}, // the engine answers the error
		{"please look at this\nload `meeting-notes`.", `{"name":"meeting-notes"}`},
	} {
		t.Run(tc.msg, func(t *testing.T) {
			name, args := callOf(t, Respond(req(baseSys(), offer(t, "load_skill"), user(tc.msg))))
			if name != "load_skill" || args != tc.want {
				t.Fatalf("got %s %s, want load_skill %s", name, args, tc.want)
			}
		})
	}
}

func TestRule1_ProseIsNotACommand(t *testing.T) {
	// "use the …" names no skill: rule 2 picks a skill from the words.
	name, args := callOf(t, Respond(req(baseSys(), offer(t, "load_skill"), user("use the house rules to write an incident report"))))
	if name != "load_skill" || args != `{"name":"incident-report"}` {
		t.Fatalf("got %s %s", name, args)
	}
	// A line that merely mentions "load" later is not a command either.
	m := Respond(req(systemMessage("p", nil, nil, nil), nil, user("the page will load slowly")))
	textOf(t, m)
}

func TestRule1_CallCommandWithJSON(t *testing.T) {
	// score_risk is not offered: the command calls it anyway (R6 demo).
	m := Respond(req(baseSys(), offer(t, "load_skill"), user(`call score_risk {"transaction_id": "TX-1", "amount": 12.50, "signals": ["new_device"]}`)))
	name, args := callOf(t, m)
	if name != "score_risk" || args != `{"amount":12.50,"signals":["new_device"],"transaction_id":"TX-1"}` {
		t.Fatalf("got %s %s", name, args)
	}
	// JSON may start on the next line and span lines.
	m = Respond(req(baseSys(), nil, user("call run_checks\n{\n  \"version\": \"v2.0.0\"\n}")))
	if name, args := callOf(t, m); name != "run_checks" || args != `{"version":"v2.0.0"}` {
		t.Fatalf("got %s %s", name, args)
	}
}

func TestRule1_CallCommandMalformedJSONSentAsIs(t *testing.T) {
	m := Respond(req(baseSys(), offer(t, "run_checks"), user(`call run_checks {"version": v1}`)))
	if name, args := callOf(t, m); name != "run_checks" || args != `{"version": v1}` {
		t.Fatalf("got %s %s", name, args)
	}
}

func TestRule1_CallCommandArgsFromSchema(t *testing.T) {
	m := Respond(req(baseSys(), offer(t, "load_skill", "run_checks"), user("call run_checks for v2.3.1 please")))
	if name, args := callOf(t, m); name != "run_checks" || args != `{"version":"v2.3.1"}` {
		t.Fatalf("got %s %s", name, args)
	}
	// Not offered and never called: no schema, empty arguments.
	m = Respond(req(baseSys(), nil, user("call draft_summary")))
	if name, args := callOf(t, m); name != "draft_summary" || args != `{}` {
		t.Fatalf("got %s %s", name, args)
	}
}

func TestRule1_ReadResourceCommand(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"read account-review/references/risk-thresholds.md", `{"path":"references/risk-thresholds.md","skill":"account-review"}`},
		{"read release-checklist/", `{"path":"","skill":"release-checklist"}`},
	} {
		name, args := callOf(t, Respond(req(baseSys(), offer(t, "read_skill_resource"), user(tc.msg))))
		if name != "read_skill_resource" || args != tc.want {
			t.Fatalf("%q: got %s %s, want %s", tc.msg, name, args, tc.want)
		}
	}
}

func TestRule1_CommandsRunOncePerTurnInOrder(t *testing.T) {
	u := user("load account-review\ncall get_account_activity {\"account_id\": \"ACC-7\"}")
	tools := offer(t, "load_skill", "read_skill_resource", "get_account_activity")
	msgs := []chat.Message{u}
	var got []string
	for range 5 {
		m := Respond(req(baseSys(), tools, msgs...))
		if len(m.ToolCalls) == 0 {
			textOf(t, m)
			break
		}
		tc := m.ToolCalls[0]
		got = append(got, tc.Function.Name+" "+tc.Function.Arguments)
		msgs = append(msgs, m, result(tc.ID, "ok"))
	}
	want := []string{`load_skill {"name":"account-review"}`, `get_account_activity {"account_id":"ACC-7"}`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("calls %q, want %q", got, want)
	}
	// The next turn runs the same command again.
	msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, Content: "done"}, user("load account-review"))
	if name, _ := callOf(t, Respond(req(baseSys(), tools, msgs...))); name != "load_skill" {
		t.Fatalf("a new turn did not run the command again: %s", name)
	}
}

func TestRule2_LoadsBestMatchingSkill(t *testing.T) {
	name, args := callOf(t, Respond(req(baseSys(), offer(t, "load_skill", "read_skill_resource"), user("please review account ACC-1042 for anomalies"))))
	if name != "load_skill" || args != `{"name":"account-review"}` {
		t.Fatalf("got %s %s", name, args)
	}
}

func TestRule2_TiesGoToTheEarlierSkill(t *testing.T) {
	a := testSkill{name: "alpha-notes", desc: "Keeps budget notes."}
	b := testSkill{name: "beta-notes", desc: "Keeps budget notes."}
	for _, order := range [][]testSkill{{a, b}, {b, a}} {
		sys := systemMessage("p", nil, order, nil)
		_, args := callOf(t, Respond(req(sys, offer(t, "load_skill"), user("budget please"))))
		if want := fmt.Sprintf(`{"name":%q}`, order[0].name); args != want {
			t.Fatalf("order %s,%s: got %s, want %s", order[0].name, order[1].name, args, want)
		}
	}
}

func TestRule2_NoMatchNoLoad(t *testing.T) {
	m := Respond(req(baseSys(), offer(t, "load_skill"), user("hello there")))
	text := textOf(t, m)
	if !strings.Contains(text, "Nothing in your message matched") {
		t.Fatalf("answer does not say nothing matched:\n%s", text)
	}
}

func TestRule2_NeedsLoadSkillOffered(t *testing.T) {
	// Paste mode (R22): no load_skill tool, so no load.
	textOf(t, Respond(req(baseSys(), nil, user("review account ACC-1042"))))
}

func TestRule2_OneLoadPerTurn(t *testing.T) {
	msgs := []chat.Message{
		user("review account ACC-1042 and write an incident report"),
		called("c1", "load_skill", `{"name":"incident-report"}`),
		result("c1", "contextChanged: loaded incident-report"),
	}
	sys := systemMessage("p", nil, sampleListed, []loadedSkill{{skill: incidentReport, exec: "x-1", active: true}})
	m := Respond(req(sys, offer(t, "load_skill"), msgs...))
	textOf(t, m) // account-review also matches, but this turn already loaded a skill
}

func TestRule2_SkipsLoadedAndPreloadedSkills(t *testing.T) {
	loaded := []loadedSkill{{skill: accountReview, exec: "x-1", active: true}}
	sys := systemMessage("p", nil, sampleListed, loaded)
	m := Respond(req(sys, offer(t, "load_skill"), user("review the account")))
	textOf(t, m) // account-review is the best match and already active

	// A preloaded skill listed by mistake is not loaded either.
	sys = systemMessage("p", []testSkill{accountReview}, sampleListed, nil)
	textOf(t, Respond(req(sys, offer(t, "load_skill"), user("review the account"))))
}

func TestR3_RereadsLoadedSkillToMakeItActive(t *testing.T) {
	loaded := []loadedSkill{
		{skill: meetingNotes, exec: "x-2", active: true},
		{skill: accountReview, exec: "x-1"},
	}
	sys := systemMessage("p", nil, sampleListed, loaded)
	// Named, or matched by at least two words: read again.
	for _, msg := range []string{"back to account-review", "audit the account activity"} {
		name, args := callOf(t, Respond(req(sys, offer(t, "load_skill"), user(msg))))
		if name != "load_skill" || args != `{"name":"account-review"}` {
			t.Fatalf("%q: got %s %s", msg, name, args)
		}
	}
	// One word only: the demo model does not switch.
	textOf(t, Respond(req(sys, offer(t, "load_skill"), user("the account"))))
}

func TestRule3_CallsBestMatchingTool(t *testing.T) {
	sys := systemMessage("p", nil, sampleListed, []loadedSkill{{skill: meetingNotes, exec: "x-1", active: true}})
	tools := offer(t, "save_action_item", "draft_summary", "list_action_items") // no load_skill: rule 2 stays out
	for _, tc := range []struct{ msg, name, args string }{
		{"list the action items", "list_action_items", `{}`},
		{"draft the summary", "draft_summary", `{}`},
		{`save "Ana ships the build"`, "save_action_item", `{"text":"Ana ships the build"}`},
	} {
		name, args := callOf(t, Respond(req(sys, tools, user(tc.msg))))
		if name != tc.name || args != tc.args {
			t.Errorf("%q: got %s %s, want %s %s", tc.msg, name, args, tc.name, tc.args)
		}
	}
}

func TestRule3_ArgumentsFromSchema(t *testing.T) {
	tool := testTool{name: "book_room", desc: "Book a meeting room.", params: `{
		"type": "object",
		"properties": {
			"room":     {"type": "string"},
			"attendees":{"type": "integer"},
			"hours":    {"type": "number"},
			"confirm":  {"type": "boolean"},
			"kind":     {"type": "string", "enum": ["standup", "review", "social"]},
			"floor":    {"enum": ["ground", "first"]},
			"note":     {"type": ["string", "null"]},
			"tags":     {"type": "array", "items": {"type": "string"}},
			"where":    {"type": "object", "properties": {"site": {"type": "string"}}, "required": ["site"]},
			"owner":    {"type": "string"},
			"backup":   {"type": "string"}
		},
		"required": ["room", "attendees", "hours", "confirm", "kind", "floor", "tags", "where", "backup"]
	}`}
	tools := []chat.Tool{tool.tool(t)}
	for _, tc := range []struct{ msg, want string }{
		{
			// Identifiers go to string properties in sorted key order
			// (backup, room, where.site), plain numbers last; the first
			// number goes to the integer and number properties.
			"book room R-12 and R-14 for 8 people, site HQ-2, a review",
			`{"attendees":8,"backup":"R-12","confirm":true,"floor":"ground","hours":8,"kind":"review","room":"R-14","tags":[],"where":{"site":"HQ-2"}}`,
		},
		{
			// Explicit key: value wins and is not handed to another
			// property; an optional property is filled only when the
			// message gives it; an integer with no whole number is 1.
			`book room owner: ana confirm=false room: "Blue Room" hours=1.5 floor: first`,
			`{"attendees":1,"backup":"book room owner: ana confirm=false room: \"Blue Room\" hours=1.5 floor: first","confirm":false,"floor":"first","hours":1.5,"kind":"standup","owner":"ana","room":"Blue Room","tags":[],"where":{"site":"book room owner: ana confirm=false room: \"Blue Room\" hours=1.5 floor: first"}}`,
		},
	} {
		name, args := callOf(t, Respond(req("p", tools, user(tc.msg))))
		if name != "book_room" || args != tc.want {
			t.Errorf("%q:\n got %s %s\nwant book_room %s", tc.msg, name, args, tc.want)
		}
	}
}

func TestRule3_IdentifiersGoToIdProperties(t *testing.T) {
	tool := testTool{name: "flag_transaction", desc: "Flag a transaction.", params: `{
		"type": "object",
		"properties": {
			"account_id":     {"type": "string"},
			"reason":         {"type": "string"},
			"transaction_id": {"type": "string", "description": "The transaction, such as TX-88412."}
		},
		"required": ["account_id", "reason", "transaction_id"]
	}`}
	_, args := callOf(t, Respond(req("p", []chat.Tool{tool.tool(t)}, user("flag ACC-1042: TX-88412 looks like card testing"))))
	want := `{"account_id":"ACC-1042","reason":"flag ACC-1042: TX-88412 looks like card testing","transaction_id":"TX-88412"}`
	if args != want {
		t.Fatalf("got  %s\nwant %s", args, want)
	}
}

func TestRule3_StringFallsBackToShortenedMessage(t *testing.T) {
	long := "save this: " + strings.Repeat("word ", 40)
	tools := offer(t, "save_action_item")
	_, args := callOf(t, Respond(req("p", tools, user(long))))
	var got struct{ Text string }
	if err := json.Unmarshal([]byte(args), &got); err != nil {
		t.Fatal(err)
	}
	if len([]rune(got.Text)) > 80 || !strings.HasPrefix(long, got.Text) {
		t.Fatalf("text %q is not the message cut to 80 characters", got.Text)
	}
}

func TestRule3_NotTwiceWithSameArguments(t *testing.T) {
	tools := offer(t, "load_skill", "run_checks")
	msgs := []chat.Message{
		user("run the checks for v1.4.0"),
		called("c1", "run_checks", `{ "version" : "v1.4.0" }`), // spacing differs, arguments equal
		result("c1", `{"ok":true}`),
	}
	textOf(t, Respond(req("p", tools, msgs...)))
	// Other arguments are another call.
	msgs[1] = called("c1", "run_checks", `{"version":"v1.3.9"}`)
	if _, args := callOf(t, Respond(req("p", tools, msgs...))); args != `{"version":"v1.4.0"}` {
		t.Fatalf("got %s", args)
	}
}

func TestR6_CallsRememberedToolNoLongerOffered(t *testing.T) {
	msgs := []chat.Message{
		user("review ACC-1"),
		called("c1", "get_account_activity", `{"account_id":"ACC-1","page":2}`),
		result("c1", `{"items":[]}`),
		{Role: chat.RoleAssistant, Content: "done"},
		user("show the account activity of ACC-2 again"),
	}
	// get_account_activity is not offered now; load_skill is.
	sys := systemMessage("p", nil, sampleListed, nil)
	name, args := callOf(t, Respond(req(sys, offer(t, "load_skill"), msgs...)))
	if name != "get_account_activity" || args != `{"account_id":"ACC-2","page":2}` {
		t.Fatalf("got %s %s", name, args)
	}
	// After "Unknown tool", it is not tried again while still not offered:
	// the demo model loads a skill instead.
	msgs = append(msgs, called("c2", name, args), result("c2", "Unknown tool: get_account_activity"))
	if name, args := callOf(t, Respond(req(sys, offer(t, "load_skill"), msgs...))); name != "load_skill" || args != `{"name":"account-review"}` {
		t.Fatalf("got %s %s", name, args)
	}
	// A message that does not name the tool does not call it.
	msgs[4] = user("show me ACC-2")
	m := Respond(req(sys, offer(t, "load_skill"), msgs[:5]...))
	if len(m.ToolCalls) > 0 && m.ToolCalls[0].Function.Name == "get_account_activity" {
		t.Fatalf("called a tool the message does not name")
	}
}

func TestR6_RetriesOnlyAfterALoad(t *testing.T) {
	// With a frozen tool list (R23) the tool is declared but refused as
	// unknown until its skill loads: the demo model retries once after a
	// load, and never twice in a row.
	tools := offer(t, "load_skill", "get_account_activity")
	sys := systemMessage("p", nil, sampleListed, nil)
	msgs := []chat.Message{
		user("get the account activity of ACC-3"),
		called("c1", "get_account_activity", `{"account_id":"ACC-3"}`),
		result("c1", "Unknown tool: get_account_activity"),
	}
	name, _ := callOf(t, Respond(req(sys, tools, msgs...)))
	if name != "load_skill" {
		t.Fatalf("after Unknown tool, got %s, want load_skill", name)
	}
	msgs = append(msgs, called("c2", "load_skill", `{"name":"account-review"}`), result("c2", "contextChanged: loaded account-review"))
	if name, _ := callOf(t, Respond(req(sys, tools, msgs...))); name != "get_account_activity" {
		t.Fatalf("after the load, got %s, want the retry", name)
	}
	msgs = append(msgs, called("c3", "get_account_activity", `{"account_id":"ACC-3"}`), result("c3", "Unknown tool: get_account_activity"))
	textOf(t, Respond(req(sys, tools, msgs...)))
}

func TestRule4_SummarizesThisTurnsResults(t *testing.T) {
	long := `{"items":"` + strings.Repeat("x", 500) + `"}`
	msgs := []chat.Message{
		user("earlier"),
		called("c0", "draft_summary", `{}`),
		result("c0", "OLD RESULT"),
		{Role: chat.RoleAssistant, Content: "ok"},
		user("now"),
		called("c1", "get_account_activity", `{"account_id":"ACC-1"}`),
		result("c1", long),
		called("c2", "score_risk", `{}`),
		result("c2", "Unknown tool: score_risk"),
		called("c3", "list_action_items", `{}`),
		result("c3", "   "),
	}
	text := textOf(t, Respond(req(baseSys(), offer(t, "get_account_activity"), msgs...)))
	for _, want := range []string{
		"`get_account_activity` answered: items: xxx",
		"`score_risk` was refused with `Unknown tool: score_risk`: it is not offered. Loading `fraud-triage` may bring it back",
		"`list_action_items` returned nothing.",
		"Following `house-style` (preloaded).",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("answer lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "OLD RESULT") {
		t.Errorf("answer quotes an earlier turn's result:\n%s", text)
	}
	if strings.Contains(text, strings.Repeat("x", 61)) || !strings.Contains(text, strings.Repeat("x", 50)+"…") {
		t.Errorf("a long value is not cut near 60 characters:\n%s", text)
	}
	if strings.Contains(text, "Nothing in your message matched") {
		t.Errorf("help shown in a turn that called tools")
	}
}

func TestRule4_NoLongerOfferedSaysSo(t *testing.T) {
	msgs := []chat.Message{
		user("review ACC-1"),
		called("c1", "get_account_activity", `{"account_id":"ACC-1"}`),
		result("c1", `{"items":[]}`),
		{Role: chat.RoleAssistant, Content: "ok"},
		user("call get_account_activity"),
		called("c2", "get_account_activity", `{"account_id":"ACC-1"}`),
		result("c2", "Unknown tool: get_account_activity"),
	}
	text := textOf(t, Respond(req(baseSys(), offer(t, "load_skill"), msgs...)))
	if !strings.Contains(text, "it is no longer offered") || !strings.Contains(text, "Loading `account-review` may bring it back") {
		t.Fatalf("answer does not explain the unknown tool:\n%s", text)
	}
}

func TestRule4_NamesActiveAndPreloadedSkills(t *testing.T) {
	loaded := []loadedSkill{{skill: accountReview, exec: "x-2", active: true}, {skill: incidentReport, exec: "x-1"}}
	sys := systemMessage("p", []testSkill{houseStyle}, sampleListed, loaded)
	text := textOf(t, Respond(req(sys, offer(t, "load_skill"), user("thanks"))))
	want := "[demo model] Following `account-review` (active) and `house-style` (preloaded). Also loaded: `incident-report`.\n\n> Read every page of activity before you judge the account."
	if !strings.HasPrefix(text, want) {
		t.Fatalf("answer:\n%s\nwant it to start:\n%s", text, want)
	}
}

func TestRule4_HelpListsSkillsAndCommands(t *testing.T) {
	text := textOf(t, Respond(req(baseSys(), offer(t, "load_skill"), user("xyzzy"))))
	for _, want := range []string{"not a language model", "`account-review`", "`sql-review`", "`load NAME`", "`call TOOL {\"key\": \"value\"}`", "`read NAME/PATH`"} {
		if !strings.Contains(text, want) {
			t.Errorf("help lacks %q:\n%s", want, text)
		}
	}
	// Even an empty or odd request gets a non-empty answer.
	dangling := &chat.Request{Messages: []chat.Message{user("call x_tool"), called("c1", "x_tool", "{}")}}
	for _, r := range []*chat.Request{nil, {}, {Messages: []chat.Message{{Role: chat.RoleSystem, Content: ""}}}, dangling} {
		if got := textOf(t, Respond(r)); len(got) <= len(answerPrefix) {
			t.Fatalf("empty answer for %+v", r)
		}
	}
}

func TestRule5_AtMostSixCallsPerTurn(t *testing.T) {
	var cmds []string
	for i := range 8 {
		cmds = append(cmds, fmt.Sprintf("call tool_%d", i))
	}
	msgs := []chat.Message{user(strings.Join(cmds, "\n"))}
	calls := 0
	for range 20 {
		m := Respond(req("p", nil, msgs...))
		if len(m.ToolCalls) == 0 {
			text := textOf(t, m)
			if !strings.Contains(text, "I stopped calling tools: this turn already made 6 tool calls.") {
				t.Errorf("answer does not say it stopped:\n%s", text)
			}
			break
		}
		if len(m.ToolCalls) != 1 {
			t.Fatalf("%d tool calls in one message", len(m.ToolCalls))
		}
		calls++
		msgs = append(msgs, m, result(m.ToolCalls[0].ID, "Unknown tool: "+m.ToolCalls[0].Function.Name))
	}
	if calls != MaxTurnCalls {
		t.Fatalf("%d tool calls in the turn, want %d", calls, MaxTurnCalls)
	}
}

func TestEngineLinesAreNotTheUserMessage(t *testing.T) {
	u := user("contextChanged: unloaded account-review (user)\nharness.log: warning: tool dropped\nrun the release checks for v1.4.0")
	name, args := callOf(t, Respond(req(baseSys(), offer(t, "load_skill"), u)))
	if name != "load_skill" || args != `{"name":"release-checklist"}` {
		t.Fatalf("got %s %s", name, args)
	}
	// A user message holding only engine lines does not start a turn: the
	// demo model still reads the message before it.
	msgs := []chat.Message{
		user("run the release checks for v1.4.0"),
		called("c1", "load_skill", `{"name":"release-checklist"}`),
		result("c1", "contextChanged: loaded release-checklist"),
		user("contextChanged: unloaded meeting-notes (user)"),
	}
	if name, args := callOf(t, Respond(req(baseSys(), offer(t, "load_skill", "run_checks"), msgs...))); name != "run_checks" || args != `{"version":"v1.4.0"}` {
		t.Fatalf("got %s %s", name, args)
	}
}

func TestParsePrompt_EscapedAndMultiLine(t *testing.T) {
	sys := "agent prompt\n\n<preloaded_skills>\n<skill name=\"house-style\" version=\"1\">\nBe brief.\n</skill>\n</preloaded_skills>\n\n" +
		"<available_skills>\n<skill>\n<name>q&amp;a</name>\n<description>Answers &lt;questions&gt;\nover two lines &amp; more.</description>\n</skill>\n" +
		"<skill>\n<name>second</name>\n<description>Plain.</description>\n</skill>\n</available_skills>\nCall load_skill with a skill's name to read it before you follow it.\n\n" +
		"<current_context>\n<skill name=\"a&amp;b\" version=\"\" execution=\"x-2\" active=\"true\" changed=\"true\">\n# Title\n\nFirst step.\n<examples>\n</examples>\n</skill>\n" +
		"<skill name=\"old\" version=\"3\" execution=\"x-1\">\nOld text.\n</skill>\n</current_context>"
	p := parsePrompt([]chat.Message{{Role: chat.RoleSystem, Content: sys}})
	if len(p.listed) != 2 || p.listed[0].Name != "q&a" || p.listed[0].Description != "Answers <questions>\nover two lines & more." || p.listed[1].Name != "second" {
		t.Fatalf("listed: %+v", p.listed)
	}
	if len(p.preloaded) != 1 || p.preloaded[0].Name != "house-style" || p.preloaded[0].Instructions != "Be brief." {
		t.Fatalf("preloaded: %+v", p.preloaded)
	}
	if len(p.loaded) != 2 || p.loaded[0].Name != "a&b" || !p.loaded[0].Active || p.loaded[1].Active {
		t.Fatalf("loaded: %+v", p.loaded)
	}
	if got := firstInstruction(p.loaded[0].Instructions); got != "First step." {
		t.Fatalf("first instruction %q", got)
	}
}
