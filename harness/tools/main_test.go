package tools

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testServerMode, when set in the environment, makes the test binary act as
// an MCP server instead of running tests: "stdio" serves the test tools
// over stdin/stdout, "exit" complains on stderr and exits at once.
const testServerMode = "SKILLET_TOOLS_TEST_MCP"

func TestMain(m *testing.M) {
	switch os.Getenv(testServerMode) {
	case "":
		// As Skillet's main does: the tests check that nothing a tool
		// started outlives it, daemons re-parented here included.
		if err := BecomeSubreaper(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(m.Run())
	case "stdio":
		err := newTestServer().Run(context.Background(), &mcp.StdioTransport{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "echo":
		// A server that tells its log what it was given, as servers do.
		fmt.Fprintln(os.Stderr, "started with", strings.Join(os.Args[1:], " "), "token", os.Getenv("GITHUB_TOKEN"))
		// The token again, in two writes: the log must hide it whole.
		tok := os.Getenv("GITHUB_TOKEN")
		os.Stderr.WriteString("connecting with " + tok[:len(tok)/2])
		time.Sleep(20 * time.Millisecond)
		os.Stderr.WriteString(tok[len(tok)/2:] + "\n")
		if err := newTestServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: cannot open database /nowhere/db.sqlite")
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "unknown", testServerMode)
		os.Exit(2)
	}
}

type greetIn struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

type sumIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

type envIn struct {
	Var string `json:"var"`
}

// newTestServer is the MCP server the tests talk to, over stdio (this
// binary run as a subprocess) and over streamable HTTP.
func newTestServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "skillet-test", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "Greet someone by name."},
		func(ctx context.Context, req *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Name}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sum", Description: "Add two integers."},
		func(ctx context.Context, req *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, sumOut, error) {
			return nil, sumOut{Sum: in.A + in.B}, nil
		})
	s.AddTool(&mcp.Tool{Name: "structured", Description: "Answer with structured content only.",
		InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"rows": 3}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "picture", Description: "Answer with text and an image.",
		InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a chart"},
				&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 1234)},
			}}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fail."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("quota exceeded for this account")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Read an environment variable."},
		func(ctx context.Context, req *mcp.CallToolRequest, in envIn) (*mcp.CallToolResult, any, error) {
			v, ok := os.LookupEnv(in.Var)
			if !ok {
				v = "(unset)"
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: v}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Report the server's process id."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(machinePid())}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "daemon", Description: "Start a daemon in a session of its own and report its pid."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			// It says its own pid as the machine numbers it: the server's
			// may be a PID namespace's.
			cmd := exec.Command("setsid", "sh", "-c", `read -r p _ < /proc/self/stat; echo "$p"; exec sleep 300 > /dev/null`)
			out, err := cmd.StdoutPipe()
			if err != nil {
				return nil, nil, err
			}
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.TrimSpace(line)}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Wait until cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit the server."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "panic: crashing now on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	return s
}

// testdata returns the absolute path of a file under testdata/.
func testdata(t testing.TB, parts ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(append([]string{"testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// processGone reports whether pid has exited (a zombie counts as gone: it
// runs nothing and only waits for its parent to reap it).
func processGone(pid int) bool {
	if runtime.GOOS == "linux" {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
			return s[i+2] == 'Z' || s[i+2] == 'X'
		}
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	return p.Signal(syscall.Signal(0)) != nil
}

// waitGone waits (boundedly) for a killed process to be gone: SIGKILL is
// delivered asynchronously.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// machinePid is this process's pid as the machine numbers it, which is
// not os.Getpid() in a PID namespace of its own: /proc is the machine's.
func machinePid() int {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return os.Getpid()
	}
	pid, err := strconv.Atoi(strings.Fields(string(b))[0])
	if err != nil {
		return os.Getpid()
	}
	return pid
}

// readPid waits for a script to write its grandchild's pid file.
func readPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("pid file %s: %v", path, err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid file %s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
