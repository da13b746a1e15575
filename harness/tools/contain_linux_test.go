package tools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"skillet/harness/procfs"
	"skillet/harness/sandbox"
	"skillet/skills"
)

// killAtEnd kills pid when the test ends, unless it has gone (or its pid is
// another process's by then).
func killAtEnd(t *testing.T, pid int) {
	st, ok := procfs.Read(pid)
	t.Cleanup(func() {
		if now, alive := procfs.Read(pid); ok && alive && now.Start == st.Start {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// A daemon that leaves the tool at once, before any look at the tool's
// tree, in a session of its own and with an empty environment, ends with
// the tool: the run's PID namespace goes when its first process does.
func TestCommand_QuickCleanDaemonEndsWithTheTool(t *testing.T) {
	if !sandbox.PIDNamespaces() {
		t.Skip("no PID namespace can be made here")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "quick.sh")
	os.WriteFile(script, []byte(`#!/bin/sh
setsid env -i /bin/sh -c 'read -r p _ < /proc/self/stat; echo "$p" > daemon.pid.tmp; mv daemon.pid.tmp daemon.pid; exec sleep 300' < /dev/null > /dev/null 2>&1 &
while [ ! -e daemon.pid ]; do :; done
echo started
`), 0o755)
	def := &skills.ToolDef{Name: "quick", Version: 1, Kind: skills.KindCommand, Command: []string{script}}
	done := make(chan Result, 1)
	go func() { done <- NewRunner(Options{}).Run(context.Background(), Call{Def: def, Dir: dir}) }()
	pid := readPid(t, filepath.Join(dir, "daemon.pid"))
	killAtEnd(t, pid)
	res := <-done
	if res.IsError || strings.TrimSpace(res.Content) != "started" {
		t.Fatalf("got %+v", res)
	}
	waitGone(t, pid)
}

// The namespace's init is a shell: the tool itself keeps the signal
// defaults of any process, and its exit status comes through.
func TestCommand_ContainedToolSignalsAndExitCode(t *testing.T) {
	if !sandbox.PIDNamespaces() {
		t.Skip("no PID namespace can be made here")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "self.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"$0 $*\"\nkill -TERM $$\necho not reached\n"), 0o755)
	def := &skills.ToolDef{Name: "self", Version: 1, Kind: skills.KindCommand, Command: []string{script, "a b", "c"}}
	res := NewRunner(Options{}).Run(context.Background(), Call{Def: def, Dir: dir})
	if !res.IsError || strings.Contains(res.Content, "not reached") || !strings.Contains(res.Content, script+" a b c") || !strings.Contains(res.Content, "exit code 143 (signal: terminated)") {
		t.Fatalf("a tool that sends itself SIGTERM: %+v", res)
	}
	os.WriteFile(script, []byte("#!/bin/sh\nexit 7\n"), 0o755)
	res = NewRunner(Options{}).Run(context.Background(), Call{Def: def, Dir: dir})
	if !res.IsError || !strings.Contains(res.Content, "exit code 7") {
		t.Fatalf("exit 7: %+v", res)
	}
}

// An MCP server's daemon that leaves at once, in a session of its own,
// ends when the server stops.
func TestMCP_ServerDaemonEndsWithTheServer(t *testing.T) {
	if !sandbox.PIDNamespaces() {
		t.Skip("no PID namespace can be made here")
	}
	r := NewRunner(Options{MCPServers: map[string]MCPServer{"s": stdioServer(t, "stdio", nil)}, LogDir: t.TempDir()})
	defer r.Close()
	res := r.Run(context.Background(), mcpCall("s", "daemon", `{}`))
	if res.IsError {
		t.Fatalf("unexpected error: %+v", res)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(res.Content))
	if err != nil || processGone(pid) {
		t.Fatalf("daemon %q did not start", res.Content)
	}
	killAtEnd(t, pid)
	srv := r.Run(context.Background(), mcpCall("s", "pid", `{}`))
	spid, err := strconv.Atoi(srv.Content)
	if err != nil {
		t.Fatalf("pid: %+v", srv)
	}
	// The server dies (as when it crashes): its daemon goes with it, not
	// only when Skillet closes the session.
	syscall.Kill(spid, syscall.SIGKILL)
	waitGone(t, pid)
}
