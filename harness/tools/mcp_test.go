package tools

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"skillet/skills"
)

// stdioServer configures the test binary itself as a stdio MCP server.
func stdioServer(t *testing.T, mode string, env map[string]string) MCPServer {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// GORACE: a race-enabled server would otherwise linger a second at exit.
	e := map[string]string{testServerMode: mode, "GORACE": "atexit_sleep_ms=0"}
	for k, v := range env {
		e[k] = v
	}
	return MCPServer{Command: exe, Args: []string{"-test.run=^$"}, Env: e}
}

func newMCPRunner(t *testing.T, servers map[string]MCPServer) *Runner {
	t.Helper()
	r := NewRunner(Options{MCPServers: servers, LogDir: t.TempDir(), DefaultTimeout: 20 * time.Second})
	t.Cleanup(func() { r.Close() })
	return r
}

func mcpCall(server, tool, args string) Call {
	return Call{ID: "m", Def: &skills.ToolDef{Name: tool, Kind: skills.KindMCP, Server: server, RemoteTool: tool}, Args: json.RawMessage(args)}
}

func TestMCP_StdioToolDefinitionAndCall(t *testing.T) {
	r := newMCPRunner(t, map[string]MCPServer{"files": stdioServer(t, "stdio", nil)})
	ctx := context.Background()
	def, err := r.MCPTool(ctx, "files", "greet")
	if err != nil {
		t.Fatal(err)
	}
	if def.Name != "greet" || def.Kind != skills.KindMCP || def.Server != "files" || def.RemoteTool != "greet" {
		t.Fatalf("def = %+v", def)
	}
	if def.Description != "Greet someone by name." {
		t.Errorf("description = %q", def.Description)
	}
	var schema map[string]any
	if err := json.Unmarshal(def.Parameters, &schema); err != nil {
		t.Fatalf("parameters: %v", err)
	}
	props, _ := schema["properties"].(map[string]any)
	name, _ := props["name"].(map[string]any)
	if schema["type"] != "object" || name["type"] != "string" || name["description"] != "who to greet" {
		t.Errorf("parameters = %s", def.Parameters)
	}
	// The definition checks arguments like any tool's.
	if _, err := ValidateArgs(def.Parameters, `{"name": 5}`); err == nil || !strings.Contains(err.Error(), `"name"`) {
		t.Errorf("validation against the MCP schema: %v", err)
	}

	res := r.Run(ctx, Call{Def: def, Args: json.RawMessage(`{"name":"Ada"}`)})
	if res.IsError || res.Content != "hello Ada" {
		t.Fatalf("got %+v", res)
	}
}

func TestMCP_UnknownRemoteTool(t *testing.T) {
	r := newMCPRunner(t, map[string]MCPServer{"files": stdioServer(t, "stdio", nil)})
	_, err := r.MCPTool(context.Background(), "files", "nope")
	if err == nil || !strings.Contains(err.Error(), `"files"`) || !strings.Contains(err.Error(), `no tool "nope"`) {
		t.Fatalf("err = %v", err)
	}
	// The server answered: the tool is known to be missing, not unreachable,
	// and the message says what there is instead.
	if !errors.Is(err, ErrNoMCPTool) || errors.Is(err, ErrMCPUnavailable) || !strings.Contains(err.Error(), "greet, picture, pid") {
		t.Errorf("err = %v", err)
	}
	st, _ := r.MCPStatus("files")
	if st.State != MCPRunning || !slices.Contains(st.Tools, "greet") || slices.Contains(st.Tools, "nope") {
		t.Errorf("status = %+v", st)
	}
	res := r.Run(context.Background(), mcpCall("files", "nope", `{}`))
	if !res.IsError || !strings.Contains(res.Content, "nope") {
		t.Fatalf("got %+v", res)
	}
}

func TestMCP_ResultContents(t *testing.T) {
	r := newMCPRunner(t, map[string]MCPServer{"s": stdioServer(t, "stdio", nil)})
	ctx := context.Background()
	cases := []struct {
		tool, args, want string
		isError          bool
	}{
		{"sum", `{"a":2,"b":40}`, `{"sum":42}`, false},
		{"structured", `{}`, `{"rows":3}`, false},
		{"picture", `{}`, "a chart\n[image/png 1,234 bytes]", false},
		{"fail", `{}`, "quota exceeded for this account", true},
	}
	for _, c := range cases {
		res := r.Run(ctx, mcpCall("s", c.tool, c.args))
		if res.IsError != c.isError || res.Content != c.want {
			t.Errorf("%s: got %+v, want %q (error %v)", c.tool, res, c.want, c.isError)
		}
	}
}

