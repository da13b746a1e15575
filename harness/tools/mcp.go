package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"skillet/skills"
)

// mcpLogTail is how much of a dead server's log an error carries.
const mcpLogTail = 2 << 10

// mcpTerminate is how long a stdio server may take to exit after its stdin
// closes before it is signalled.
const mcpTerminate = 2 * time.Second

// mcpDeathGrace is how long a failed call waits to learn whether the
// connection failed because the server died.
const mcpDeathGrace = time.Second

// serverPoll is trackPoll for an MCP server, which runs all session long.
const serverPoll = time.Second

// mcpConn is one configured server: at most one live session at a time, and
// a lock that lets a single caller start it.
type mcpConn struct {
	name string
	// lock is held (a value sent) while the session is checked or started;
	// a channel rather than a mutex so a cancelled caller stops waiting.
	lock chan struct{}
	live *mcpSession
}

// acquire takes the lock, or gives up when ctx ends.
func (c *mcpConn) acquire(ctx context.Context) error {
	select {
	case c.lock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *mcpConn) release() { <-c.lock }

// mcpSession is one run of a server.
type mcpSession struct {
	name      string
	sess      *mcp.ClientSession
	cmd       *exec.Cmd
	tree      *procTree     // what a stdio server started
	dead      chan struct{} // closed when the session has ended
	logPath   string
	logOffset int64

	toolsMu sync.Mutex
	tools   map[string]*mcp.Tool // nil until listed
}

func (s *mcpSession) isDead() bool {
	select {
	case <-s.dead:
		return true
	default:
		return false
	}
}

// close ends the session and, for a stdio server, anything it started.
func (s *mcpSession) close() error {
	err := s.sess.Close()
	if s.tree != nil {
		s.tree.finish()
	}
	<-s.dead
	return err
}

// MCPLogPath is the file a server's stderr goes to, mcp-NAME.log under the
// log folder ("" when the log folder is not yet made).
func (r *Runner) MCPLogPath(server string) string {
	r.logDirMu.Lock()
	defer r.logDirMu.Unlock()
	if r.logDir == "" {
		return ""
	}
	return filepath.Join(r.logDir, "mcp-"+safeFileName(server)+".log")
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

func safeFileName(s string) string {
	s = unsafeFileChars.ReplaceAllString(s, "_")
	if s == "" || strings.Trim(s, ".") == "" {
		s = "_" + s
	}
	return s
}

// openLog opens the server's log for appending, making the log folder
// first if needed.
func (r *Runner) openLog(server string) (*os.File, error) {
	r.logDirMu.Lock()
	if r.logDir == "" {
		dir, err := os.MkdirTemp("", "skillet-logs-")
		if err != nil {
			r.logDirMu.Unlock()
			return nil, fmt.Errorf("make log folder: %w", err)
		}
		r.logDir = dir
	}
	dir := r.logDir
	r.logDirMu.Unlock()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make log folder: %w", err)
	}
	path := r.MCPLogPath(server)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	return f, nil
}

// logTail returns the end of what a session wrote to its log.
func logTail(path string, from int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	start := max(from, fi.Size()-mcpLogTail)
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(f, mcpLogTail))
	return strings.TrimSpace(trimLeadingPartial(string(b)))
}

// withLog adds the end of the session's log to an error message.
func withLog(msg, path string, from int64) string {
	if path == "" {
		return msg
	}
	tail := logTail(path, from)
	if tail == "" {
		return msg + " (its log " + path + " is empty)"
	}
	return msg + "\nend of its log (" + path + "):\n" + tail
}

// withLog adds the end of a stdio server's log to a message; an HTTP
// server has no stderr to show.
func (s *mcpSession) withLog(msg string) string {
	if s.cmd == nil {
		return msg
	}
	return withLog(msg, s.logPath, s.logOffset)
}

// session returns a live session of the named server, starting it when it
// is not running or has died.
func (r *Runner) session(ctx context.Context, server string) (*mcpSession, error) {
	cfg, ok := r.opts.MCPServers[server]
	if !ok {
		return nil, fmt.Errorf("MCP server %q is not configured (add [mcp.servers.%s] to skillet.toml)", server, server)
	}
	r.mcpMu.Lock()
	if r.mcpClosed {
		r.mcpMu.Unlock()
		return nil, fmt.Errorf("MCP server %q: the tool runner is closed", server)
	}
	c := r.mcpConns[server]
	if c == nil {
		c = &mcpConn{name: server, lock: make(chan struct{}, 1)}
		r.mcpConns[server] = c
	}
	r.mcpMu.Unlock()

	if err := c.acquire(ctx); err != nil {
		return nil, fmt.Errorf("MCP server %q: cancelled while it was starting", server)
	}
	defer c.release()
	if c.live != nil && !c.live.isDead() {
		return c.live, nil
	}
	r.mcpMu.Lock()
	closed := r.mcpClosed
	r.mcpMu.Unlock()
	if closed {
		return nil, fmt.Errorf("MCP server %q: the tool runner is closed", server)
	}
	if c.live != nil {
		_ = c.live.close()
		c.live = nil
	}
	s, err := r.startMCP(ctx, server, cfg)
	if err != nil {
		return nil, err
	}
	c.live = s
	return s, nil
}

