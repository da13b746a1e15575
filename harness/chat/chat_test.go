package chat

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestToolCallRoundTripsProviderFields(t *testing.T) {
	in := `{"id":"c1","type":"function","function":{"name":"f","arguments":""},"extra_content":{"google":{"thought_signature":"abc=="}}}`
	var tc ToolCall
	if err := json.Unmarshal([]byte(in), &tc); err != nil {
		t.Fatal(err)
	}
	if string(tc.Extra["extra_content"]) != `{"google":{"thought_signature":"abc=="}}` {
		t.Fatalf("extra = %s", tc.Extra["extra_content"])
	}
	out, err := json.Marshal(tc)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"extra_content":{"google":{"thought_signature":"abc=="}},"function":{"name":"f","arguments":"{}"},"id":"c1","type":"function"}`
	if string(out) != want {
		t.Fatalf("marshal = %s\nwant      %s", out, want)
	}
}

func TestAssistantToolCallMessageHasNullContent(t *testing.T) {
	m := Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Function: FunctionCall{Name: "f", Arguments: `{"a":1}`}}}}
	b, _ := json.Marshal(m)
	if !strings.Contains(string(b), `"content":null`) {
		t.Fatalf("content should be null: %s", b)
	}
	b, _ = json.Marshal(Message{Role: RoleTool, ToolCallID: "c"})
	if !strings.Contains(string(b), `"content":""`) {
		t.Fatalf("a tool result always has content: %s", b)
	}
	var back Message
	if err := json.Unmarshal([]byte(`{"role":"assistant","content":null}`), &back); err != nil || back.Content != "" {
		t.Fatalf("null content: %v %+v", err, back)
	}
}

func TestBodyKeepsTagsReadable(t *testing.T) {
	r := &Request{Model: "m", Messages: []Message{{Role: RoleSystem, Content: "<current_context> & more"}}}
	b, err := r.Body()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "<current_context> & more") {
		t.Fatalf("body escaped the prompt: %s", b)
	}
}
