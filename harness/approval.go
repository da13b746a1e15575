package harness

import (
	"skillet/harness/rulebook"
)

// Approval policies of R15.
const (
	ApproveNever = rulebook.ApproveNever
	ApproveAsk   = rulebook.ApproveAsk
	ApproveDeny  = rulebook.ApproveDeny
)
