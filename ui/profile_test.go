package ui

import (
	"strings"
	"testing"
)

// /profile starts a new session under another profile: the status bar
// names it, with the agent version it reproduces, and the next turn activates skills with that profile's tool.
func TestProfileCommandStartsASessionUnderAProfile(t *testing.T) {
	sink := NewEventSink()
	s := realSession(t, sink, t.TempDir(), "")
	defer s.Close()
	d := driveEngine(t, s, sink, 160, 48)
	first := s.ID()
	d.send("/profile nope")
	if s.ID() != first || !strings.Contains(d.screen(), "known profiles are skillet, claude-code") {
		t.Fatalf("an unknown profile started a session or did not list the known ones:\n%s", d.screen())
	}
	d.send("/profile claude-code")
	if s.ID() == first || s.Snapshot().Profile != "claude-code" {
		t.Fatalf("no new session under claude-code (id %s, profile %s)", s.ID(), s.Snapshot().Profile)
	}
	if !strings.Contains(d.screen(), "profile claude-code (Claude Code 2.1.332)") {
		t.Fatalf("the status bar does not name the profile and the agent version it reproduces:\n%s", d.screen())
	}
	d.send("review account ACC-1042 for anomalies")
	if end := s.Snapshot().LastTurn; end == nil || len(end.Loaded) == 0 || end.Loaded[0] != "account-review" {
		t.Fatalf("the turn did not activate account-review: %+v", end)
	}
}
