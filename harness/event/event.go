// Package event is the vocabulary of a Skillet session: every event the
// engine records, its JSON codec, and the typed values events carry. It holds
// no rules; harness/rulebook folds these events into a session's state.
package event

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"

	"skillet/harness/chat"
)

// Event is one step of a session. Every event serializes to a JSON object
// with its "type" and the "turn" it belongs to (DESIGN §5); the journal is
// these objects, one per line.
type Event interface {
	// EventType is the event's "type" field.
	EventType() string
	// Head gives the common fields so the session can stamp them.
	Head() *Header
}

// Header holds the fields every event has.
type Header struct {
	Type string    `json:"type"`
	Turn int       `json:"turn"`
	Time time.Time `json:"time"`
	// Entry is how many transcript entries the session held when the event
	// happened: where it stands in the transcript. The fold sets it.
	Entry int `json:"entry"`
}

// Head returns the header itself; every event embeds one.
func (h *Header) Head() *Header { return h }

// TurnOf returns the turn an event belongs to.
func TurnOf(e Event) int { return e.Head().Turn }

// SessionStart opens a session.
type SessionStart struct {
	Header
	SessionID string   `json:"session_id"`
	Model     string   `json:"model"`
	BaseURL   string   `json:"base_url"`
	Demo      bool     `json:"demo,omitempty"`
	Limits    Settings `json:"limits"`
	// Version is the Skillet build that wrote the journal.
	Version string `json:"skillet_version,omitempty"`
	Agent   string `json:"agent_prompt,omitempty"`
	// Config and Roots say where the session's skills came from, so a
	// reopened session can find them again.
	Config string   `json:"config,omitempty"`
	Roots  []string `json:"roots,omitempty"`
	// Profile is how skills reach the model (package profile); "" is
	// Skillet's own rule book, as in journals written before profiles.
	// ContextWindow is the window in tokens the profile's listing budget
	// derives from, 0 when it has none.
	Profile       string `json:"profile,omitempty"`
	ContextWindow int    `json:"context_window,omitempty"`
	// ProfileAgent is the agent version the profile reproduces, such as
	// "Claude Code 2.1.332"; absent under skillet.
	ProfileAgent string `json:"profile_agent,omitempty"`
	// CatalogOnly marks a session that offered every skill of its catalog,
	// without its config's [[skills]] selection (a bench run, whose catalog
	// holds exactly the skills it compares): a reopening selects the same.
	CatalogOnly bool `json:"catalog_only,omitempty"`
	// Workspace is where the agent tools work; nil when the session has
	// no agent tools.
	Workspace *WorkspaceInfo `json:"workspace,omitempty"`
}

// TurnStart records the user's message that starts a turn.
type TurnStart struct {
	Header
	Text string `json:"text"`
	// Mentions are the skills the message names as $name under the codex
	// profile, and Messages what the profile adds after the message for
	// them (Codex's <skill> injection): Delivered, not Loaded.
	Mentions []Use    `json:"mentions,omitempty"`
	Messages []string `json:"messages,omitempty"`
}

// SkillPreload records a preload (R16), before the turn's first model call.
type SkillPreload struct {
	Header
	Skill       string `json:"skill"`
	Version     string `json:"version"`
	ExecutionID string `json:"execution_id"`
	Tokens      int    `json:"tokens"`
	// Body is what the preload delivers, as it was rendered then.
	Body SkillBody `json:"body"`
}

// ModelCall records the exact JSON body of one request, and what the rule
// book tracks about it: the skills on its list and left off (R10), the
// skill guidance it delivers and the earlier tool answers it carries
// (R20, R21).
type ModelCall struct {
	Header
	// Scores are the rank scores of the first len(Scores) offered skills
	// against the user's message, absent when every skill fit the list
	// unranked.
	Scores []float64 `json:"scores,omitempty"`

	Call      int             `json:"call"`
	Request   json.RawMessage `json:"request"`
	Offered   []string        `json:"offered"`
	LeftOff   []string        `json:"left_off,omitempty"`
	Delivered []Use           `json:"delivered"`
	Reused    []Use           `json:"reused,omitempty"`
	// Ref and LeftOffDelta are how a journal stores Request and LeftOff
	// without repeating what earlier lines hold; reading puts them back.
	Ref          *RequestRef `json:"request_ref,omitempty"`
	LeftOffDelta *ListDelta  `json:"left_off_delta,omitempty"`
	// Listing is the skill listing this call was the first to attach to
	// its turn's user message, under a profile that lists each skill once
	// (Claude Code: the whole catalogue first, later only the skills no
	// listing the request carries named); nil when it attached none.
	Listing *Listing `json:"listing,omitempty"`
}

