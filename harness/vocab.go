// Code in this file keeps the event vocabulary reachable as harness.X, so
// callers need not import harness/event as well.

package harness

import (
	"skillet/harness/event"
	"skillet/harness/paged"
	"skillet/harness/rulebook"
	"skillet/harness/tokens"
	"skillet/harness/view"
)

// The event vocabulary (see harness/event).
type (
	Event            = event.Event
	Header           = event.Header
	SessionStart     = event.SessionStart
	TurnStart        = event.TurnStart
	SkillPreload     = event.SkillPreload
	ModelCall        = event.ModelCall
	TextDelta        = event.TextDelta
	ReasoningDelta   = event.ReasoningDelta
	ToolCallRecord   = event.ToolCallRecord
	Assistant        = event.Assistant
	ToolStarted      = event.ToolStarted
	ToolResult       = event.ToolResult
	SkillLoaded      = event.SkillLoaded
	SkillActivated   = event.SkillActivated
	SkillChanged     = event.SkillChanged
	SkillUnloaded    = event.SkillUnloaded
	ContextChanged   = event.ContextChanged
	WindowTrimmed    = event.WindowTrimmed
	Warning          = event.Warning
	Error            = event.Error
	Retry            = event.Retry
	StateChanged     = event.StateChanged
	Approval         = event.Approval
	SettingChanged   = event.SettingChanged
	Use              = event.Use
	TurnEnd          = event.TurnEnd
	PromptFrozen     = event.PromptFrozen
	WorkspaceChanged = event.WorkspaceChanged
	WorkspaceInfo    = event.WorkspaceInfo
	ShellRun         = event.ShellRun
	FileChange       = event.FileChange
	RequestRef       = event.RequestRef
	ListDelta        = event.ListDelta
	Settings         = event.Settings
	ToolInfo         = event.ToolInfo
	SkillBody        = event.SkillBody
	LoadedBy         = event.LoadedBy
	UnloadReason     = event.UnloadReason
	Delivery         = event.Delivery
	ToolSource       = event.ToolSource
	Decision         = event.Decision
	StopReason       = event.StopReason
)

// Event names and typed values (see harness/event).
const (
	TypeSessionStart     = event.TypeSessionStart
	TypeTurnStart        = event.TypeTurnStart
	TypeSkillPreload     = event.TypeSkillPreload
	TypeModelCall        = event.TypeModelCall
	TypeTextDelta        = event.TypeTextDelta
	TypeReasoningDelta   = event.TypeReasoningDelta
	TypeAssistant        = event.TypeAssistant
	TypeToolStarted      = event.TypeToolStarted
	TypeToolResult       = event.TypeToolResult
	TypeSkillLoaded      = event.TypeSkillLoaded
	TypeSkillActivated   = event.TypeSkillActivated
	TypeSkillUnloaded    = event.TypeSkillUnloaded
	TypeSkillChanged     = event.TypeSkillChanged
	TypeContextChanged   = event.TypeContextChanged
	TypeWindowTrimmed    = event.TypeWindowTrimmed
	TypeWarning          = event.TypeWarning
	TypeError            = event.TypeError
	TypeRetry            = event.TypeRetry
	TypeStateChanged     = event.TypeStateChanged
	TypeApproval         = event.TypeApproval
	TypeSettingChanged   = event.TypeSettingChanged
	TypeTurnEnd          = event.TypeTurnEnd
	TypePromptFrozen     = event.TypePromptFrozen
	TypeWorkspaceChanged = event.TypeWorkspaceChanged
	FileCreate           = event.FileCreate
	FileModify           = event.FileModify
	FileDelete           = event.FileDelete
	DeliveryContext      = event.DeliveryContext
	DeliveryToolResult   = event.DeliveryToolResult
	DecisionOnce         = event.DecisionOnce
	DecisionAll          = event.DecisionAll
	DecisionDeny         = event.DecisionDeny
	StopDone             = event.StopDone
	StopLength           = event.StopLength
	StopMaxToolCalls     = event.StopMaxToolCalls
	StopCancelled        = event.StopCancelled
	StopInterrupted      = event.StopInterrupted
	StopError            = event.StopError
	SourceBuiltIn        = event.SourceBuiltIn
	SourceAgent          = event.SourceAgent
	SourceSkill          = event.SourceSkill
	SourceProfile        = event.SourceProfile
	ByModel              = event.ByModel
	ByUser               = event.ByUser
	ByPaste              = event.ByPaste
	ByPreload            = event.ByPreload
	UnloadLRU            = event.UnloadLRU
	UnloadUser           = event.UnloadUser
	UnloadRemoved        = event.UnloadRemoved
	UnloadInvalid        = event.UnloadInvalid
	UnloadTooLong        = event.UnloadTooLong
	UnloadPaste          = event.UnloadPaste
	UnloadLimit          = event.UnloadLimit
	UnloadClear          = event.UnloadClear
	DecisionPolicyDeny   = event.DecisionPolicyDeny
)

// The codec and helpers of the event vocabulary.
var (
	MarshalEvent    = event.Marshal
	UnmarshalEvent  = event.Unmarshal
	Journaled       = event.Journaled
	TurnOf          = event.TurnOf
	DefaultSettings = event.DefaultSettings
	SettingKeys     = event.SettingKeys
	SettingDoc      = event.SettingDoc
	IsMark          = rulebook.IsMark
	// CountEstimate estimates tokens without the tokenizer's tables (see
	// harness/tokens).
	CountEstimate = tokens.CountEstimate
)

// The transcript and state types of the rule book (see harness/rulebook).
type (
	Entry      = rulebook.Entry
	EntryKind  = rulebook.EntryKind
	TurnUsage  = rulebook.Usage
	CallRecord = rulebook.CallRecord
	// Transcript is a view of a session's entries; older ones are read
	// back from sealed pages (see harness/paged).
	Transcript = paged.List[Entry]
)

// TranscriptOf returns a transcript of entries held as they are.
func TranscriptOf(entries []Entry) Transcript { return paged.Of(entries) }

// Transcript entry and note kinds (see harness/rulebook).
const (
	EntryUser          = rulebook.EntryUser
	EntryAssistant     = rulebook.EntryAssistant
	EntryTool          = rulebook.EntryTool
	EntryNote          = rulebook.EntryNote
	NoteContextChanged = rulebook.NoteContextChanged
	NoteHarnessLog     = rulebook.NoteHarnessLog
	NoteSkillPreload   = rulebook.NoteSkillPreload
)

// The approval request and its answerer (see harness/view).
type (
	ApprovalRequest = view.ApprovalRequest
	Approver        = view.Approver
)

// Workspace modes, as SessionStart records them (see harness/event).
const (
	WorkspaceScratch = event.WorkspaceScratch
	WorkspaceCopy    = event.WorkspaceCopy
	WorkspaceInPlace = event.WorkspaceInPlace
)