func TestMCP_OneServerForConcurrentCalls(t *testing.T) {
	r := newMCPRunner(t, map[string]MCPServer{"s": stdioServer(t, "stdio", nil)})
	var wg sync.WaitGroup
	pids := make([]string, 16)
	for i := range pids {
		wg.Go(func() {
			res := r.Run(context.Background(), mcpCall("s", "pid", `{}`))
			if res.IsError {
				t.Errorf("call %d: %s", i, res.Content)
			}
			pids[i] = res.Content
		})
	}
	wg.Wait()
	for _, p := range pids {
		if p != pids[0] {
			t.Fatalf("calls reached different server processes: %v", pids)
		}
	}
	log, _ := os.ReadFile(r.MCPLogPath("s"))
	if n := strings.Count(string(log), "starting MCP server"); n != 1 {
		t.Fatalf("server started %d times:\n%s", n, log)
	}
}

func TestMCP_ServerEnvironment(t *testing.T) {
	t.Setenv("SKILLET_TEST_GH_TOKEN", "gh-secret")
	t.Setenv("SKILLET_TEST_OTHER_TOKEN", "other-secret")
	t.Setenv("PGPASSWORD", "pg-secret")
	t.Setenv("SSH_AUTH_SOCK", "/tmp/agent.sock")
	t.Setenv("OPENAI_API_KEY", "sk-model-key")
	t.Setenv("LC_TIME", "C")
	r := newMCPRunner(t, map[string]MCPServer{"s": stdioServer(t, "stdio", map[string]string{
		"GITHUB_TOKEN":   "${SKILLET_TEST_GH_TOKEN}",
		"MODE":           "demo",
		"OPENAI_API_KEY": "$OPENAI_API_KEY",
		"LEAK":           "key=${OPENAI_API_KEY}",
	})})
	want := map[string]string{
		"GITHUB_TOKEN":             "gh-secret",
		"MODE":                     "demo",
		"LC_TIME":                  "C",
		"SKILLET_TEST_OTHER_TOKEN": "(unset)",
		"SKILLET_TEST_GH_TOKEN":    "(unset)",
		"PGPASSWORD":               "(unset)",
		"SSH_AUTH_SOCK":            "(unset)",
		"OPENAI_API_KEY":           "(unset)",
		"LEAK":                     "key=",
	}
	for v, w := range want {
		res := r.Run(context.Background(), mcpCall("s", "env", `{"var":"`+v+`"}`))
		if res.Content != w {
			t.Errorf("%s = %q, want %q", v, res.Content, w)
		}
	}
}

func TestMCP_NotConfigured(t *testing.T) {
	r := newMCPRunner(t, nil)
	res := r.Run(context.Background(), mcpCall("ghost", "x", `{}`))
	if !res.IsError || !strings.Contains(res.Content, `MCP server "ghost" is not configured`) {
		t.Fatalf("got %+v", res)
	}
	if _, err := r.MCPTool(context.Background(), "ghost", "x"); err == nil {
		t.Fatal("want an error")
	}
}

func TestMCP_BadConfig(t *testing.T) {
	r := newMCPRunner(t, map[string]MCPServer{
		"both":    {Command: "x", URL: "http://127.0.0.1:1/mcp"},
		"neither": {},
		"missing": {Command: "skillet-no-such-server"},
	})
	for name, want := range map[string]string{
		"both":    "set either command or url",
		"neither": "set either command or url",
		"missing": `"skillet-no-such-server" not found in PATH`,
	} {
		res := r.Run(context.Background(), mcpCall(name, "x", `{}`))
		if !res.IsError || !strings.Contains(res.Content, `"`+name+`"`) || !strings.Contains(res.Content, want) {
			t.Errorf("%s: got %+v, want %q", name, res, want)
		}
	}
}

// fakeClock is the runner's clock for backoff tests, moved by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func withClock(r *Runner) *fakeClock {
	c := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	r.now = c.now
	return c
}

func startsIn(t *testing.T, r *Runner, server string) int {
	t.Helper()
	log, err := os.ReadFile(r.MCPLogPath(server))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(log), "starting MCP server")
}

