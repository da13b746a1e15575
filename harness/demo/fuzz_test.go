package demo

import (
	"encoding/json"
	"strings"
	"testing"

	"skillet/harness/chat"
)

// FuzzRespond feeds arbitrary request bodies to the decision function: it
// must never panic, always answer as the assistant, and either call exactly
// one tool or answer with the demo prefix.
func FuzzRespond(f *testing.F) {
	f.Add(`{"messages":[{"role":"user","content":"load account-review"}]}`)
	f.Add(`{"messages":[{"role":"system","content":"<available_skills>\n<skill>\n<name>a-b</name>\n<description>x y z</description>\n</skill>\n</available_skills>"},{"role":"user","content":"call t {\"a\":"}]}`)
	f.Add(`{"messages":[{"role":"user","content":"read x/"},{"role":"assistant","content":null,"tool_calls":[{"id":"1","type":"function","function":{"name":"t","arguments":"{"}}]},{"role":"tool","tool_call_id":"1","content":"Unknown tool: t"}],"tools":[{"type":"function","function":{"name":"t","parameters":{"type":"object","properties":{"n":{"type":["integer","null"]},"o":{"type":"object"}},"required":["n","o","q"]}}}]}`)
	f.Add(`{"messages":[{"role":"system","content":"<current_context>\n<skill name=\"a\" active=\"true\">\n# only a heading\n"},{"role":"user","content":"contextChanged: x\n"}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		var req chat.Request
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		m := Respond(&req)
		if m.Role != chat.RoleAssistant {
			t.Fatalf("role %q", m.Role)
		}
		switch {
		case len(m.ToolCalls) == 1:
			if m.Content != "" || m.ToolCalls[0].ID == "" {
				t.Fatalf("bad call %+v", m)
			}
		case len(m.ToolCalls) == 0:
			if !strings.HasPrefix(m.Content, answerPrefix) {
				t.Fatalf("answer %q", m.Content)
			}
		default:
			t.Fatalf("%d calls", len(m.ToolCalls))
		}
	})
}
