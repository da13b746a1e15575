// Package tools carries out tool calls: demo tools that answer from a
// template, command tools run as subprocesses, and tools of MCP servers. It
// also reads a loaded skill's resources. Authorization (R15) and the
// lifecycle of state and store files (R26) belong to the engine; this
// package only runs what it is given.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"skillet/skills"
)

// Defaults used when Options or a tool definition leave a limit at zero.
const (
	// DefaultTimeout bounds a command tool's run and an MCP tool call.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxOutput is the number of bytes of a tool's output kept; the
	// engine cuts any tool result to it as well.
	DefaultMaxOutput = 64 << 10
)

// Call is one tool call to carry out.
type Call struct {
	// ID is the tool call's id.
	ID string
	// Def is the tool version to run.
	Def *skills.ToolDef
	// Args is the arguments object, already checked against Def.Parameters.
	Args json.RawMessage
	// Dir is the working folder: the skill's folder, or the tool file's
	// folder for agent tools.
	Dir string
	// StateFile and StoreFile are JSON files holding the calling skill's
	// per-load state and its session store (R26); "" for agent tools.
	StateFile string
	StoreFile string
}

// Result is what a call produced.
type Result struct {
	// Content is the text the model reads.
	Content string
	// IsError marks a tool error (a non-zero exit, a timeout, a server
	// error); the model still reads Content.
	IsError bool
	// Stderr is a command tool's stderr, kept for the UI.
	Stderr string
}

// Options configure a Runner.
type Options struct {
	// MCPServers are the [mcp.servers.NAME] tables of skillet.toml.
	MCPServers map[string]MCPServer
	// LogDir holds the MCP logs: each runner makes a folder of its own in
	// it (run-TIME-*, mode 0700) when the first server starts, where each
	// server's stderr goes (mcp-NAME.log, mode 0600), and removes those of
	// runs over a week old. "" means a fresh temporary folder.
	LogDir string
	// DefaultTimeout bounds a tool run when its definition sets none, and an
	// MCP server's start; 0 means DefaultTimeout.
	DefaultTimeout time.Duration
	// DefaultMaxOutput caps a tool's output when its definition sets no
	// cap; 0 means DefaultMaxOutput.
	DefaultMaxOutput int
	// Env is the base environment of command tools and MCP servers, before
	// it is cut to the default variables and those a tool or server names;
	// nil means os.Environ().
	Env []string
}

// MCPServer is how to reach one MCP server: a command speaking MCP over
// stdio, or the URL of a streamable-HTTP endpoint.
type MCPServer struct {
	// Command is the program to run (looked up in PATH unless it holds a
	// slash) and Args its arguments.
	Command string
	Args    []string
	// Env adds variables to the server's environment. A value may refer to
	// the base environment as $NAME or ${NAME}, which is how a server is
	// given a variable beyond the default set (PATH, HOME, locale, ...).
	Env map[string]string
	// URL is a streamable-HTTP endpoint; set it or Command, not both.
	URL string
}

// Runner carries out tool calls of every kind. It is safe for concurrent
// use; MCP servers it starts live until Close.
type Runner struct {
	opts Options

	tmplMu sync.Mutex
	tmpls  map[tmplKey]*cachedTemplate

	// fileLocks serialize read-modify-write of one state or store file
	// across concurrent response-tool calls.
	fileLocks sync.Map // path -> *sync.Mutex

	mcpMu     sync.Mutex
	mcpConns  map[string]*mcpConn
	mcpClosed bool
	logDirMu  sync.Mutex
	logDir    string
	runLogDir string // this runner's own folder in logDir, once made
	// redactAll hides every server's credentials; redactOnce guards it.
	redactOnce sync.Once
	redactAll  *strings.Replacer

	// now is the clock of MCP backoffs; tests move it.
	now func() time.Time
}

// NewRunner returns a Runner with the given options; zero limits take the
// package defaults.
func NewRunner(opts Options) *Runner {
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = DefaultTimeout
	}
	if opts.DefaultMaxOutput <= 0 {
		opts.DefaultMaxOutput = DefaultMaxOutput
	}
	return &Runner{
		opts:     opts,
		tmpls:    make(map[tmplKey]*cachedTemplate),
		mcpConns: make(map[string]*mcpConn),
		logDir:   opts.LogDir,
		now:      time.Now,
	}
}

// Run carries out one call of any kind. It never panics: every failure,
// including a bad definition, becomes a Result with IsError set whose
// Content says what went wrong.
func (r *Runner) Run(ctx context.Context, call Call) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = Result{
				Content: fmt.Sprintf("tool %s: internal error: %v", toolLabel(call.Def), p),
				IsError: true,
				Stderr:  string(debug.Stack()),
			}
		}
	}()
	if call.Def == nil {
		return errorResult("tool call %q has no tool definition", call.ID)
	}
	if err := ctx.Err(); err != nil {
		return errorResult("tool %s: cancelled before it started", toolLabel(call.Def))
	}
	switch call.Def.Kind {
	case skills.KindResponse:
		return r.runResponse(call)
	case skills.KindCommand:
		return r.runCommand(ctx, call)
	case skills.KindMCP:
		return r.runMCP(ctx, call)
	default:
		return errorResult("tool %s: unknown kind %q (want response, command or mcp)", toolLabel(call.Def), call.Def.Kind)
	}
}

// Close stops every MCP server the runner started. Later MCP calls fail.
func (r *Runner) Close() error {
	return r.closeMCP()
}

func (r *Runner) timeout(def *skills.ToolDef) time.Duration {
	if def != nil && def.Timeout > 0 {
		return def.Timeout
	}
	return r.opts.DefaultTimeout
}

func (r *Runner) maxOutput(def *skills.ToolDef) int {
	if def != nil && def.MaxOutput > 0 {
		return def.MaxOutput
	}
	return r.opts.DefaultMaxOutput
}

// toolLabel names a tool in messages: name@version, or SERVER/TOOL for a
// tool of an MCP server (as a skill names it).
func toolLabel(def *skills.ToolDef) string {
	if def == nil {
		return "(no definition)"
	}
	if def.Kind == skills.KindMCP {
		remote := def.RemoteTool
		if remote == "" {
			remote = def.Name
		}
		return def.Server + "/" + remote
	}
	return def.Key()
}

func errorResult(format string, args ...any) Result {
	return Result{Content: fmt.Sprintf(format, args...), IsError: true}
}

// argsOrEmpty treats missing arguments as the empty object.
func argsOrEmpty(args json.RawMessage) json.RawMessage {
	for _, b := range args {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return args
	}
	return json.RawMessage("{}")
}
