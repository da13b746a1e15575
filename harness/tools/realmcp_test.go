//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nodeModulesVar names the node_modules folder holding the real MCP
// servers from npm (.ci/run installs them there).
const nodeModulesVar = "SKILLET_MCP_NODE_MODULES"

// realServer returns the command of one of the real MCP servers, or skips
// the test when they are not installed.
func realServer(t *testing.T, bin string) string {
	t.Helper()
	dir := os.Getenv(nodeModulesVar)
	if dir == "" {
		t.Skipf("%s is not set: .ci/run installs the real MCP servers from npm and sets it", nodeModulesVar)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the real MCP servers need it")
	}
	p := filepath.Join(dir, ".bin", bin)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed in %s (npm install @modelcontextprotocol/server-...): %v", bin, dir, err)
	}
	return p
}

func realRunner(t *testing.T, servers map[string]MCPServer) *Runner {
	t.Helper()
	r := NewRunner(Options{MCPServers: servers, LogDir: t.TempDir(), DefaultTimeout: 30 * time.Second})
	t.Cleanup(func() { r.Close() })
	return r
}

func mustRun(t *testing.T, r *Runner, call Call) string {
	t.Helper()
	res := r.Run(context.Background(), call)
	if res.IsError {
		t.Fatalf("%s: %s", call.Def.RemoteTool, res.Content)
	}
	return res.Content
}

// processesMarked lists the live processes whose environment holds kv.
func processesMarked(kv string) []int {
	var out []int
	for pid, st := range scanProcs() {
		if !st.Ended && hasMarker(pid, kv) {
			out = append(out, pid)
		}
	}
	return out
}