// Listing is a skill listing attached to a user message: its text and
// the skills it names, each with the digest of its entry.
type Listing struct {
	Text   string            `json:"text"`
	Skills map[string]string `json:"skills"`
}

// RequestRef is a journaled request body: Head, its messages joined by
// commas, Mid, the tool list, Tail. Messages and the tool list are blob
// hashes; the messages are First, then the run Keep [from, to) of the
// previous call's messages, then Last.
type RequestRef struct {
	Head  string   `json:"head"`
	First []string `json:"first,omitempty"`
	Keep  [2]int   `json:"keep"`
	Last  []string `json:"last,omitempty"`
	Mid   string   `json:"mid"`
	Tools string   `json:"tools,omitempty"`
	Tail  string   `json:"tail,omitempty"`
}

// ListDelta is a list as the change from the one before: All replaces it,
// else Del leaves and Add joins at the end (in order, when Sorted).
type ListDelta struct {
	All    []string `json:"all,omitempty"`
	Add    []string `json:"add,omitempty"`
	Del    []string `json:"del,omitempty"`
	Sorted bool     `json:"sorted,omitempty"`
}

// Apply returns the list the delta makes of prev.
func (d *ListDelta) Apply(prev []string) []string {
	if d.All != nil {
		return append([]string{}, d.All...)
	}
	gone := map[string]bool{}
	for _, n := range d.Del {
		gone[n] = true
	}
	out := []string{}
	for _, p := range prev {
		if !gone[p] {
			out = append(out, p)
		}
	}
	out = append(out, d.Add...)
	if d.Sorted {
		sort.Strings(out)
	}
	return out
}

// TextDelta is a streamed piece of the answer. It is not journaled.
type TextDelta struct {
	Header
	Call int    `json:"call"`
	Text string `json:"text"`
}

// ReasoningDelta is a streamed piece of reasoning. It is not journaled.
type ReasoningDelta struct {
	Header
	Call int    `json:"call"`
	Text string `json:"text"`
}

// ToolCallRecord is one whole tool call of an assistant message.
type ToolCallRecord struct {
	ID        string                     `json:"id"`
	Name      string                     `json:"name"`
	Arguments string                     `json:"arguments"`
	Extra     map[string]json.RawMessage `json:"extra,omitempty"`
}

// Assistant records one whole assistant message.
type Assistant struct {
	Header
	Call         int              `json:"call"`
	Text         string           `json:"text"`
	Reasoning    string           `json:"reasoning"`
	ToolCalls    []ToolCallRecord `json:"tool_calls"`
	FinishReason string           `json:"finish_reason"`
	Usage        *chat.Usage      `json:"usage"`
	Interrupted  bool             `json:"interrupted"`
	// Manual marks a tool call the user made by hand (/call), not the model.
	Manual bool `json:"manual,omitempty"`
	// Raw is the reply as it came over the wire, for the inspector;
	// RawGzip is how a journal keeps a long one (gzip, then base64).
	Raw     string `json:"raw,omitempty"`
	RawGzip string `json:"raw_gzip,omitempty"`
}

// ToolStarted says a tool began to run (after approval).
type ToolStarted struct {
	Header
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name"`
	Arguments  string `json:"arguments"`
}