func TestMCP_ServerThatExitsAtOnce(t *testing.T) {
	r := newMCPRunner(t, map[string]MCPServer{"broken": stdioServer(t, "exit", nil)})
	clock := withClock(r)
	_, err := r.MCPTool(context.Background(), "broken", "greet")
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{`MCP server "broken" failed to start`, "fatal: cannot open database", "not started again for 1s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if !errors.Is(err, ErrMCPUnavailable) || errors.Is(err, ErrNoMCPTool) {
		t.Errorf("error kind: %v", err)
	}
	// Within the backoff, calls say why without starting it again.
	res := r.Run(context.Background(), mcpCall("broken", "greet", `{}`))
	if !res.IsError || !strings.Contains(res.Content, "cannot open database") || !strings.Contains(res.Content, "not started again") {
		t.Fatalf("got %+v", res)
	}
	if n := startsIn(t, r, "broken"); n != 1 {
		t.Fatalf("started %d times within the backoff", n)
	}
	// After it, the next call tries again.
	clock.advance(time.Second)
	if res := r.Run(context.Background(), mcpCall("broken", "greet", `{}`)); !res.IsError || !strings.Contains(res.Content, "cannot open database") {
		t.Fatalf("got %+v", res)
	}
	if n := startsIn(t, r, "broken"); n != 2 {
		t.Fatalf("want 2 start attempts, got %d", n)
	}
	st, _ := r.MCPStatus("broken")
	if st.State != MCPFailed || !strings.Contains(st.Why, "failed to start") || st.Launches != 2 {
		t.Errorf("status = %+v", st)
	}
}

// A broken server is not launched on every model call: one start per
// backoff step (1s, 2s, 4s, ...), and its state is logged once.
func TestMCP_BrokenServerBacksOff(t *testing.T) {
	r := newMCPRunner(t, map[string]MCPServer{"broken": stdioServer(t, "exit", nil)})
	clock := withClock(r)
	var changes []uint64
	// Seven turns, two lookups each, half a second apart.
	for turn := 0; turn < 7; turn++ {
		for range 2 {
			if _, err := r.MCPTool(context.Background(), "broken", "greet"); !errors.Is(err, ErrMCPUnavailable) {
				t.Fatalf("turn %d: %v", turn, err)
			}
		}
		st, _ := r.MCPStatus("broken")
		changes = append(changes, st.Change)
		clock.advance(500 * time.Millisecond)
	}
	// Starts at 0s, 1s (after the first backoff) and 3s (after 2s more).
	if n := startsIn(t, r, "broken"); n != 3 {
		t.Errorf("launched %d times in 3.5s, want 3", n)
	}
	for i, c := range changes {
		if c != changes[0] {
			t.Errorf("turn %d: state change %d, want %d: the same failure counts once", i, c, changes[0])
		}
	}
	log, _ := os.ReadFile(r.MCPLogPath("broken"))
	if n := strings.Count(string(log), `skillet: MCP server "broken": failed`); n != 1 {
		t.Errorf("failed state logged %d times:\n%s", n, log)
	}
	if d := backoff(30); d != mcpBackoffMax {
		t.Errorf("backoff is not capped: %s", d)
	}
}

func TestMCP_ServerThatDiesIsRestarted(t *testing.T) {
	r := newMCPRunner(t, map[string]MCPServer{"s": stdioServer(t, "stdio", nil)})
	clock := withClock(r)
	ctx := context.Background()
	first := r.Run(ctx, mcpCall("s", "pid", `{}`))
	if first.IsError {
		t.Fatal(first.Content)
	}
	if st, _ := r.MCPStatus("s"); st.State != MCPRunning {
		t.Fatalf("status = %+v", st)
	}
	res := r.Run(ctx, mcpCall("s", "crash", `{}`))
	if !res.IsError {
		t.Fatalf("want an error, got %+v", res)
	}
	for _, want := range []string{`MCP server "s" stopped`, "crashing now on purpose"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("content %q lacks %q", res.Content, want)
		}
	}
	st, _ := r.MCPStatus("s")
	if st.State != MCPFailed || !strings.Contains(st.Why, "stopped unexpectedly") || !strings.Contains(st.Why, "crashing now") {
		t.Errorf("status after the crash = %+v", st)
	}
	clock.advance(time.Second)
	second := r.Run(ctx, mcpCall("s", "pid", `{}`))
	if second.IsError {
		t.Fatalf("restart failed: %s", second.Content)
	}
	if second.Content == first.Content {
		t.Fatalf("same server process %s after it died", first.Content)
	}
	if st, _ := r.MCPStatus("s"); st.State != MCPRunning || st.Launches != 2 {
		t.Errorf("status after the restart = %+v", st)
	}
}

func TestMCP_CallTimeout(t *testing.T) {
	r := newMCPRunner(t, map[string]MCPServer{"s": stdioServer(t, "stdio", nil)})
	call := mcpCall("s", "slow", `{}`)
	call.Def.Timeout = 200 * time.Millisecond
	res := r.Run(context.Background(), call)
	if !res.IsError || !strings.Contains(res.Content, "timed out after 200ms") {
		t.Fatalf("got %+v", res)
	}
	// The server is still usable.
	if res := r.Run(context.Background(), mcpCall("s", "greet", `{"name":"x"}`)); res.Content != "hello x" {
		t.Fatalf("after a timeout: %+v", res)
	}
}

