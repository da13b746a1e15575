package demo

import (
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strings"
	"testing"

	"skillet/harness/chat"
)

// testSkill is a skill as the tests' composer knows it.
type testSkill struct {
	name, version, desc, body string
	tools                     []string
}

// testTool is a function tool as offered on the wire.
type testTool struct {
	name, desc, params string // params: a JSON Schema object
}

// tool makes a chat.Tool the way the engine's JSON reaches the server.
func (tt testTool) tool(t testing.TB) chat.Tool {
	t.Helper()
	params := tt.params
	if params == "" {
		params = `{"type":"object","properties":{}}`
	}
	raw := fmt.Sprintf(`{"type":"function","function":{"name":%q,"description":%q,"parameters":%s}}`, tt.name, tt.desc, params)
	var out chat.Tool
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("bad test tool %s: %v", tt.name, err)
	}
	return out
}

// loadedSkill is a <current_context> or <preloaded_skills> entry.
type loadedSkill struct {
	skill  testSkill
	exec   string
	active bool
}

// systemMessage composes the instructions in the engine's layout: the agent
// prompt, <preloaded_skills>, <available_skills> with its hint, and
// <current_context>, leaving out empty blocks.
func systemMessage(agent string, preloaded []testSkill, listed []testSkill, loaded []loadedSkill) string {
	parts := []string{agent}
	if len(preloaded) > 0 {
		var els []string
		for _, s := range preloaded {
			els = append(els, fmt.Sprintf("<skill name=\"%s\" version=\"%s\">\n%s\n</skill>", html.EscapeString(s.name), html.EscapeString(s.version), s.body))
		}
		parts = append(parts, "<preloaded_skills>\n"+strings.Join(els, "\n")+"\n</preloaded_skills>")
	}
	if len(listed) > 0 {
		var b strings.Builder
		b.WriteString("<available_skills>\n")
		for _, s := range listed {
			fmt.Fprintf(&b, "<skill>\n<name>%s</name>\n<description>%s</description>\n</skill>\n", html.EscapeString(s.name), html.EscapeString(s.desc))
		}
		b.WriteString("</available_skills>\nCall load_skill with a skill's name to read it before you follow it.")
		parts = append(parts, b.String())
	}
	if len(loaded) > 0 {
		var els []string
		for _, l := range loaded {
			act := ""
			if l.active {
				act = ` active="true"`
			}
			els = append(els, fmt.Sprintf("<skill name=\"%s\" version=\"%s\" execution=\"%s\"%s>\n%s\n</skill>", html.EscapeString(l.skill.name), html.EscapeString(l.skill.version), l.exec, act, l.skill.body))
		}
		parts = append(parts, "<current_context>\n"+strings.Join(els, "\n")+"\n</current_context>")
	}
	return strings.Join(parts, "\n\n")
}

