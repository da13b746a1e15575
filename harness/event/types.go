package event

import (
	"encoding/json"

	"skillet/skills"
)

// LoadedBy says who brought a skill's text to the model.
type LoadedBy string

// Who loaded a skill (R16, R20, R22).
const (
	ByModel   LoadedBy = "model"
	ByUser    LoadedBy = "user"
	ByPaste   LoadedBy = "paste"
	ByPreload LoadedBy = "preload"
)

// UnloadReason says why a skill left the loaded set.
type UnloadReason string

// Why a skill unloads (R2, R4, R17, R22).
const (
	UnloadLRU     UnloadReason = "lru"
	UnloadUser    UnloadReason = "user"
	UnloadRemoved UnloadReason = "removed"
	UnloadInvalid UnloadReason = "invalid"
	UnloadTooLong UnloadReason = "too-long"
	UnloadPaste   UnloadReason = "paste"
	UnloadLimit   UnloadReason = "limit"
	UnloadClear   UnloadReason = "clear"
)

// Delivery is how a loaded skill's text reaches the model (R11).
type Delivery string

// Delivery modes of R11.
const (
	// DeliveryContext renders a loaded skill's text in <current_context>.
	DeliveryContext Delivery = "context"
	// DeliveryToolResult returns the skill's text as the load_skill result.
	DeliveryToolResult Delivery = "tool-result"
)

// ToolSource says where a tool of a request comes from.
type ToolSource string

// Tool sources.
const (
	SourceBuiltIn ToolSource = "built-in"
	SourceAgent   ToolSource = "agent"
	SourceSkill   ToolSource = "skill"
	// SourceProfile marks the profile's own shell and file tools, which
	// work in the session's workspace.
	SourceProfile ToolSource = "profile"
)

// Decision is how an `ask` tool call was answered (R15).
type Decision string

// Approval decisions.
const (
	DecisionOnce Decision = "once"
	// DecisionAll approves the tool for the rest of the session.
	DecisionAll  Decision = "session"
	DecisionDeny Decision = "deny"
	// DecisionPolicyDeny is an always-deny policy answering by itself.
	DecisionPolicyDeny Decision = "policy-deny"
)

// StopReason says how a turn ended.
type StopReason string

// Stop reasons of a turn.
const (
	StopDone         StopReason = "done"
	StopLength       StopReason = "length"
	StopMaxToolCalls StopReason = "max_tool_calls"
	StopCancelled    StopReason = "cancelled"
	StopInterrupted  StopReason = "interrupted"
	StopError        StopReason = "error"
)

// SkillBody is a skill as one load rendered it: everything the rule book
// keeps of it while it is loaded, so folding the events needs no files.
type SkillBody struct {
	// Text is what the load delivers: instructions, then examples.
	// TextRef is how a journal refers to a long one held in a blob line.
	Text    string `json:"text,omitempty"`
	TextRef string `json:"text_ref,omitempty"`
	// Dir is the skill's folder, where its resources and tools are.
	Dir string `json:"dir,omitempty"`
	// Tools are the tool references of its `tools:` field.
	Tools []skills.ToolRef `json:"tools,omitempty"`
	// AllowedTools is its allowed-tools field: under claude-code, calls
	// it matches are approved while the skill stays loaded.
	AllowedTools []string `json:"allowed_tools,omitempty"`
}

// ToolInfo is one tool of a request, or one that just left.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Source      ToolSource      `json:"source"`
	// Skill names the skill that brought it when Source is SourceSkill.
	Skill   string `json:"skill,omitempty"`
	Version int    `json:"version,omitempty"`
	Pinned  bool   `json:"pinned"`
	// Approval is "never", "ask" or "always-deny" (R15).
	Approval string          `json:"approval"`
	Kind     skills.ToolKind `json:"kind,omitempty"`
	// SessionApproved marks a tool the user approved for the rest of the
	// session (R15); snapshots set it, requests never carry it.
	SessionApproved bool `json:"session_approved,omitempty"`
	// Gone marks a tool that left with its skill last turn.
	Gone bool `json:"gone,omitempty"`
}
