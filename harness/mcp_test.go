package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"skillet/harness/event"
	"skillet/harness/rulebook"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpMode, when set, makes the test binary serve MCP over stdio instead of
// running tests, so the engine can start it as a real server.
const mcpMode = "SKILLET_HARNESS_TEST_MCP"

func TestMain(m *testing.M) {
	switch os.Getenv(mcpMode) {
	case "":
		os.Exit(m.Run())
	case "stdio", "slow":
		if os.Getenv(mcpMode) == "slow" {
			// say it started, then take a while before answering
			os.WriteFile(os.Getenv("SKILLET_HARNESS_TEST_MARK"), nil, 0o600)
			time.Sleep(1500 * time.Millisecond)
		}
		s := mcp.NewServer(&mcp.Implementation{Name: "ledger", Version: "1"}, nil)
		type in struct {
			Account string `json:"account" jsonschema:"the account to read"`
		}
		mcp.AddTool(s, &mcp.Tool{Name: "balance", Description: "Read an account's balance."},
			func(ctx context.Context, req *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "balance of " + a.Account + ": 42.00 EUR"}}}, nil, nil
			})
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	default:
		fmt.Fprintln(os.Stderr, "ledger database is locked")
		os.Exit(3)
	}
}

func mcpConfig(mode string) string {
	return mcpConfigMark(mode, "")
}

func mcpConfigMark(mode, mark string) string {
	return fmt.Sprintf("[mcp.servers.ledger]\ncommand = %q\nenv = { %s = %q, SKILLET_HARNESS_TEST_MARK = %q }\n[approval]\nledger__balance = \"never\"\n", os.Args[0], mcpMode, mode, mark)
}

func TestMCPServerStartsWithoutHoldingTheSession(t *testing.T) {
	w := newWorkspace(t)
	w.skill("ledger-review", "Reads balances from the ledger.", "Use the ledger.", "tools:\n  - name: ledger/balance\n")
	mark := filepath.Join(t.TempDir(), "started")
	f := w.open(mcpConfigMark("slow", mark), nil)
	f.model.add(load("ledger-review"), say("ok"))
	done := make(chan error)
	go func() { _, err := f.s.Turn(context.Background(), "balance"); done <- err }()
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		runtime.Gosched()
	}
	// the server is starting: the session must stay free for snapshots
	// and cancellation meanwhile
	if !f.s.mu.TryLock() {
		t.Fatal("the session's lock is held while an MCP server starts")
	}
	f.s.mu.Unlock()
	if snap := f.s.Snapshot(); !snap.Running {
		t.Fatal("snapshot during the start should show the turn running")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if ti := findTool(f.s.Snapshot().Tools, "ledger__balance"); ti == nil || !strings.Contains(string(ti.Parameters), "account") {
		t.Fatalf("the slow server's tool should be known after the load: %+v", ti)
	}
}

func TestMCPToolOfASkillStartsItsServerAtLoad(t *testing.T) {
	w := newWorkspace(t)
	w.skill("ledger-review", "Reads balances from the ledger.", "Use ledger__balance.", "tools:\n  - name: ledger/balance\n")
	w.skill("other", "Other.", "O", "")
	f := w.open(mcpConfig("stdio"), nil)
	f.turn("balance please", load("ledger-review"), call("ledger__balance", `{"account":"ACC-7"}`), say("ok"))
	res := f.results()
	if !strings.Contains(res[0].Text, "tools: ledger__balance") {
		t.Fatalf("load result should list the MCP tool: %q", res[0].Text)
	}
	if r := res[1]; r.IsError || r.Text != "balance of ACC-7: 42.00 EUR" {
		t.Fatalf("MCP call: %+v", r)
	}
	ti := findTool(f.s.Snapshot().Tools, "ledger__balance")
	if ti == nil || ti.Kind != "mcp" || !strings.Contains(string(ti.Parameters), "account") {
		t.Fatalf("snapshot tool %+v", ti)
	}
	// the schema came from the server: a wrong argument is refused before the call
	f.turn("again", call("ledger__balance", `{"account":7}`), say("ok"))
	if r := f.lastResult(); !r.IsError || !strings.Contains(r.Text, "account") {
		t.Fatalf("bad argument: %+v", r)
	}
}

