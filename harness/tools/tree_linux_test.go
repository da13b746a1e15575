package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"skillet/harness/procfs"
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitReaped waits (boundedly) until pid is gone and not left a zombie of
// this process: with the subreaper set, nobody else would reap it.
func waitReaped(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, ok := procfs.Read(pid)
		if !ok || st.PPID != os.Getpid() && st.Ended {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still there (zombie %v, parent %d)", pid, st.Ended, st.PPID)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func pids(t *testing.T, out string) []int {
	t.Helper()
	var ps []int
	for _, f := range strings.Fields(out) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("not a pid: %q in %q", f, out)
		}
		ps = append(ps, pid)
	}
	if len(ps) == 0 {
		t.Fatalf("no pid printed")
	}
	return ps
}

func TestCommand_SetsidGrandchildIsStoppedWhenToolEnds(t *testing.T) {
	r := NewRunner(Options{})
	res := r.Run(context.Background(), Call{Def: scriptTool(t, "daemon.sh"), Dir: t.TempDir()})
	if res.IsError {
		t.Fatalf("unexpected error: %+v", res)
	}
	pid := pids(t, res.Content)[0]
	waitGone(t, pid)
	waitReaped(t, pid)
}

func TestR25_CancelStopsSetsidGrandchild(t *testing.T) {
	dir := t.TempDir()
	r := NewRunner(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan Result, 1)
	go func() { done <- r.Run(ctx, Call{Def: scriptTool(t, "daemon_wait.sh"), Dir: dir}) }()
	pid := readPid(t, filepath.Join(dir, "daemon.pid"))
	cancel()
	if res := <-done; !res.IsError || !strings.Contains(res.Content, "cancelled") {
		t.Fatalf("want a cancelled error, got %+v", res)
	}
	waitGone(t, pid)
	waitReaped(t, pid)
}

func TestCommand_TimeoutStopsSetsidGrandchild(t *testing.T) {
	dir := t.TempDir()
	def := scriptTool(t, "daemon_wait.sh")
	def.Timeout = 500 * time.Millisecond
	res := NewRunner(Options{}).Run(context.Background(), Call{Def: def, Dir: dir})
	if !res.IsError || !strings.Contains(res.Content, "timed out") {
		t.Fatalf("want a timeout, got %+v", res)
	}
	pid := readPid(t, filepath.Join(dir, "daemon.pid"))
	waitGone(t, pid)
	waitReaped(t, pid)
}

// An orphan that cleared its environment is still known from having been
// seen in the tool's tree.
func TestCommand_OrphanWithoutEnvironmentIsStopped(t *testing.T) {
	dir := t.TempDir()
	res := NewRunner(Options{}).Run(context.Background(), Call{Def: scriptTool(t, "daemon_noenv.sh"), Dir: dir})
	if res.IsError || strings.TrimSpace(res.Content) != "done" {
		t.Fatalf("got %+v", res)
	}
	pid := readPid(t, filepath.Join(dir, "daemon.pid"))
	waitGone(t, pid)
	waitReaped(t, pid)
}

// Orphans re-parented here that exit on their own are reaped, not left
// zombies for the rest of the session.
func TestCommand_OrphansExitingOnTheirOwnAreReaped(t *testing.T) {
	res := NewRunner(Options{}).Run(context.Background(), Call{Def: scriptTool(t, "daemon_short.sh"), Dir: t.TempDir()})
	if res.IsError {
		t.Fatalf("unexpected error: %+v", res)
	}
	for _, pid := range pids(t, res.Content) {
		waitReaped(t, pid)
	}
}

func TestMCP_CloseStopsServerDaemons(t *testing.T) {
	r := NewRunner(Options{MCPServers: map[string]MCPServer{"s": stdioServer(t, "stdio", nil)}, LogDir: t.TempDir()})
	defer r.Close()
	res := r.Run(context.Background(), mcpCall("s", "daemon", `{}`))
	if res.IsError {
		t.Fatalf("unexpected error: %+v", res)
	}
	pid := pids(t, res.Content)[0]
	if processGone(pid) {
		t.Fatalf("daemon %d did not start", pid)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	waitReaped(t, pid)
}

// Where Skillet is not the subreaper, the run's processes are looked for
// among all of the system's, by their marker.
func TestCommand_SetsidGrandchildIsStoppedWithoutTheSubreaperShortcut(t *testing.T) {
	subreaper.Store(false)
	defer subreaper.Store(true)
	dir := t.TempDir()
	res := NewRunner(Options{}).Run(context.Background(), Call{Def: scriptTool(t, "daemon_noenv.sh"), Dir: dir})
	if res.IsError {
		t.Fatalf("unexpected error: %+v", res)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "daemon.pid")))
	res = NewRunner(Options{}).Run(context.Background(), Call{Def: scriptTool(t, "daemon.sh"), Dir: t.TempDir()})
	if res.IsError {
		t.Fatalf("unexpected error: %+v", res)
	}
	waitGone(t, pids(t, res.Content)[0])
}

// Where the kernel gives a run no PID namespace of its own, its processes
// are still found by watching its tree and by its marker.
func TestTrackingWithoutPIDNamespace(t *testing.T) {
	old := contain
	contain = func(*exec.Cmd) bool { return false }
	defer func() { contain = old }()
	for name, test := range map[string]func(*testing.T){
		"setsid grandchild":       TestCommand_SetsidGrandchildIsStoppedWhenToolEnds,
		"cancel":                  TestR25_CancelStopsSetsidGrandchild,
		"timeout":                 TestCommand_TimeoutStopsSetsidGrandchild,
		"orphan without env":      TestCommand_OrphanWithoutEnvironmentIsStopped,
		"orphans reaped":          TestCommand_OrphansExitingOnTheirOwnAreReaped,
		"MCP server daemons":      TestMCP_CloseStopsServerDaemons,
		"without subreaper scan":  TestCommand_SetsidGrandchildIsStoppedWithoutTheSubreaperShortcut,
		"timeout, process group":  TestCommand_TimeoutKillsProcessGroup,
		"grandchild holding pipe": TestCommand_GrandchildHoldingPipesDoesNotHang,
	} {
		t.Run(name, test)
	}
}
