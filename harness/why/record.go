// Package why explains a skill's fate: for one skill the engine knows, valid
// or not, its status on disk and in the config, and turn by turn whether it
// was offered (at what rank), left off, delivered, loaded, refused, evicted
// or unloaded, what the model did instead, when its tools joined and left
// the request, and what it cost. A Record is computed from a session's
// events, folded by the rule book, and from facts read off disk; nothing
// here reads files or talks to a model.
package why

import "skillet/harness/event"

// Status codes of a skill on disk and in the config.
const (
	StatusInvalid     = "invalid"
	StatusNotEnabled  = "not_enabled"
	StatusShadowed    = "shadowed"
	StatusTooLarge    = "too_large"
	StatusOverBudget  = "over_budget"
	StatusPinMismatch = "pin_mismatch"
	StatusPreloaded   = "preloaded"
	StatusEnabled     = "enabled"
	StatusUnknown     = "not_on_disk"
)

// Status codes of what a session did to the skill last, the fact that
// decides its fate at the session's end (see Fate).
const (
	StatusLoaded   = "loaded"
	StatusEvicted  = "evicted"
	StatusUnloaded = "unloaded"
	StatusRefused  = "refused"
)

// Kinds of Fate.
const (
	FateLoaded    = "loaded"
	FateEvicted   = "evicted"
	FateUnloaded  = "unloaded"
	FateRefused   = "refused"
	FateLeftOff   = "left_off"
	FateOffered   = "offered"
	FateNotListed = "not_listed"
)

// Record is everything known of one skill's fate.
type Record struct {
	Skill string `json:"skill"`
	// Verdict is the short answer in plain words.
	Verdict string `json:"verdict"`
	// Status is what disk and config say, most telling first.
	Status []Status `json:"status"`
	// Session is the session the timeline comes from, "" for none.
	Session string `json:"session,omitempty"`
	// Limits are the rule book's limits the statuses were judged by.
	Limits event.Settings `json:"limits"`
	// Turns are the session's turns, one record each.
	Turns []Turn `json:"turns"`
	// Tools are the spans of the skill's tools in the requests.
	Tools []ToolSpan `json:"tools"`
	Cost  Cost       `json:"cost"`
	// Fate is what decides the skill's fate at the session's end, absent
	// without a session.
	Fate *Fate `json:"fate,omitempty"`
	// Would is the rank the skill would have for a message, when asked
	// without a session.
	Would *Would `json:"would,omitempty"`
	// Skipped are journal lines that could not be read, each naming its line.
	Skipped []string `json:"skipped,omitempty"`
}

// Status is one fact about the skill on disk or in the config.
type Status struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// Turn is the skill's fate in one turn.
type Turn struct {
	Turn int `json:"turn"`
	// Message is the user's message, shortened.
	Message string `json:"message"`
	// Offered is set when the skill was on the list of the turn's first
	// model call that listed it.
	Offered *Rank `json:"offered,omitempty"`
	// LeftOff is set when the list left it out (R10).
	LeftOff *LeftOff `json:"left_off,omitempty"`
	// Delivered says how its text reached the model: "load", "preload"
	// or "paste"; empty when it did not.
	Delivered []string `json:"delivered,omitempty"`
	// LoadedOn is the earlier turn it was loaded on, when it stayed
	// loaded into this one and its text was delivered again.
	LoadedOn int `json:"loaded_on,omitempty"`
	// Loaded is set when the model loaded it (R20).
	Loaded bool `json:"loaded"`
	// Refused are the refusals of its loads, each naming the limit.
	Refused []string `json:"refused,omitempty"`
	// EvictedBy names the skill whose load evicted it (R2).
	EvictedBy string `json:"evicted_by,omitempty"`
	// Unloaded are the reasons it left the loaded set otherwise.
	Unloaded []string `json:"unloaded,omitempty"`
	// TextOutOfWindow is set when its tool-result text left the window (R11).
	TextOutOfWindow bool `json:"text_out_of_window"`
	// Instead is what the model did when it was offered and not loaded.
	Instead *Instead `json:"instead,omitempty"`
	// Commands are the shell commands the model ran this turn while the
	// skill was loaded: what its load led to.
	Commands []Command `json:"commands,omitempty"`
	// Fate is what decides the skill's fate at the end of the turn, read
	// off the rule book's state then.
	Fate *Fate `json:"fate,omitempty"`
	// Timeline is what happened to the skill this turn, in order.
	Timeline []Step `json:"timeline"`
}

