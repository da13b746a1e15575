package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"skillet/harness"
	"skillet/ui/uitest"
)

func TestMCPCommandShowsServersAndTheirLogs(t *testing.T) {
	eng := uitest.Sample()
	d := newDriver(t, eng, 160, 48)
	d.send("/mcp")
	if !d.m.flashIsErr || !strings.Contains(d.m.flash, "no MCP servers") {
		t.Fatalf("without servers: %q", d.m.flash)
	}
	log := filepath.Join(t.TempDir(), "mcp-ledger.log")
	os.WriteFile(log, []byte("starting\nledger database is locked\n"), 0o600)
	eng.SetMCP([]harness.MCPServerInfo{{Name: "ledger", Target: "ledger-server --db x", Log: log}, {Name: "files", Target: "http://127.0.0.1:9/mcp"}})
	d.send("/reload") // a refresh brings the new snapshot
	d.send("/mcp")
	d.settle()
	screen := d.screen()
	for _, want := range []string{"MCP servers", "ledger-server --db x", "ledger database is locked", "files", "not started yet"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("screen lacks %q:\n%s", want, screen)
		}
	}
}