// startMCP starts a server and completes the MCP handshake.
func (r *Runner) startMCP(ctx context.Context, name string, cfg MCPServer) (*mcpSession, error) {
	if (cfg.Command == "") == (cfg.URL == "") {
		return nil, fmt.Errorf("MCP server %q: set either command or url in [mcp.servers.%s]", name, name)
	}
	logf, err := r.openLog(name)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: %w", name, err)
	}
	defer logf.Close()
	what := cfg.URL
	if cfg.Command != "" {
		what = strings.Join(append([]string{cfg.Command}, cfg.Args...), " ")
	}
	fmt.Fprintf(logf, "--- %s skillet: starting MCP server %q: %s\n", time.Now().Format(time.RFC3339), name, what)
	s := &mcpSession{name: name, dead: make(chan struct{}), logPath: logf.Name()}
	if fi, err := logf.Stat(); err == nil {
		s.logOffset = fi.Size()
	}

	var transport mcp.Transport
	if cfg.URL != "" {
		transport = &mcp.StreamableClientTransport{Endpoint: cfg.URL}
	} else {
		base := r.baseEnv()
		env := r.serverEnv(cfg, base)
		prog := cfg.Command
		if !strings.ContainsRune(prog, '/') {
			if prog, err = lookPath(prog, envValue(env, "PATH")); err != nil {
				fmt.Fprintf(logf, "skillet: %v\n", err)
				return nil, fmt.Errorf("MCP server %q failed to start: %v", name, err)
			}
		}
		cmd := exec.Command(prog, cfg.Args...)
		s.tree = newProcTree(serverPoll)
		cmd.Env = append(env, s.tree.env())
		cmd.Stderr = logf
		setProcessGroup(cmd)
		s.cmd = cmd
		transport = &mcp.CommandTransport{Command: cmd, TerminateDuration: mcpTerminate}
	}

	cctx, cancel := context.WithTimeout(ctx, r.opts.DefaultTimeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "skillet", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			s.toolsMu.Lock()
			s.tools = nil
			s.toolsMu.Unlock()
		},
	})
	sess, err := client.Connect(cctx, transport, nil)
	if s.cmd != nil {
		s.tree.started(s.cmd)
	}
	if err != nil {
		if s.cmd != nil {
			s.tree.kill(true)
			s.tree.finish()
		}
		msg := fmt.Sprintf("MCP server %q failed to start: %v", name, err)
		if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			msg = fmt.Sprintf("MCP server %q did not answer within %s", name, r.opts.DefaultTimeout)
		}
		if s.cmd != nil {
			msg = withLog(msg, s.logPath, s.logOffset)
		}
		fmt.Fprintf(logf, "skillet: start failed: %v\n", err)
		return nil, errors.New(msg)
	}
	s.sess = sess
	go func() {
		_ = sess.Wait()
		close(s.dead)
	}()
	return s, nil
}

// serverEnv is a stdio server's environment: the default variables of the
// base plus its configured ones, whose values may name base variables
// ($NAME). The model's key is not given even when named.
func (r *Runner) serverEnv(cfg MCPServer, base []string) []string {
	env := scrubEnv(base, nil, markerVar)
	lookup := func(k string) string {
		if slices.Contains(neverPassed, k) {
			return ""
		}
		return envValue(base, k)
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		if k == "" || k == markerVar || slices.Contains(neverPassed, k) {
			continue
		}
		env = append(env, k+"="+os.Expand(cfg.Env[k], lookup))
	}
	return env
}

// MCPTool starts the server if needed and returns the definition of one of
// its tools, from the server's tool list: name, description and input
// schema (as Parameters), Kind mcp. MCP tools have no version (0) and no
// file.
func (r *Runner) MCPTool(ctx context.Context, server, tool string) (*skills.ToolDef, error) {
	s, err := r.session(ctx, server)
	if err != nil {
		return nil, err
	}
	t, err := s.tool(ctx, tool)
	if err != nil {
		if s.isDead() {
			return nil, errors.New(s.withLog(fmt.Sprintf("MCP server %q stopped", server)))
		}
		return nil, fmt.Errorf("MCP server %q: %w", server, err)
	}
	params := json.RawMessage(`{"type":"object"}`)
	if t.InputSchema != nil {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("MCP server %q: tool %q: input schema: %w", server, tool, err)
		}
		params = b
	}
	return &skills.ToolDef{
		Name:        t.Name,
		Description: t.Description,
		Parameters:  params,
		Kind:        skills.KindMCP,
		Server:      server,
		RemoteTool:  t.Name,
	}, nil
}

