// Package ui is Skillet's terminal interface: a Bubble Tea program that
// renders an engine's snapshot and transcript side by side — the transcript,
// the loaded-skill LRU, the exact instructions of the next request and the
// tools it offers — and turns key presses into user intents (a message, a
// slash command, an approval).
//
// The package holds no lifecycle logic: everything it shows is derived from
// Engine.Snapshot, Engine.Transcript and the engine's events, and every call
// that can block runs in a tea.Cmd, never in Update or View.
package ui
