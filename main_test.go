package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// buildEnv keeps the go command's caches where they were before a test
// pointed HOME and XDG_CACHE_HOME elsewhere.
var buildEnv = append(os.Environ(), "HOME="+os.Getenv("HOME"), "XDG_CACHE_HOME="+os.Getenv("XDG_CACHE_HOME"))

// binDir holds the skillet binary the tests that need a real process
// build, once per test run.
var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binError error
)

// mcpServerMode, set in the environment, makes the test binary a stdio MCP
// server instead of running tests; mcpPIDFile names the file it writes
// its process id to.
const (
	mcpServerMode = "SKILLET_MAIN_TEST_MCP"
	mcpPIDFile    = "SKILLET_MAIN_TEST_MCP_PIDFILE"
)

func TestMain(m *testing.M) {
	if os.Getenv(mcpServerMode) == "stdio" {
		os.Exit(serveTestMCP())
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// skilletBinary builds the skillet binary (once) and returns its path.
func skilletBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binError = os.MkdirTemp("", "skillet-bin-")
		if binError != nil {
			return
		}
		// readable by every user: a test runs it as another one
		os.Chmod(binDir, 0o755)
		binPath = filepath.Join(binDir, "skillet")
		build := exec.Command("go", "build", "-o", binPath, ".")
		// tests change the working folder and point HOME elsewhere
		build.Dir, build.Env = repoDir, buildEnv
		out, err := build.CombinedOutput()
		if err != nil {
			binError = &buildError{out: string(out), err: err}
		}
	})
	if binError != nil {
		t.Fatalf("build skillet: %v", binError)
	}
	return binPath
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// serveTestMCP serves one tool, wait, which blocks until it is cancelled.
func serveTestMCP() int {
	if f := os.Getenv(mcpPIDFile); f != "" {
		// The pid as the machine numbers it (/proc is the machine's): the
		// server's own is its PID namespace's.
		pid := strconv.Itoa(os.Getpid())
		if b, err := os.ReadFile("/proc/self/stat"); err == nil {
			pid, _, _ = strings.Cut(string(b), " ")
		}
		os.WriteFile(f+".tmp", []byte(pid), 0o644)
		os.Rename(f+".tmp", f)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "skillet-main-test", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: "Wait until cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			if f := os.Getenv(mcpPIDFile); f != "" {
				os.WriteFile(f+".called", nil, 0o644)
			}
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	// busy is a call that goes on when its client has gone, and the
	// server finishes its calls before it exits, as many servers do.
	var busy sync.WaitGroup
	mcp.AddTool(s, &mcp.Tool{Name: "busy", Description: "Work for five minutes, whatever happens."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			busy.Add(1)
			defer busy.Done()
			if f := os.Getenv(mcpPIDFile); f != "" {
				os.WriteFile(f+".called", nil, 0o644)
			}
			time.Sleep(5 * time.Minute)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	err := s.Run(context.Background(), &mcp.StdioTransport{})
	busy.Wait()
	if err != nil {
		fmt.Fprintln(os.Stderr, "test MCP server:", err)
		return 1
	}
	return 0
}

// Every command's help names its flags with their placeholders, and no
// backquote of the flag package's placeholder syntax is left in the text.
func TestHelpListsEveryFlag(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "-h"}, []string{"  -show-state FILE\n", "state to FILE as skillet show --json prints it"}},
		{[]string{"replay", "--help"}, []string{"usage: skillet replay diff", "  -set KEY=VALUE\n", "  -profile NAME\n", "  -skills DIR\n"}},
		{[]string{"replay", "diff", "-h"}, []string{"  -set KEY=VALUE\n", "  -context-window TOKENS\n"}},
		{[]string{"validate", "-h"}, []string{"Flags:\n", "  -json\n", "  -config FILE\n"}},
		{[]string{"offered", "-h"}, []string{"  -usage FILE\n"}},
		{[]string{"eval", "-h"}, []string{"  -queries FILE\n"}},
		{[]string{"why", "-h"}, []string{"  -session-dir DIR\n"}},
		{[]string{"show", "-h"}, []string{"  -session-dir DIR\n"}},
		{[]string{"export", "-h"}, []string{"  -session-dir DIR\n"}},
		{[]string{"workspace", "-h"}, []string{"  -at NUMBER\n", "  -out DIR\n"}},
		{[]string{"run", "-h"}, []string{"  -workspace DIR\n", "  -workspace-in-place DIR\n", "  -no-sandbox\n", "  -network\n"}},
		{[]string{"demo", "-h"}, nil},
		{[]string{"-h"}, nil},
	} {
		code, out, errOut := runBinary(t, c.args...)
		if code != 0 || errOut != "" {
			t.Errorf("%v: exit %d\n%s", c.args, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in:\n%s", c.args, w, out)
			}
		}
		if strings.HasSuffix(strings.TrimSpace(out), "Flags:") {
			t.Errorf("%v: the help ends before its flags", c.args)
		}
		if strings.Contains(out, "`") {
			t.Errorf("%v: a backquote is left in:\n%s", c.args, out)
		}
	}
}

// The help is built from the dispatch table: every command it lists runs,
// answers -h, and its help names it.
func TestHelpIsTheDispatchTable(t *testing.T) {
	isolate(t)
	_, help, _ := runBinary(t, "help")
	for _, c := range commands {
		if !strings.Contains(help, c.synopsis) {
			t.Errorf("skillet help does not list %q:\n%s", c.synopsis, help)
		}
		if c.run == nil {
			continue
		}
		code, out, errOut := runBinary(t, c.names[0], "-h")
		if code != 0 || errOut != "" {
			t.Errorf("skillet %s -h: exit %d\n%s", c.names[0], code, errOut)
		}
		if name := strings.TrimLeft(c.names[0], "-"); name != "version" && !strings.Contains(out, "skillet "+name) {
			t.Errorf("skillet %s -h does not name the command:\n%s", c.names[0], out)
		}
	}
}
