package view

import (
	"context"

	"skillet/harness/event"
)

// ApprovalRequest asks whether one `ask` tool call may run (R15).
type ApprovalRequest struct {
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name"`
	Arguments  string `json:"arguments"`
	// Skill names the skill that brought the tool, "" for agent tools.
	Skill string `json:"skill,omitempty"`
	// Kind is the tool's kind (command, response, mcp).
	Kind string `json:"kind"`
}

// Approver answers approval requests: event.DecisionOnce,
// event.DecisionAll (approve this tool for the rest of the session) or
// event.DecisionDeny. It blocks until answered; a cancelled ctx means the
// turn was cancelled.
type Approver func(ctx context.Context, req ApprovalRequest) (event.Decision, error)
