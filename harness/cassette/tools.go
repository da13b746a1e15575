package cassette

import (
	"context"
	"fmt"

	"skillet/harness/event"
	"skillet/harness/tools"
	"skillet/harness/view"
)

// deniedByUser is the result the engine gives a call the user refused.
const deniedByUser = "denied by the user"

// ServedApprover answers a replayed session's approval requests as the
// recording did — a tool call approved then is approved now, anything else
// denied — for a replay that serves the recorded tool results and so runs
// no tool: the answer only picks which recorded result is served. A
// replay that runs tools must never use it, since a cassette is a file
// anyone may have edited: its tool calls are approved as live ones are.
// Tool call ids come from the recorded replies, so they match. It is nil
// when nobody answered an approval in the recording (a headless session,
// whose ask tools were denied by policy), so the replay denies them the
// same way.
func (c *Cassette) ServedApprover() view.Approver {
	answered := false
	for _, t := range c.Tools {
		switch t.Approval {
		case event.DecisionOnce, event.DecisionAll:
			answered = true
		case event.DecisionDeny:
			// a headless session denies with its own text, no one answered
			answered = answered || t.Content == deniedByUser
		}
	}
	if !answered {
		return nil
	}
	byID := map[string]event.Decision{}
	for _, t := range c.Tools {
		if t.Approval != "" {
			byID[t.ToolCallID] = t.Approval
		}
	}
	return func(ctx context.Context, req view.ApprovalRequest) (event.Decision, error) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		switch byID[req.ToolCallID] {
		case event.DecisionOnce:
			return event.DecisionOnce, nil
		case event.DecisionAll:
			return event.DecisionAll, nil
		}
		return event.DecisionDeny, nil
	}
}

// Approvals describes how each ask tool of the recording was answered,
// one line per call, to be shown and never applied to tools that run.
func (c *Cassette) Approvals() []string {
	var out []string
	for _, t := range c.Tools {
		if t.Approval == "" {
			continue
		}
		out = append(out, fmt.Sprintf("the recording answered %q (tool call %q): %s", t.Name, t.ToolCallID, t.Approval))
	}
	return out
}

// ToolResult is the recorded result of the tool call with this id, for a
// replay that serves tool results instead of running the tools.
func (c *Cassette) ToolResult(id string) (*Tool, bool) {
	for _, t := range c.Tools {
		if t.ToolCallID == id {
			return t, true
		}
	}
	return nil, false
}

// ServeTool answers a tool call with its recorded result, for a replay
// that serves tool results instead of running the tools (--replay-tools).
// ok is false when the cassette holds no result for the call's id; the
// result then says so, as an error the model reads.
func (c *Cassette) ServeTool(_ context.Context, call tools.Call) (res tools.Result, ok bool) {
	t, ok := c.ToolResult(call.ID)
	if !ok {
		return tools.Result{Content: fmt.Sprintf("replay: the cassette holds no result for tool call %s", call.ID), IsError: true}, false
	}
	return tools.Result{Content: t.Content, IsError: t.IsError}, true
}