// The sample workspace the tests compose requests from. Descriptions are
// the tests' own; the rules only see words.
var (
	houseStyle = testSkill{name: "house-style", version: "1", desc: "House writing style.",
		body: "# House style\n\nWrite plain, short sentences.\nNo jargon."}
	accountReview = testSkill{name: "account-review", version: "2",
		desc:  "Review an account's recent activity and flag anomalies. Use when the user asks to review or audit an account.",
		body:  "# Account review\n\nRead every page of activity before you judge the account.\n\n- Flag anything unusual.",
		tools: []string{"get_account_activity", "flag_transaction"}}
	fraudTriage = testSkill{name: "fraud-triage", version: "1",
		desc:  "Triage suspected fraud: score the risk of a flagged transaction and decide whether to escalate.",
		body:  "Score the risk first, then decide.",
		tools: []string{"get_account_activity", "score_risk"}}
	releaseChecklist = testSkill{name: "release-checklist", version: "1",
		desc:  "Run the release checklist before shipping a version: tests, changelog, tag.",
		body:  "Run the checks; never tag a red build.",
		tools: []string{"run_checks"}}
	meetingNotes = testSkill{name: "meeting-notes", version: "1",
		desc:  "Capture meeting notes: decisions, action items and a summary.",
		body:  "Record each decision as an action item with an owner.",
		tools: []string{"save_action_item", "draft_summary", "list_action_items"}}
	incidentReport = testSkill{name: "incident-report", version: "1",
		desc: "Write an incident report for an outage: timeline, impact, root cause.",
		body: "## Incident report\n\nStart with the timeline, in UTC."}
	sqlReview = testSkill{name: "sql-review", version: "1",
		desc:  "Review SQL queries for performance and correctness.",
		body:  "Explain the plan before you judge a query.",
		tools: []string{"explain_query"}}

	sampleListed = []testSkill{accountReview, fraudTriage, incidentReport, meetingNotes, releaseChecklist, sqlReview}

	sampleTools = map[string]testTool{
		"load_skill": {"load_skill", "Load a skill by name.",
			`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`},
		"read_skill_resource": {"read_skill_resource", "Read a file of a loaded skill.",
			`{"type":"object","properties":{"skill":{"type":"string"},"path":{"type":"string"}},"required":["skill","path"]}`},
		"get_account_activity": {"get_account_activity", "Fetch one page of an account's activity.",
			`{"type":"object","properties":{"account_id":{"type":"string","description":"The account to read."},"page":{"type":"integer"}},"required":["account_id"]}`},
		"flag_transaction": {"flag_transaction", "Flag a transaction as suspicious.",
			`{"type":"object","properties":{"transaction_id":{"type":"string"},"reason":{"type":"string"}},"required":["transaction_id"]}`},
		"score_risk": {"score_risk", "Score the fraud risk of a transaction.",
			`{"type":"object","properties":{"transaction_id":{"type":"string"}},"required":["transaction_id"]}`},
		"run_checks": {"run_checks", "Run the release checks for a version.",
			`{"type":"object","properties":{"version":{"type":"string"}},"required":["version"]}`},
		"save_action_item": {"save_action_item", "Save an action item or decision from a meeting.",
			`{"type":"object","properties":{"text":{"type":"string"},"owner":{"type":"string"}},"required":["text"]}`},
		"draft_summary":     {"draft_summary", "Draft a summary of the meeting.", ""},
		"list_action_items": {"list_action_items", "List the saved action items.", ""},
		"explain_query": {"explain_query", "Explain a SQL query plan.",
			`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`},
	}
)

// offer returns the named sample tools as chat.Tools, in order.
func offer(t testing.TB, names ...string) []chat.Tool {
	t.Helper()
	out := make([]chat.Tool, 0, len(names))
	for _, n := range names {
		tt, ok := sampleTools[n]
		if !ok {
			t.Fatalf("no sample tool %q", n)
		}
		out = append(out, tt.tool(t))
	}
	return out
}

// world is a small stand-in for the engine, enough to replay a chat against
// the demo model: an LRU of loaded skills (R2, R3), their tools (R5, R14),
// "Unknown tool" for anything else (R6), and contextChanged results (R7).
type world struct {
	t          testing.TB
	skills     []testSkill
	preloaded  []testSkill
	maxLoaded  int
	lru        []string // most recent first
	executions int
	transcript []chat.Message
}

func newWorld(t testing.TB) *world {
	return &world{t: t, skills: sampleListed, preloaded: []testSkill{houseStyle}, maxLoaded: 3}
}

func (w *world) skill(name string) (testSkill, bool) {
	for _, s := range w.skills {
		if s.name == name {
			return s, true
		}
	}
	return testSkill{}, false
}

// toolNames are the tools of the next request: built-ins, then each loaded
// skill's tools, most recent skill first, each once.
func (w *world) toolNames() []string {
	names := []string{"load_skill", "read_skill_resource"}
	for _, n := range w.lru {
		s, _ := w.skill(n)
		for _, tn := range s.tools {
			if !slices.Contains(names, tn) {
				names = append(names, tn)
			}
		}
	}
	return names
}

func (w *world) request() *chat.Request {
	var loaded []loadedSkill
	for i, n := range w.lru {
		s, _ := w.skill(n)
		loaded = append(loaded, loadedSkill{skill: s, exec: fmt.Sprintf("x-%d", i+1), active: i == 0})
	}
	sys := systemMessage("You are a careful assistant.", w.preloaded, w.skills, loaded)
	msgs := append([]chat.Message{{Role: chat.RoleSystem, Content: sys}}, w.transcript...)
	return &chat.Request{Model: ModelName, Messages: msgs, Tools: offer(w.t, w.toolNames()...)}
}