// ToolResult records the result of one tool call.
type ToolResult struct {
	Header
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name"`
	Content    string `json:"content"`
	IsError    bool   `json:"is_error"`
	// Stderr is what a command tool wrote to stderr (shown, not sent).
	Stderr string `json:"stderr,omitempty"`
	// Version and ExecutionID identify the tool execution, for uses (R21).
	Version     int    `json:"version,omitempty"`
	ExecutionID string `json:"execution_id,omitempty"`
	// Skill is the skill that brought the tool, "" for built-in and agent tools.
	Skill string `json:"skill,omitempty"`
	// Refused marks a result the harness gave without running the tool
	// (unknown tool, denied, over a limit, cancelled, bad arguments).
	Refused bool `json:"refused,omitempty"`
	// OverLimit marks a call refused because the turn reached
	// max_tool_calls (R24); it does not count as one of them.
	OverLimit bool `json:"over_limit,omitempty"`
	// Cancelled marks a call the user's cancel stopped (R25): not run,
	// cut short while it ran, or left waiting for an approval.
	Cancelled bool `json:"cancelled,omitempty"`
	// Manual marks the result of a call the user made by hand.
	Manual     bool  `json:"manual,omitempty"`
	DurationMS int64 `json:"duration_ms"`
	// Activated names the skill a call of a profile's activation tool
	// activated; Messages are the user messages the profile adds after
	// the result (Claude Code's skill body); Delivers says the result or
	// those messages carry the skill's text, not only a note.
	Activated string   `json:"activated,omitempty"`
	Messages  []string `json:"messages,omitempty"`
	Delivers  bool     `json:"delivers,omitempty"`
	// Shell is what a shell tool call ran; Diff the unified diff of the
	// files a call changed in the workspace (cut when long).
	Shell *ShellRun `json:"shell,omitempty"`
	Diff  string    `json:"diff,omitempty"`
	// ApprovedBy names what approved the call without asking ("the
	// allowed-tools of pdf", "[[permissions]] Bash(git:*)"); WouldApprove
	// is what Claude Code would have pre-approved it by, under a profile
	// where skills grant nothing (R15).
	ApprovedBy   string `json:"approved_by,omitempty"`
	WouldApprove string `json:"would_approve,omitempty"`
}

// SkillLoaded records a skill joining the loaded set.
type SkillLoaded struct {
	Header
	Skill       string   `json:"skill"`
	Version     string   `json:"version"`
	ExecutionID string   `json:"execution_id"`
	Evicted     []string `json:"evicted"`
	Tools       []string `json:"tools"`
	// By is who loaded it.
	By     LoadedBy `json:"by"`
	Tokens int      `json:"tokens"`
	// Delivery is how the text reaches the model (R11).
	Delivery Delivery `json:"delivery"`
	// Repeat marks a load of a skill this turn already read and that was
	// unloaded since: the same execution, not counted again (R13).
	Repeat bool `json:"repeat,omitempty"`
	// Body is the skill as it was rendered for this load.
	Body SkillBody `json:"body"`
}

// SkillActivated records a loaded skill read again and made active (R3).
// A read in a later turn is a new execution (R13).
type SkillActivated struct {
	Header
	Skill       string `json:"skill"`
	ExecutionID string `json:"execution_id"`
	// By is ByModel, ByUser or ByPaste.
	By LoadedBy `json:"by"`
}

