// Rules R1 (the transcript's entries) and R7 (its notes).

package rulebook

import "skillet/harness/event"

// EntryKind is the kind of a transcript entry.
type EntryKind string

// Transcript entry kinds. User, assistant and tool entries are chat messages
// and count against the window (R9); notes stand in the transcript for the
// author and, except preload notes, reach the model in front of the next
// user message.
const (
	EntryUser      EntryKind = "user"
	EntryAssistant EntryKind = "assistant"
	EntryTool      EntryKind = "tool"
	EntryNote      EntryKind = "note"
)

// Note kinds.
const (
	NoteContextChanged = "context_changed"
	NoteHarnessLog     = "harness_log"
	NoteSkillPreload   = "skill_preload"
)

// Entry is one transcript entry (R1). Entries are never changed once
// recorded.
type Entry struct {
	// Index is the entry's position in the transcript.
	Index int `json:"index"`
	// Message is the entry's position among chat messages, -1 for notes.
	Message int       `json:"message"`
	Kind    EntryKind `json:"kind"`
	Turn    int       `json:"turn"`
	// Text is the user's or assistant's text, the tool result, or the note.
	Text      string                 `json:"text"`
	Reasoning string                 `json:"reasoning,omitempty"`
	ToolCalls []event.ToolCallRecord `json:"tool_calls,omitempty"`
	// ToolCallID and ToolName identify the call a tool entry answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	// ToolVersion is the version of the tool that answered, 0 for built-ins.
	ToolVersion int    `json:"tool_version,omitempty"`
	Stderr      string `json:"stderr,omitempty"`
	// NoteKind is the kind of a note entry.
	NoteKind string `json:"note_kind,omitempty"`
	// Activated, Messages and Delivers are a profile's activation (see
	// event.ToolResult): the skill, the user messages added after the
	// result, and whether they carry the skill's text.
	Activated string   `json:"activated,omitempty"`
	Messages  []string `json:"messages,omitempty"`
	// Mentions are the skills a user message names as $name (Codex), whose
	// text Messages carry after it.
	Mentions []event.Use `json:"mentions,omitempty"`
	// Shell, Diff, ApprovedBy and WouldApprove are an agent tool call's
	// run, the diff of what it changed, and what approved it (see
	// event.ToolResult).
	Shell        *event.ShellRun `json:"shell,omitempty"`
	Diff         string          `json:"diff,omitempty"`
	ApprovedBy   string          `json:"approved_by,omitempty"`
	WouldApprove string          `json:"would_approve,omitempty"`
	// The flags sit together: a session keeps an entry per message and
	// note, and apart each would take a word.
	IsError bool `json:"is_error,omitempty"`
	// Refused marks a tool result the harness gave without running anything
	// (unknown tool, denied, over a limit, cancelled).
	Refused     bool `json:"refused,omitempty"`
	Manual      bool `json:"manual,omitempty"`
	Interrupted bool `json:"interrupted,omitempty"`
	Delivers    bool `json:"delivers,omitempty"`
}