func TestR25_CancelMCPCall(t *testing.T) {
	r := newMCPRunner(t, map[string]MCPServer{"s": stdioServer(t, "stdio", nil)})
	if _, err := r.MCPTool(context.Background(), "s", "slow"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() { done <- r.Run(ctx, mcpCall("s", "slow", `{}`)) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	res := <-done
	if !res.IsError || !strings.Contains(res.Content, "cancelled") {
		t.Fatalf("got %+v", res)
	}
}

func TestMCP_CloseStopsServers(t *testing.T) {
	r := NewRunner(Options{MCPServers: map[string]MCPServer{"s": stdioServer(t, "stdio", nil)}, LogDir: t.TempDir()})
	res := r.Run(context.Background(), mcpCall("s", "pid", `{}`))
	pid, err := strconv.Atoi(res.Content)
	if err != nil {
		t.Fatalf("pid: %+v", res)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	waitGone(t, pid)
	res = r.Run(context.Background(), mcpCall("s", "pid", `{}`))
	if !res.IsError || !strings.Contains(res.Content, "closed") {
		t.Fatalf("after Close: %+v", res)
	}
}

func TestMCP_LogPath(t *testing.T) {
	dir := t.TempDir()
	r := newMCPRunner(t, map[string]MCPServer{"files": stdioServer(t, "stdio", nil)})
	r.logDir = dir
	if got := r.MCPLogPath("files"); got != "" {
		t.Errorf("before any start: %q", got)
	}
	if _, err := r.MCPTool(context.Background(), "files", "greet"); err != nil {
		t.Fatal(err)
	}
	got := r.MCPLogPath("files")
	if filepath.Dir(filepath.Dir(got)) != dir || !strings.HasPrefix(filepath.Base(filepath.Dir(got)), "run-") || filepath.Base(got) != "mcp-files.log" {
		t.Errorf("log path %q, want %s/run-*/mcp-files.log", got, dir)
	}
	if st, _ := r.MCPStatus("files"); st.Log != got {
		t.Errorf("status log %q, want %q", st.Log, got)
	}
	if p := r.MCPLogPath("../evil name"); filepath.Dir(p) != filepath.Dir(got) || strings.Contains(filepath.Base(p), "/") {
		t.Errorf("unsafe server name gives %q", p)
	}
}

func TestMCP_StreamableHTTP(t *testing.T) {
	srv := newTestServer()
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hs := httptest.NewServer(handler)
	defer hs.Close()

	r := newMCPRunner(t, map[string]MCPServer{"web": {URL: hs.URL}})
	def, err := r.MCPTool(context.Background(), "web", "sum")
	if err != nil {
		t.Fatal(err)
	}
	res := r.Run(context.Background(), Call{Def: def, Args: json.RawMessage(`{"a":1,"b":2}`)})
	if res.IsError || res.Content != `{"sum":3}` {
		t.Fatalf("got %+v", res)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
}

func TestMCP_UnreachableHTTPServer(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	url := hs.URL
	hs.Close() // nothing listens there any more
	r := newMCPRunner(t, map[string]MCPServer{"web": {URL: url}})
	res := r.Run(context.Background(), mcpCall("web", "sum", `{}`))
	if !res.IsError || !strings.Contains(res.Content, `MCP server "web" failed to start`) {
		t.Fatalf("got %+v", res)
	}
}

// A server killed in the middle of a call is started again for the very
// next call, each time it had worked in between: only a server that keeps
// failing (one that cannot start) waits out a backoff.
func TestMCP_ServerKilledMidCallRestartsAtOnce(t *testing.T) {
	r := newMCPRunner(t, map[string]MCPServer{"s": stdioServer(t, "stdio", nil)})
	withClock(r) // time stands still: no backoff can pass
	ctx := context.Background()
	pids := map[string]bool{}
	for round := 0; round < 3; round++ {
		res := r.Run(ctx, mcpCall("s", "pid", `{}`))
		if res.IsError {
			t.Fatalf("round %d: the call after a crash was refused: %s", round, res.Content)
		}
		pids[res.Content] = true
		if crash := r.Run(ctx, mcpCall("s", "crash", `{}`)); !crash.IsError || strings.Contains(crash.Content, "not started again for 1s") {
			t.Fatalf("round %d: the crash says %q", round, crash.Content)
		}
	}
	if len(pids) != 3 {
		t.Fatalf("want three server processes, got %v", pids)
	}
	log, _ := os.ReadFile(r.MCPLogPath("s"))
	if !strings.Contains(string(log), "(started again at the next call)") {
		t.Errorf("the log does not say the server restarts at once:\n%s", log)
	}
}