// SkillChanged records that a loaded skill's file changed on disk and its
// new text is rendered from the next model call (R17).
type SkillChanged struct {
	Header
	Skill   string `json:"skill"`
	Version string `json:"version"`
	Tokens  int    `json:"tokens"`
	// Body is the new rendering.
	Body SkillBody `json:"body"`
	// Tools are the tools the skill makes available now, as name@version;
	// Removed those the edit took away, which leave the request (R17).
	Tools   []string `json:"tools,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// SkillUnloaded records a skill leaving the loaded set.
type SkillUnloaded struct {
	Header
	Skill  string       `json:"skill"`
	Reason UnloadReason `json:"reason"`
}

// ContextChanged records an R7 line. When ToolCallID is set the line is part
// of that tool call's result; otherwise it stands in the transcript alone.
type ContextChanged struct {
	Header
	Line       string `json:"line"`
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// WindowTrimmed records that a request's window left messages out (R9).
type WindowTrimmed struct {
	Header
	Call        int  `json:"call"`
	Dropped     int  `json:"dropped"`
	Kept        int  `json:"kept"`
	CapExceeded bool `json:"cap_exceeded"`
}

// Warning is something the author should know; the session goes on. Log
// marks a harness.log line, which also stands in the transcript.
type Warning struct {
	Header
	Message string `json:"message"`
	Log     bool   `json:"log,omitempty"`
	// OutOfWindow names the tool-result load whose text this warning says
	// left the window (R11).
	OutOfWindow string `json:"out_of_window,omitempty"`
}

// Error is a failure: a model error, a tool runner failure, bad config.
type Error struct {
	Header
	Message string `json:"message"`
}

// Retry says a model request failed and will be tried again.
type Retry struct {
	Header
	Call    int    `json:"call"`
	Attempt int    `json:"attempt"`
	WaitMS  int64  `json:"wait_ms"`
	Message string `json:"message"`
}

// StateChanged records a skill's per-load state and store after a tool wrote
// them (R26).
type StateChanged struct {
	Header
	Skill string          `json:"skill"`
	State json.RawMessage `json:"state,omitempty"`
	Store json.RawMessage `json:"store,omitempty"`
}

// Approval records how an `ask` tool call was answered (R15).
type Approval struct {
	Header
	ToolCallID string   `json:"tool_call_id"`
	Name       string   `json:"name"`
	Decision   Decision `json:"decision"`
}

// SettingChanged records a /set or a model switch between turns.
type SettingChanged struct {
	Header
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Use is one tool answer or skill guidance a turn supplied to the model (R21).
type Use struct {
	Role        string `json:"role"`
	Name        string `json:"name"`
	Version     string `json:"version"`
	ExecutionID string `json:"execution_id"`
	Reused      bool   `json:"reused"`
}

// TurnEnd closes a turn with its Offered / Delivered / Loaded (R20) and uses.
type TurnEnd struct {
	Header
	Offered   []string `json:"offered"`
	Delivered []string `json:"delivered"`
	Loaded    []string `json:"loaded"`
	Uses      []Use    `json:"uses"`
	// LeftOff names the enabled skills the list left out (R10).
	LeftOff    []string   `json:"left_off,omitempty"`
	StopReason StopReason `json:"stop_reason"`
	// Answer is the last assistant text of the turn.
	Answer string `json:"answer"`
	// LeftOffAsCall is how a journal says LeftOff is the last model
	// call's.
	LeftOffAsCall bool `json:"left_off_as_call,omitempty"`
}

// PromptFrozen records the instructions and tools a frozen prompt keeps for
// the whole chat (R23), as the first request declared them.
type PromptFrozen struct {
	Header
	Instructions string          `json:"instructions"`
	Tools        json.RawMessage `json:"tools"`
	Infos        []ToolInfo      `json:"infos"`
	Offered      []string        `json:"offered"`
	LeftOff      []string        `json:"left_off,omitempty"`
	// Context maps each skill rendered in the frozen <current_context> to
	// its execution then.
	Context map[string]string `json:"context,omitempty"`
}

// Event type names.
const (
	TypeSessionStart     = "session_start"
	TypeTurnStart        = "turn_start"
	TypeSkillPreload     = "skill_preload"
	TypeModelCall        = "model_call"
	TypeTextDelta        = "text_delta"
	TypeReasoningDelta   = "reasoning_delta"
	TypeAssistant        = "assistant"
	TypeToolStarted      = "tool_started"
	TypeToolResult       = "tool_result"
	TypeSkillLoaded      = "skill_loaded"
	TypeSkillActivated   = "skill_activated"
	TypeSkillUnloaded    = "skill_unloaded"
	TypeSkillChanged     = "skill_changed"
	TypeContextChanged   = "context_changed"
	TypeWindowTrimmed    = "window_trimmed"
	TypeWarning          = "warning"
	TypeError            = "error"
	TypeRetry            = "retry"
	TypeStateChanged     = "state_changed"
	TypeApproval         = "approval"
	TypeSettingChanged   = "setting_changed"
	TypeTurnEnd          = "turn_end"
	TypePromptFrozen     = "prompt_frozen"
	TypeWorkspaceChanged = "workspace_changed"
)

// EventType implementations.
func (*SessionStart) EventType() string     { return TypeSessionStart }
func (*TurnStart) EventType() string        { return TypeTurnStart }
func (*SkillPreload) EventType() string     { return TypeSkillPreload }
func (*ModelCall) EventType() string        { return TypeModelCall }
func (*TextDelta) EventType() string        { return TypeTextDelta }
func (*ReasoningDelta) EventType() string   { return TypeReasoningDelta }
func (*Assistant) EventType() string        { return TypeAssistant }
func (*ToolStarted) EventType() string      { return TypeToolStarted }
func (*ToolResult) EventType() string       { return TypeToolResult }
func (*SkillLoaded) EventType() string      { return TypeSkillLoaded }
func (*SkillActivated) EventType() string   { return TypeSkillActivated }
func (*SkillUnloaded) EventType() string    { return TypeSkillUnloaded }
func (*SkillChanged) EventType() string     { return TypeSkillChanged }
func (*ContextChanged) EventType() string   { return TypeContextChanged }
func (*WindowTrimmed) EventType() string    { return TypeWindowTrimmed }
func (*Warning) EventType() string          { return TypeWarning }
func (*Error) EventType() string            { return TypeError }
func (*Retry) EventType() string            { return TypeRetry }
func (*StateChanged) EventType() string     { return TypeStateChanged }
func (*Approval) EventType() string         { return TypeApproval }
func (*SettingChanged) EventType() string   { return TypeSettingChanged }
func (*TurnEnd) EventType() string          { return TypeTurnEnd }
func (*PromptFrozen) EventType() string     { return TypePromptFrozen }
func (*WorkspaceChanged) EventType() string { return TypeWorkspaceChanged }

var eventFactories = map[string]func() Event{
	TypeSessionStart:     func() Event { return &SessionStart{} },
	TypeTurnStart:        func() Event { return &TurnStart{} },
	TypeSkillPreload:     func() Event { return &SkillPreload{} },
	TypeModelCall:        func() Event { return &ModelCall{} },
	TypeTextDelta:        func() Event { return &TextDelta{} },
	TypeReasoningDelta:   func() Event { return &ReasoningDelta{} },
	TypeAssistant:        func() Event { return &Assistant{} },
	TypeToolStarted:      func() Event { return &ToolStarted{} },
	TypeToolResult:       func() Event { return &ToolResult{} },
	TypeSkillLoaded:      func() Event { return &SkillLoaded{} },
	TypeSkillActivated:   func() Event { return &SkillActivated{} },
	TypeSkillUnloaded:    func() Event { return &SkillUnloaded{} },
	TypeSkillChanged:     func() Event { return &SkillChanged{} },
	TypeContextChanged:   func() Event { return &ContextChanged{} },
	TypeWindowTrimmed:    func() Event { return &WindowTrimmed{} },
	TypeWarning:          func() Event { return &Warning{} },
	TypeError:            func() Event { return &Error{} },
	TypeRetry:            func() Event { return &Retry{} },
	TypeStateChanged:     func() Event { return &StateChanged{} },
	TypeApproval:         func() Event { return &Approval{} },
	TypeSettingChanged:   func() Event { return &SettingChanged{} },
	TypeTurnEnd:          func() Event { return &TurnEnd{} },
	TypePromptFrozen:     func() Event { return &PromptFrozen{} },
	TypeWorkspaceChanged: func() Event { return &WorkspaceChanged{} },
}

// Marshal encodes an event as one JSON object with its type.
func Marshal(e Event) ([]byte, error) {
	e.Head().Type = e.EventType()
	b, err := chat.MarshalPlain(e) // keep the recorded request readable
	if err != nil {
		return nil, fmt.Errorf("encode %s event: %w", e.EventType(), err)
	}
	return b, nil
}

// Unmarshal decodes one JSON object written by Marshal, and checks it
// (Check): a name that would reach outside the session's folder or a
// setting out of range is a *BadValueError.
func Unmarshal(b []byte) (Event, error) {
	typ, ok := TypeOf(b)
	if !ok {
		var h Header
		if err := json.Unmarshal(b, &h); err != nil {
			return nil, fmt.Errorf("decode event: %w", err)
		}
		typ = h.Type
	}
	mk, ok := eventFactories[typ]
	if !ok {
		return nil, fmt.Errorf("decode event: unknown type %q", typ)
	}
	e := mk()
	if !decodeFast(b, e) {
		e = mk() // what the fast decoder left half done
		if err := json.Unmarshal(b, e); err != nil {
			return nil, fmt.Errorf("decode %s event: %w", typ, err)
		}
	}
	if err := Check(e); err != nil {
		return nil, fmt.Errorf("%s event: %w", typ, err)
	}
	return e, nil
}

// TypeOf reads the type of a line Marshal wrote, which starts with it,
// without decoding the rest; ok is false for a line laid out otherwise.
func TypeOf(b []byte) (string, bool) {
	const prefix = `{"type":"`
	if !bytes.HasPrefix(b, []byte(prefix)) {
		return "", false
	}
	rest := b[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return "", false
	}
	return string(rest[:end]), true
}

// Journaled reports whether an event goes to the journal; streaming deltas
// do not, since the assistant event holds the whole message.
func Journaled(e Event) bool {
	switch e.(type) {
	case *TextDelta, *ReasoningDelta:
		return false
	}
	return true
}

// decodeFast decodes a line with go-json, several times faster than
// encoding/json on a journal's events (most of what reopening a long
// session costs), and gives the same values for every line it accepts but
// one of invalid UTF-8, which encoding/json mends and it does not: such a
// line, or one it refuses, is left to encoding/json (false), whose errors
// are the ones reported. go-json panics on some malformed lines (a line
// cut inside a key's escape, as a torn write leaves it); that too leaves
// the line to encoding/json, which refuses it with a message.
func decodeFast(b []byte, e Event) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return utf8.Valid(b) && gojson.Unmarshal(b, e) == nil
}
