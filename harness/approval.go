package harness

import (
	"skillet/harness/event"
	"skillet/harness/rulebook"
)

// Approval policies of R15.
const (
	ApproveNever = rulebook.ApproveNever
	ApproveAsk   = rulebook.ApproveAsk
	ApproveDeny  = rulebook.ApproveDeny
)

// ApprovalRequest asks whether one `ask` tool call may run (see
// event.ApprovalRequest).
type ApprovalRequest = event.ApprovalRequest

// Approver answers approval requests (see event.Approver).
type Approver = event.Approver
