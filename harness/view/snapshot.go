// Package view holds the read models of a session — what the terminal,
// `skillet show` and the exports read of it — and the pure functions that
// build them from the rule book's state, the composed next request and a
// journal. It knows the fold and the journal, never the shell that runs a
// session: no process, network or tool server is reached from here.
package view

import (
	"encoding/json"
	"fmt"
	"strings"

	"skillet/harness/event"
	"skillet/harness/profile"
	"skillet/harness/rulebook"
	"skillet/skills"
)

// LoadedSkill is one skill in the loaded set or among the preloads.
type LoadedSkill struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	ExecutionID string `json:"execution_id"`
	Active      bool   `json:"active"`
	// Tokens is the size of the skill's rendered text.
	Tokens int `json:"tokens"`
	// Changed is set when the file changed on disk since it loaded and the
	// new text is rendered (R17).
	Changed bool `json:"changed"`
	// OutOfWindow is set in tool-result delivery when the result that
	// delivered the text has left the window (R11).
	OutOfWindow bool           `json:"out_of_window"`
	By          event.LoadedBy `json:"by"`
	LoadedTurn  int            `json:"loaded_turn"`
	// Tools are the tools this load made available, as name@version.
	Tools []string `json:"tools"`
	// State is the per-load state and Store the session store (R26).
	State json.RawMessage `json:"state"`
	Store json.RawMessage `json:"store"`
}

// WindowInfo describes the window of the next request (R9).
type WindowInfo struct {
	// Messages is the number of chat messages in the transcript.
	Messages int `json:"messages"`
	// InWindow is how many of them the next request carries.
	InWindow int `json:"in_window"`
	Cap      int `json:"cap"`
	// FirstEntry is the index of the first transcript entry in the window.
	FirstEntry  int  `json:"first_entry"`
	CapExceeded bool `json:"cap_exceeded"`
}

// SkillStatus is one discovered skill, for /skills.
type SkillStatus struct {
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Version     string           `json:"version"`
	Dir         string           `json:"dir"`
	Root        string           `json:"root"`
	Enabled     bool             `json:"enabled"`
	Preload     bool             `json:"preload"`
	Loaded      bool             `json:"loaded"`
	Shadowed    bool             `json:"shadowed"`
	Problems    []skills.Problem `json:"problems,omitempty"`
	Warnings    []skills.Problem `json:"warnings,omitempty"`
	// CannotLoad says why a valid skill can never load under the
	// session's limits (R12), "" when it can.
	CannotLoad string           `json:"cannot_load,omitempty"`
	Tools      []skills.ToolRef `json:"tools,omitempty"`
}