func TestRealMCP_Everything(t *testing.T) {
	bin := realServer(t, "mcp-server-everything")
	t.Setenv("PGPASSWORD", "pg-real-secret")
	t.Setenv("OPENAI_API_KEY", "sk-real-model-key")
	r := realRunner(t, map[string]MCPServer{"everything": {Command: bin, Args: []string{"stdio"}}})
	ctx := context.Background()

	def, err := r.MCPTool(ctx, "everything", "echo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ValidateArgs(def.Parameters, `{}`); err == nil || !strings.Contains(err.Error(), "message") {
		t.Errorf("the server's schema should require message: %v", err)
	}
	if out := mustRun(t, r, Call{Def: def, Args: json.RawMessage(`{"message":"hello from skillet"}`)}); !strings.Contains(out, "hello from skillet") {
		t.Errorf("echo = %q", out)
	}
	if out := mustRun(t, r, mcpCall("everything", "get-sum", `{"a":2,"b":3}`)); !strings.Contains(out, "5") {
		t.Errorf("get-sum = %q", out)
	}
	// Its environment is the allowlisted one.
	env := mustRun(t, r, mcpCall("everything", "get-env", `{}`))
	for _, leak := range []string{"pg-real-secret", "sk-real-model-key"} {
		if strings.Contains(env, leak) {
			t.Errorf("the server sees %q", leak)
		}
	}
	// A tool it does not have is known missing, not unreachable.
	_, err = r.MCPTool(ctx, "everything", "render_pdf")
	if !errors.Is(err, ErrNoMCPTool) || !strings.Contains(err.Error(), "echo") {
		t.Errorf("missing tool: %v", err)
	}
	st, _ := r.MCPStatus("everything")
	if st.State != MCPRunning || st.Launches != 1 || len(st.Tools) < 5 {
		t.Errorf("status = %+v", st)
	}

	// A cancelled long call ends at once; the server stays usable.
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan Result, 1)
	go func() {
		done <- r.Run(cctx, mcpCall("everything", "trigger-long-running-operation", `{"duration":60,"steps":60}`))
	}()
	time.Sleep(300 * time.Millisecond)
	cancel()
	if res := <-done; !res.IsError || !strings.Contains(res.Content, "cancelled") {
		t.Errorf("cancelled call: %+v", res)
	}
	if out := mustRun(t, r, mcpCall("everything", "echo", `{"message":"still here"}`)); !strings.Contains(out, "still here") {
		t.Errorf("after a cancel: %q", out)
	}

	// Close stops the server and everything it started.
	marker := r.mcpConns["everything"].live.tree.env()
	if len(processesMarked(marker)) == 0 {
		t.Fatal("no process carries the server's marker")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for left := processesMarked(marker); len(left) > 0; left = processesMarked(marker) {
		if time.Now().After(deadline) {
			t.Fatalf("still running after Close: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st, _ := r.MCPStatus("everything"); st.State != MCPStopped {
		t.Errorf("status after Close = %+v", st)
	}
}

func TestRealMCP_Filesystem(t *testing.T) {
	bin := realServer(t, "mcp-server-filesystem")
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("not for the server"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := realRunner(t, map[string]MCPServer{"fs": {Command: bin, Args: []string{root}}})
	file := filepath.Join(root, "notes.txt")
	args := func(v map[string]any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	mustRun(t, r, mcpCall("fs", "write_file", args(map[string]any{"path": file, "content": "line one\nline two\n"})))
	if b, err := os.ReadFile(file); err != nil || string(b) != "line one\nline two\n" {
		t.Fatalf("written file: %q, %v", b, err)
	}
	if out := mustRun(t, r, mcpCall("fs", "read_text_file", args(map[string]any{"path": file}))); !strings.Contains(out, "line two") {
		t.Errorf("read_text_file = %q", out)
	}
	if out := mustRun(t, r, mcpCall("fs", "list_directory", args(map[string]any{"path": root}))); !strings.Contains(out, "notes.txt") {
		t.Errorf("list_directory = %q", out)
	}
	// The server's own sandbox refuses a path outside its root: a tool
	// error the model reads, not a failure of the server.
	res := r.Run(context.Background(), mcpCall("fs", "read_text_file", args(map[string]any{"path": outside})))
	if !res.IsError || strings.Contains(res.Content, "not for the server") {
		t.Errorf("read outside the root: %+v", res)
	}
	if st, _ := r.MCPStatus("fs"); st.State != MCPRunning || st.Launches != 1 {
		t.Errorf("status = %+v", st)
	}
}

func TestRealMCP_Memory(t *testing.T) {
	bin := realServer(t, "mcp-server-memory")
	store := filepath.Join(t.TempDir(), "memory.jsonl")
	servers := map[string]MCPServer{"memory": {Command: bin, Env: map[string]string{"MEMORY_FILE_PATH": store}}}
	r := realRunner(t, servers)
	mustRun(t, r, mcpCall("memory", "create_entities",
		`{"entities":[{"name":"Skillet","entityType":"project","observations":["a terminal harness for agent skills"]}]}`))
	if out := mustRun(t, r, mcpCall("memory", "search_nodes", `{"query":"harness"}`)); !strings.Contains(out, "Skillet") {
		t.Errorf("search_nodes = %q", out)
	}
	r.Close()
	// The server was given its file through the entry's env: a new run
	// of it reads what the first one wrote.
	if _, err := os.Stat(store); err != nil {
		t.Fatalf("memory file: %v", err)
	}
	again := realRunner(t, servers)
	if out := mustRun(t, again, mcpCall("memory", "read_graph", `{}`)); !strings.Contains(out, "terminal harness for agent skills") {
		t.Errorf("read_graph after a restart = %q", out)
	}
}

// A real server that cannot start (its root folder is missing) is started
// once, not on every lookup, and says why.
func TestRealMCP_BrokenServerIsNotRelaunchedOnEveryCall(t *testing.T) {
	bin := realServer(t, "mcp-server-filesystem")
	missing := filepath.Join(t.TempDir(), "no-such-folder")
	r := realRunner(t, map[string]MCPServer{"fs": {Command: bin, Args: []string{missing}}})
	var first error
	for i := range 8 {
		_, err := r.MCPTool(context.Background(), "fs", "read_text_file")
		if !errors.Is(err, ErrMCPUnavailable) {
			t.Fatalf("lookup %d: %v", i, err)
		}
		if first == nil {
			first = err
		}
	}
	st, _ := r.MCPStatus("fs")
	if st.State != MCPFailed || st.Launches != 1 || st.NextTry.IsZero() {
		t.Errorf("status = %+v", st)
	}
	if !strings.Contains(first.Error(), "no-such-folder") {
		t.Errorf("the error does not carry the server's complaint: %v", first)
	}
	log, _ := r.MCPLog("fs", 1<<20)
	if n := strings.Count(log, "starting MCP server"); n != 1 {
		t.Errorf("%d starts in the log:\n%s", n, log)
	}
}
