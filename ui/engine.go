package ui

import (
	"context"
	"io"
	"iter"

	"skillet/harness/event"
	"skillet/harness/rulebook"
	"skillet/harness/view"
)

// Engine is what the interface drives: one session of the harness
// (skillet/harness's Session, which the program's main hands in; the
// package never imports the shell). Every method may block, so the program
// calls them from commands (goroutines), never while drawing; Snapshot and
// Transcript are called while a turn runs.
//
// The program keeps what Snapshot and Transcript return and reads it while
// drawing: the engine must not change a snapshot it handed out, nor the
// entries of a transcript slice.
//
// Marks such as "skill loaded" stand between transcript entries where the
// engine says: each event's Header.Entry is how many entries the transcript
// held when it happened, and Marks yields the mark events of the session
// so far, so a resumed session shows the same items as the live one.
type Engine interface {
	// Snapshot describes the next request and the loaded set.
	Snapshot() *view.Snapshot
	// Transcript is the whole transcript; entries never change once recorded.
	Transcript() view.Transcript
	// Marks yields the session's mark events so far, in order.
	Marks() iter.Seq[event.Event]
	// Turn runs one turn for the user's text; cancelling ctx stops it (R25).
	Turn(ctx context.Context, text string) (*event.TurnEnd, error)
	// LoadSkill loads a skill by hand between turns.
	LoadSkill(name string) error
	// UnloadSkill unloads a skill by hand between turns.
	UnloadSkill(name string) error
	// Reload re-reads the skills from disk.
	Reload() error
	// Set changes one limit or mode (event.SettingKeys).
	Set(key, value string) error
	// SetModel switches the model for the next turn.
	SetModel(name string) error
	// Models lists the models the provider offers.
	Models(ctx context.Context) ([]string, error)
	// CallTool runs a tool of the next request by hand with JSON arguments.
	CallTool(ctx context.Context, name, args string) (*event.ToolResult, error)
	// ModelCalls are the session's model calls: the latest with their
	// exact requests and replies, older ones without.
	ModelCalls() []rulebook.CallRecord
	// ModelCall is one model call with its exact request and reply, read
	// back from the journal when memory no longer holds it.
	ModelCall(i int) (rulebook.CallRecord, error)
	// ExportMarkdown writes the transcript as Markdown.
	ExportMarkdown(w io.Writer) error
	// ExportCast writes the session as an asciicast v2 recording.
	ExportCast(w io.Writer) error
	// ExportHTML writes the session as an HTML replay.
	ExportHTML(w io.Writer) error
	// Clear starts a new session.
	Clear() error
	// SwitchProfile starts a new session under another profile.
	SwitchProfile(name string) error
	// TokensLoaded is closed once exact token counts can be made; until
	// then snapshots carry estimates.
	TokensLoaded() <-chan struct{}
	// History is the session's model calls, each call's state folded on
	// asking, and HistoryAt one of them whole, with its request: time
	// travel folds them from the journal, not by running again.
	History() (*view.History, error)
	HistoryAt(snap *view.Snapshot, i int) (*view.Snapshot, error)
}