// run answers one tool call the way the engine would.
func (w *world) run(tc chat.ToolCall) string {
	name := tc.Function.Name
	if !slices.Contains(w.toolNames(), name) {
		return "Unknown tool: " + name
	}
	if name != "load_skill" {
		return fmt.Sprintf(`{"ok":true,"tool":%q,"args":%s}`, name, tc.Function.Arguments)
	}
	var a struct{ Name string }
	if err := json.Unmarshal([]byte(tc.Function.Arguments), &a); err != nil {
		return "error: bad arguments: " + err.Error()
	}
	if _, ok := w.skill(a.Name); !ok {
		return fmt.Sprintf("error: no skill named %q", a.Name)
	}
	if i := slices.Index(w.lru, a.Name); i >= 0 {
		w.lru = append([]string{a.Name}, slices.Delete(w.lru, i, i+1)...)
		return "contextChanged: " + a.Name + " became active"
	}
	w.executions++
	w.lru = append([]string{a.Name}, w.lru...)
	line := fmt.Sprintf("contextChanged: loaded %s (execution x-%d)", a.Name, w.executions)
	for len(w.lru) > w.maxLoaded {
		gone := w.lru[len(w.lru)-1]
		w.lru = w.lru[:len(w.lru)-1]
		line += "\ncontextChanged: unloaded " + gone + " (lru)"
	}
	return line
}

// turn sends a user message and plays the turn out; it returns each call
// as "name args" and the final answer.
func (w *world) turn(user string) (calls []string, answer string) {
	w.t.Helper()
	w.transcript = append(w.transcript, chat.Message{Role: chat.RoleUser, Content: user})
	for range 20 {
		msg := Respond(w.request())
		w.transcript = append(w.transcript, msg)
		if len(msg.ToolCalls) == 0 {
			return calls, msg.Content
		}
		for _, tc := range msg.ToolCalls {
			calls = append(calls, tc.Function.Name+" "+tc.Function.Arguments)
			w.transcript = append(w.transcript, chat.Message{Role: chat.RoleTool, ToolCallID: tc.ID, Content: w.run(tc)})
		}
	}
	w.t.Fatalf("turn %q did not end in 20 model calls", user)
	return nil, ""
}

// req builds a one-off request: a system message, then msgs.
func req(sys string, tools []chat.Tool, msgs ...chat.Message) *chat.Request {
	return &chat.Request{Model: ModelName, Messages: append([]chat.Message{{Role: chat.RoleSystem, Content: sys}}, msgs...), Tools: tools}
}

func user(text string) chat.Message { return chat.Message{Role: chat.RoleUser, Content: text} }

func called(id, name, args string) chat.Message {
	return chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: id, Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}}}
}

func result(id, content string) chat.Message {
	return chat.Message{Role: chat.RoleTool, ToolCallID: id, Content: content}
}

// callOf returns the one call a reply makes, failing when it answers in
// text or makes more than one.
func callOf(t *testing.T, m chat.Message) (name, args string) {
	t.Helper()
	if len(m.ToolCalls) != 1 {
		t.Fatalf("want exactly one tool call, got %d (text %q)", len(m.ToolCalls), m.Content)
	}
	if m.Content != "" {
		t.Errorf("a tool-call reply carries text %q", m.Content)
	}
	return m.ToolCalls[0].Function.Name, m.ToolCalls[0].Function.Arguments
}

// textOf returns the text a reply answers with, failing when it calls a
// tool.
func textOf(t *testing.T, m chat.Message) string {
	t.Helper()
	if len(m.ToolCalls) != 0 {
		t.Fatalf("want a text answer, got call %s %s", m.ToolCalls[0].Function.Name, m.ToolCalls[0].Function.Arguments)
	}
	if !strings.HasPrefix(m.Content, answerPrefix) {
		t.Fatalf("answer does not start with %q: %q", answerPrefix, m.Content)
	}
	return m.Content
}
