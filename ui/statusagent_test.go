package ui

import (
	"context"
	"strings"
	"testing"

	"skillet/harness/profile"
	"skillet/harness/view"
)

// The status bar names the agent version a reopened journal recorded,
// not this build's, when the two differ.
func TestStatusBarNamesTheRecordedAgentVersion(t *testing.T) {
	m := newModel(context.Background(), nil, Options{Style: "dark"})
	p, _ := profile.Get("claude-code")
	text := func(s *view.Snapshot, short bool) string {
		var all []string
		for _, part := range m.statusParts(s, short) {
			all = append(all, part.text)
		}
		return strings.Join(all, " ")
	}
	live := &view.Snapshot{Profile: "claude-code", ProfileAgent: p.Agent()}
	if got := text(live, false); !strings.Contains(got, "("+p.Agent()+")") {
		t.Errorf("live: %q lacks %q", got, p.Agent())
	}
	old := &view.Snapshot{Profile: "claude-code", ProfileAgent: "Claude Code 2.0.1"}
	if got := text(old, false); !strings.Contains(got, "(Claude Code 2.0.1)") {
		t.Errorf("recorded: %q lacks the recorded version", got)
	}
	if got := text(old, true); !strings.Contains(got, "@2.0.1") {
		t.Errorf("narrow: %q lacks @2.0.1", got)
	}
}
