package ui

import (
	"strings"
	"testing"
)

// /mcp lists the config's MCP servers: a server that failed to start shows
// the end of its stderr log, one no skill has needed yet says so.
func TestMCPCommandShowsServersAndTheirLogs(t *testing.T) {
	d := newDriver(t, nil, 160, 48)
	d.send("/mcp")
	if !d.m.flashIsErr || !strings.Contains(d.m.flash, "no MCP servers") {
		t.Fatalf("without servers: %q", d.m.flash)
	}

	w, older := sampleWorkspace(t)
	// a real process that fails as a locked database does
	w.Config(sampleConfig + `
[[skills]]
name = "ledger-review"

[mcp.servers.ledger]
command = "sh"
args = ["-c", "echo 'ledger database is locked' >&2; exit 3"]

[mcp.servers.files]
url = "http://127.0.0.1:9/mcp"
`)
	w.Skill("ledger-review", "Reads balances from the ledger.", "Use the ledger.", "tools:\n  - name: ledger/balance\n")
	sink := NewEventSink()
	s, _ := openSession(t, w, sink, nil, nil, older)
	d = driveEngine(t, s, sink, 160, 48)
	d.send("/load ledger-review") // the first skill that needs the server starts it
	d.send("/mcp")
	d.settle()
	screen := d.screen()
	for _, want := range []string{"MCP servers", "ledger — sh -c", "ledger database is locked", "files — http://127.0.0.1:9/mcp", "not started yet"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("screen lacks %q:\n%s", want, screen)
		}
	}
}