// tool finds a tool in the server's list, listing again once when it is
// missing (the server may have added it since).
func (s *mcpSession) tool(ctx context.Context, name string) (*mcp.Tool, error) {
	for attempt := 0; attempt < 2; attempt++ {
		s.toolsMu.Lock()
		tools := s.tools
		s.toolsMu.Unlock()
		if tools != nil {
			if t, ok := tools[name]; ok {
				return t, nil
			}
			if attempt > 0 {
				break
			}
		}
		fresh := map[string]*mcp.Tool{}
		for t, err := range s.sess.Tools(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("list tools: %w", err)
			}
			fresh[t.Name] = t
		}
		s.toolsMu.Lock()
		s.tools = fresh
		s.toolsMu.Unlock()
		if t, ok := fresh[name]; ok {
			return t, nil
		}
		break
	}
	return nil, fmt.Errorf("no tool %q", name)
}

// runMCP calls a tool of an MCP server.
func (r *Runner) runMCP(ctx context.Context, call Call) Result {
	def := call.Def
	label := toolLabel(def)
	if def.Server == "" {
		return errorResult("tool %s: no MCP server named", label)
	}
	remote := def.RemoteTool
	if remote == "" {
		remote = def.Name
	}
	s, err := r.session(ctx, def.Server)
	if err != nil {
		return errorResult("tool %s: %v", label, err)
	}
	timeout := r.timeout(def)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := s.sess.CallTool(cctx, &mcp.CallToolParams{Name: remote, Arguments: argsOrEmpty(call.Args)})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return errorResult("tool %s: cancelled", label)
		case errors.Is(cctx.Err(), context.DeadlineExceeded):
			return errorResult("tool %s: timed out after %s", label, timeout)
		case s.diedDuring(err):
			return errorResult("%s", s.withLog(fmt.Sprintf("tool %s: MCP server %q stopped during the call (it starts again on the next call)", label, def.Server)))
		}
		return errorResult("tool %s: %v", label, err)
	}
	return Result{Content: CutOutput(mcpResultText(res), r.maxOutput(def)), IsError: res.IsError}
}

// diedDuring reports whether a call failed because the session ended.
func (s *mcpSession) diedDuring(err error) bool {
	if s.isDead() {
		return true
	}
	if !errors.Is(err, mcp.ErrConnectionClosed) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false
	}
	select {
	case <-s.dead:
		return true
	case <-time.After(mcpDeathGrace):
		return false
	}
}

// mcpResultText is what the model reads of an MCP result: the text parts
// joined, other parts summarized, and the structured content as JSON when
// there is no text.
func mcpResultText(res *mcp.CallToolResult) string {
	var parts []string
	hasText := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
			hasText = true
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[%s %s bytes]", orUnknown(c.MIMEType, "image"), groupDigits(len(c.Data))))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[%s %s bytes]", orUnknown(c.MIMEType, "audio"), groupDigits(len(c.Data))))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s %s]", c.URI, c.Name))
		case *mcp.EmbeddedResource:
			parts = append(parts, embeddedText(c))
			hasText = hasText || (c.Resource != nil && c.Resource.Text != "")
		case nil:
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	if !hasText && res.StructuredContent != nil {
		if js, err := toJSON(res.StructuredContent); err == nil {
			parts = append(parts, js)
		}
	}
	return strings.Join(parts, "\n")
}

func embeddedText(c *mcp.EmbeddedResource) string {
	r := c.Resource
	if r == nil {
		return "[empty resource]"
	}
	if r.Text != "" {
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource %s %s %s bytes]", r.URI, orUnknown(r.MIMEType, "binary"), groupDigits(len(r.Blob)))
}

func orUnknown(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// closeMCP stops every server; servers stop in parallel since each may take
// a moment to exit.
func (r *Runner) closeMCP() error {
	r.mcpMu.Lock()
	r.mcpClosed = true
	conns := make([]*mcpConn, 0, len(r.mcpConns))
	for _, c := range r.mcpConns {
		conns = append(conns, c)
	}
	r.mcpMu.Unlock()

	var wg sync.WaitGroup
	errs := make([]error, len(conns))
	for i, c := range conns {
		wg.Go(func() {
			_ = c.acquire(context.Background())
			defer c.release()
			if c.live == nil {
				return
			}
			wasDead := c.live.isDead()
			err := c.live.close()
			c.live = nil
			if err != nil && !wasDead && !isExitError(err) {
				errs[i] = fmt.Errorf("stop MCP server %q: %w", c.name, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// isExitError reports a server that exited with a status or a signal when
// asked to stop: that is the stop working, not failing.
func isExitError(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee)
}
