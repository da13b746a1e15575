package llm

import "testing"

// A recorded reply reads back as the client read it: a JSON body whole, a
// stream cut before its finish as interrupted, without its tool calls.
func TestAssembleARecordedReply(t *testing.T) {
	whole := `{"choices":[{"message":{"role":"assistant","content":"hi","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`
	r, n := Assemble(whole)
	if n != 1 || r.Message.Content != "hi" || len(r.Message.ToolCalls) != 1 || r.Message.ToolCalls[0].Function.Name != "f" || r.FinishReason != "tool_calls" || r.Usage == nil || r.Usage.PromptTokens != 3 || r.Interrupted {
		t.Fatalf("whole reply: %d chunk(s), %+v", n, r)
	}
	cut := "data: {\"choices\":[{\"delta\":{\"content\":\"par\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"tial\",\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"function\":{\"name\":\"f\",\"arguments\":\"{\"}}]}}]}\n\n"
	r, n = Assemble(cut)
	if n != 2 || r.Message.Content != "partial" || !r.Interrupted || len(r.Message.ToolCalls) != 0 {
		t.Fatalf("cut stream: %d chunk(s), %+v", n, r)
	}
}