func TestMCPServerThatFailsGivesAClearErrorAndTheSessionGoesOn(t *testing.T) {
	w := newWorkspace(t)
	w.skill("ledger-review", "Reads balances from the ledger.", "Use the ledger.", "tools:\n  - name: ledger/balance\n")
	f := w.open(mcpConfig("die"), nil)
	f.turn("balance please", load("ledger-review"), call("ledger__balance", `{"account":"ACC-7"}`), say("still here"))
	res := f.results()
	if res[0].IsError {
		t.Fatalf("the skill loads although its server failed: %q", res[0].Text)
	}
	if r := res[1]; !r.IsError || !strings.Contains(r.Text, "ledger") || !strings.Contains(r.Text, "locked") {
		t.Fatalf("the tool result should say the server failed, with its log: %+v", r)
	}
	logged := ""
	for _, e := range f.s.Transcript().Items() {
		if e.NoteKind == rulebook.NoteHarnessLog {
			logged += e.Text
		}
	}
	if !strings.Contains(logged, "ledger") {
		t.Fatalf("no harness.log line about the server: %q / warnings %q", logged, f.rec.warnings())
	}
	if f.s.Snapshot().LastTurn.Answer != "still here" {
		t.Fatal("the session should go on")
	}
}

func TestMCPURLCredentialsNeverReachTheJournal(t *testing.T) {
	w := newWorkspace(t)
	w.skill("remote-review", "Reads from a remote ledger.", "R", "tools:\n  - name: remote/balance\n")
	f := w.open("[mcp.servers.remote]\nurl = \"http://user:hunter22@127.0.0.1:9/mcp?api_key=SUPERSECRET123\"\n[approval]\nremote__balance = \"never\"\n", nil)
	f.turn("go", load("remote-review"), call("remote__balance", `{}`), say("ok"))
	raw, _ := os.ReadFile(filepath.Join(f.s.Dir(), JournalFile))
	if !strings.Contains(string(raw), "127.0.0.1:9") {
		t.Fatal("the failure should be recorded")
	}
	for _, secret := range []string{"SUPERSECRET123", "hunter22"} {
		if strings.Contains(string(raw), secret) {
			t.Fatalf("%s reached the journal", secret)
		}
		for _, e := range f.rec.all() {
			if b, _ := event.Marshal(e); strings.Contains(string(b), secret) {
				t.Fatalf("%s reached a %s event", secret, e.EventType())
			}
		}
	}
}

// A tool the server answered it does not have is left out, with a
// harness.log line naming what it has; one it has stays.
func TestMCPToolTheServerDoesNotHaveIsLeftOut(t *testing.T) {
	w := newWorkspace(t)
	w.skill("ledger-review", "Reads balances from the ledger.", "Use the ledger.", "tools:\n  - name: ledger/balance\n  - name: ledger/transfer\n")
	f := w.open(mcpConfig("stdio"), nil)
	f.turn("balance please", load("ledger-review"), say("ok"))
	names := toolNamesOf(f.model.last())
	if !has(names, "ledger__balance") || has(names, "ledger__transfer") {
		t.Fatalf("the request should offer what the server lists: %v", names)
	}
	if !strings.Contains(f.rec.warnings(), `has no tool "transfer"`) {
		t.Fatalf("no line says the server lacks the tool: %q", f.rec.warnings())
	}
}

// A failing server is said once per change of its state, not at every
// model call while it backs off.
func TestMCPFailingServerIsSaidOncePerStateChange(t *testing.T) {
	w := newWorkspace(t)
	w.skill("ledger-review", "Reads balances from the ledger.", "Use the ledger.", "tools:\n  - name: ledger/balance\n")
	f := w.open(mcpConfig("die"), nil)
	f.turn("one", load("ledger-review"), say("a"))
	for _, m := range []string{"two", "three", "four"} {
		f.turn(m, say("b"))
	}
	n := strings.Count(f.rec.warnings(), "locked")
	if n == 0 || n > 2 {
		t.Fatalf("the server's failure was said %d times in 4 turns: %q", n, f.rec.warnings())
	}
}
