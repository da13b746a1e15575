// Rules R6 (a call of a tool not in the request is refused with "Unknown
// tool: NAME" and the turn goes on), R24 (at most max_tool_calls tool
// calls a turn; then the turn ends with a note) and R25 (a cancel leaves
// every tool call with a result): what becomes of each tool call of an
// assistant message before the shell runs it, and the ids the calls are
// recorded under.

package rulebook

import (
	"fmt"

	"skillet/harness/chat"
	"skillet/harness/event"
)

// CancelledResult is the result of a tool call that never ran because the
// user cancelled (R25).
const CancelledResult = "cancelled by user"

// UnknownTool is R6's refusal of a call of a tool the request does not
// carry; nil when it does.
func UnknownTool(live *Toolset, name string) *event.ToolResult {
	if live.ByName[name] != nil {
		return nil
	}
	return &event.ToolResult{Name: name, Content: "Unknown tool: " + name, IsError: true, Refused: true}
}

// GateCall decides whether the next tool call of an assistant message
// runs, given whether the turn was cancelled and what stopped the calls
// before it (stop, "" when none did): nil lets it run; otherwise the
// result to record instead, and what stops the turn from then on.
func GateCall(st *State, tc chat.ToolCall, cancelled bool, stop event.StopReason) (*event.ToolResult, event.StopReason) {
	refuse := func(content string) *event.ToolResult {
		return &event.ToolResult{ToolCallID: tc.ID, Name: tc.Function.Name, Content: content, IsError: true, Refused: true, OverLimit: true}
	}
	max := st.Settings.MaxToolCalls
	switch {
	case cancelled:
		return &event.ToolResult{ToolCallID: tc.ID, Name: tc.Function.Name, Content: CancelledResult, Refused: true, Cancelled: true}, event.StopCancelled
	case stop == event.StopMaxToolCalls:
		return refuse(fmt.Sprintf("not run: the turn reached max_tool_calls (%d)", max)), stop
	case st.Cur != nil && st.Cur.Usage.ToolCalls >= max:
		return refuse(fmt.Sprintf("not run: the turn reached max_tool_calls (%d)", max)), event.StopMaxToolCalls
	}
	return nil, stop
}

// CallsEnded is the note the calls of one assistant message end with: the
// turn's end at max_tool_calls (R24); none otherwise.
func CallsEnded(st *State, stop event.StopReason) []event.Event {
	if stop != event.StopMaxToolCalls {
		return nil
	}
	return []event.Event{&event.Warning{Message: fmt.Sprintf("the turn ended: it reached max_tool_calls (%d tool calls per turn)", st.Settings.MaxToolCalls)}}
}

// CallIDs gives every tool call of a reply an id no other call of the
// session has: results are matched to calls by id, and some servers send
// none or restart their numbering.
func CallIDs(st *State, call int, calls []chat.ToolCall) []event.ToolCallRecord {
	out := []event.ToolCallRecord{}
	taken := map[string]bool{}
	for i, tc := range calls {
		id := tc.ID
		for n := 0; id == "" || st.CallIDs[id] || taken[id]; n++ {
			id = fmt.Sprintf("call_%d_%d_%d", st.Turn, call, i+1)
			if n > 0 {
				id += fmt.Sprintf("_%d", n)
			}
		}
		taken[id] = true
		out = append(out, event.ToolCallRecord{ID: id, Name: tc.Function.Name, Arguments: tc.Function.Arguments, Extra: tc.Extra})
	}
	return out
}

// CallsOf turns the recorded tool calls back into calls to run.
func CallsOf(a *event.Assistant) []chat.ToolCall {
	out := make([]chat.ToolCall, 0, len(a.ToolCalls))
	for _, tc := range a.ToolCalls {
		out = append(out, chat.ToolCall{ID: tc.ID, Type: "function", Function: chat.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}, Extra: tc.Extra})
	}
	return out
}