// Command is a shell command an agent tool ran, and how it ended.
type Command struct {
	Command    string `json:"command"`
	ExitCode   int    `json:"exit_code"`
	ToolCallID string `json:"tool_call_id"`
}

// Rank is a skill's place on a list.
type Rank struct {
	Rank int `json:"rank"`
	Of   int `json:"of"`
	// Ranked is false when every enabled skill fit and the list kept
	// config order.
	Ranked bool `json:"ranked"`
	// Score is the rank score against the message, when recorded.
	Score *float64 `json:"score,omitempty"`
}

// LeftOff is a skill the list left out: Above are the listed skills, all
// ranked above it, of Of enabled ones. Its own rank among the left-off
// ones is not told: the journal need not keep them in rank order.
type LeftOff struct {
	Of       int      `json:"of"`
	ListSize int      `json:"list_size"`
	Above    []string `json:"above"`
}

// Instead is what the model did in a turn the skill was offered and not
// loaded: "loaded" other skills, asked to load others and was "refused"
// (Refused names why, by skill), called a "tool", or "answered" directly.
type Instead struct {
	Kind    string            `json:"kind"`
	Skills  []string          `json:"skills,omitempty"`
	Refused map[string]string `json:"refused,omitempty"`
	Tools   []string          `json:"tools,omitempty"`
}

// Fate is the fact that decides a skill's fate at a point of the session:
// the last thing the session did to it — loaded (By the model, user,
// paste or preload), evicted (By the skill whose load did it, under
// MaxLoaded), unloaded or refused (Why says why) — on Turn; else, when
// nothing was, whether that turn's list left it off, offered it or did not
// list it.
type Fate struct {
	Kind      string   `json:"kind"`
	Turn      int      `json:"turn"`
	By        string   `json:"by,omitempty"`
	MaxLoaded int      `json:"max_loaded_skills,omitempty"`
	Why       string   `json:"why,omitempty"`
	LeftOff   *LeftOff `json:"left_off,omitempty"`
	Offered   *Rank    `json:"offered,omitempty"`
	// Between is set when it happened between turns (a reopened session
	// syncing with disk).
	Between bool `json:"between_turns,omitempty"`
}

// Step is one event of the skill's timeline.
type Step struct {
	// Entry is the transcript position the step stands at.
	Entry int    `json:"entry"`
	What  string `json:"what"`
}

// ToolSpan is one stay of one of the skill's tools in the requests.
type ToolSpan struct {
	Tool   string `json:"tool"`
	Joined int    `json:"joined_turn"`
	// Left is the turn it left, 0 while it stays; Why says why it left.
	Left int    `json:"left_turn,omitempty"`
	Why  string `json:"why,omitempty"`
}

// Cost is what the skill costs the requests, in tokens.
type Cost struct {
	// Tokenizer names the counting; "estimate (chars/4)" when none was given.
	Tokenizer string `json:"tokenizer"`
	// ListEntry is its entry on the list, per request that lists it.
	ListEntry int `json:"list_entry"`
	// Text is its rendered text as loads delivered it (or as it is on disk).
	Text int `json:"text"`
	// ContextCalls counts the requests that carried the text in
	// <current_context> (or the preloads); ContextTotal is their sum.
	ContextCalls int `json:"context_calls"`
	ContextTotal int `json:"context_total"`
	// R7Lines are the contextChanged lines about it in the transcript, and
	// their tokens; ResultCopies the load results that carry its text
	// (tool-result delivery), and their tokens.
	R7Lines       int            `json:"r7_lines"`
	R7Tokens      int            `json:"r7_tokens"`
	ResultCopies  int            `json:"result_copies"`
	ResultTokens  int            `json:"result_tokens"`
	SchemaTokens  int            `json:"schema_tokens"`
	SchemaByTools map[string]int `json:"schema_by_tool,omitempty"`
}

// Would is the rank a skill would have for a message, from a fresh session.
type Would struct {
	Message string   `json:"message"`
	Offered *Rank    `json:"offered,omitempty"`
	LeftOff *LeftOff `json:"left_off,omitempty"`
}