// Snapshot is what the UI shows of a session: everything about the next
// request and the loaded set, computed by the engine.
type Snapshot struct {
	SessionID string `json:"session_id"`
	Model     string `json:"model"`
	BaseURL   string `json:"base_url"`
	// Demo is set when the model is the built-in offline demo model.
	Demo bool `json:"demo"`
	// Turn is the number of the running or last turn.
	Turn int `json:"turn"`
	// Workspace is where the agent tools work, nil without them; Files,
	// in a snapshot of History, the files tool calls had changed by then,
	// by path, without content (a live snapshot leaves it out: the
	// transcript carries each call's changes).
	Workspace *event.WorkspaceInfo `json:"workspace,omitempty"`
	Files     []event.FileChange   `json:"files,omitempty"`
	// Call is, in a snapshot of History, the model call it shows; 0 for
	// the live session.
	Call    int            `json:"call,omitempty"`
	Running bool           `json:"running"`
	Limits  event.Settings `json:"limits"`
	// Profile is how skills reach the model; ContextWindow the window its
	// listing budget derives from (0 when it has none); Lifecycle whether
	// Skillet's LRU, load limits and window apply.
	Profile       string `json:"profile"`
	ContextWindow int    `json:"context_window,omitempty"`
	Lifecycle     bool   `json:"lifecycle"`
	// ProfileAgent is the agent version the profile reproduced when the
	// session started, from its journal; omitted for skillet.
	ProfileAgent string `json:"profile_agent,omitempty"`
	// Catalogue is the profile's catalogue of the next request, with the
	// state of every enabled skill; nil under skillet (see Skills and
	// LeftOff).
	Catalogue *profile.Catalogue `json:"catalogue,omitempty"`

	// Loaded is the loaded set, most recent first; the first is active.
	Loaded    []LoadedSkill `json:"loaded"`
	Preloaded []LoadedSkill `json:"preloaded"`

	// Instructions is the exact system message of the next request.
	Instructions string `json:"instructions"`
	// Context is the <current_context> block alone ("" when empty).
	Context string `json:"context"`
	// Parts are the instructions part by part, or under a profile, the
	// messages around them.
	Parts []rulebook.Part `json:"parts"`
	// InstructionTokens counts the system message; RequestTokens the whole
	// next request (instructions, rulebook.Window and tool definitions).
	InstructionTokens int `json:"instruction_tokens"`
	RequestTokens     int `json:"request_tokens"`
	// Ledger is the next request's tokens part by part; RequestTokens is
	// its total.
	Ledger Ledger `json:"ledger"`
	// Estimated is set while the tokenizer's tables load: the counts are
	// estimates, and a later snapshot has the exact ones.
	Estimated bool `json:"estimated,omitempty"`

	Tools  []event.ToolInfo `json:"tools"`
	Window WindowInfo       `json:"window"`
	// Usage is what the running or last turn used.
	Usage rulebook.Usage `json:"usage"`
	// LastTurn is the last finished turn's record, nil before any.
	LastTurn *event.TurnEnd `json:"last_turn,omitempty"`
	// LeftOff names enabled skills the list leaves out (R10).
	LeftOff []string `json:"left_off,omitempty"`

	Skills  []SkillStatus `json:"skills"`
	Notices []string      `json:"notices,omitempty"`
	// MCP lists the config's MCP servers and where their stderr goes.
	MCP []MCPServerInfo `json:"mcp,omitempty"`
}

// MCPServerInfo is one configured MCP server and its state.
type MCPServerInfo struct {
	Name string `json:"name"`
	// Target is the command line or URL, credentials hidden.
	Target string `json:"target"`
	// Log is the file holding this run's stderr of the server, "" before
	// it started.
	Log string `json:"log"`
	// State is "not started", "starting", "running", "failed" or
	// "stopped"; Why says what went wrong; NextTry is when a failed
	// server may be started again (RFC 3339).
	State    string   `json:"state"`
	Why      string   `json:"why,omitempty"`
	NextTry  string   `json:"next_try,omitempty"`
	Tools    []string `json:"tools,omitempty"`
	Launches int      `json:"launches"`
}

// SkillsSummary is the first thing to know about the skills: how many
// were found, how many are invalid and how many can never load, with
// where to read more when some are; "" when none were found. bad says
// some are.
func (snap *Snapshot) SkillsSummary(readMore string) (summary string, bad bool) {
	found, invalid, cannot := 0, 0, 0
	for _, st := range snap.Skills {
		if st.Shadowed {
			continue
		}
		found++
		switch {
		case len(st.Problems) > 0:
			invalid++
		case st.CannotLoad != "":
			cannot++
		}
	}
	if found == 0 {
		return "", false
	}
	msg := fmt.Sprintf("%d skills found", found)
	if invalid+cannot == 0 {
		return msg + ", all valid", false
	}
	var parts []string
	if invalid > 0 {
		parts = append(parts, fmt.Sprintf("%d invalid", invalid))
	}
	if cannot > 0 {
		parts = append(parts, fmt.Sprintf("%d can never load under the limits", cannot))
	}
	return msg + ": " + strings.Join(parts, ", ") + " — " + readMore, true
}
