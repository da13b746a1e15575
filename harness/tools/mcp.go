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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"skillet/skills"
)

// mcpTerminate is how long a stdio server may take to exit after its stdin
// closes before it is signalled.
const mcpTerminate = 2 * time.Second

// mcpDeathGrace is how long a failed call waits to learn whether the
// connection failed because the server died.
const mcpDeathGrace = time.Second

// serverPoll is trackPoll for an MCP server, which runs all session long.
const serverPoll = time.Second

// mcpConn is one configured server: at most one live session at a time, a
// lock that lets a single caller start it, and its state.
type mcpConn struct {
	name string
	cfg  MCPServer
	// lock is held (a value sent) while the session is checked or started;
	// a channel rather than a mutex so a cancelled caller stops waiting.
	lock chan struct{}
	live *mcpSession
	// rep hides the server's credentials (URL user info and query values,
	// secret-looking arguments, environment values) in its log and in
	// messages; what is its command line or URL so hidden.
	rep  *strings.Replacer
	what string
	st   connState
}

// newConn prepares a server's record: what to hide of its config.
func (r *Runner) newConn(name string, cfg MCPServer) *mcpConn {
	var sec secrets
	what := r.serverSecrets(cfg, &sec)
	return &mcpConn{name: name, cfg: cfg, lock: make(chan struct{}, 1), rep: sec.replacer(), what: what,
		st: connState{state: MCPNotStarted}}
}

// serverSecrets adds to sec what a server's config holds that must not be
// shown (its URL's credentials, secret-looking arguments, its environment
// values as given and as expanded), and returns its URL or command line
// with them hidden.
func (r *Runner) serverSecrets(cfg MCPServer, sec *secrets) string {
	what := cfg.URL
	if cfg.URL != "" {
		sec.addURL(cfg.URL)
		what = RedactURL(cfg.URL)
	}
	if cfg.Command != "" {
		what = strings.Join(append([]string{cfg.Command}, redactArgs(cfg.Args, sec)...), " ")
	}
	base := r.baseEnv()
	for _, v := range cfg.Env {
		sec.add(v)
		sec.add(os.Expand(v, func(k string) string { return envValue(base, k) }))
	}
	return what
}

// Redact hides in s the credentials of every configured MCP server, the
// way each server's own log and messages hide them: what a session
// records of tool results and warnings passes through it.
func (r *Runner) Redact(s string) string {
	r.redactOnce.Do(func() {
		var sec secrets
		for _, cfg := range r.opts.MCPServers {
			r.serverSecrets(cfg, &sec)
		}
		r.redactAll = sec.replacer()
	})
	return r.redactAll.Replace(s)
}

// redact hides the server's credentials in a message.
func (c *mcpConn) redact(msg string) string { return c.rep.Replace(msg) }

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
	conn      *mcpConn
	sess      *mcp.ClientSession
	cmd       *exec.Cmd
	tree      *procTree        // what a stdio server started
	stderr    *redactingWriter // a stdio server's stderr, on its way to the log
	logf      *os.File         // the log, open while the server runs
	closing   atomic.Bool      // set when the runner ends the session
	dead      chan struct{}    // closed when the session has ended
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
	s.closing.Store(true)
	err := s.sess.Close()
	if s.tree != nil {
		s.tree.finish()
	}
	<-s.dead
	s.closeLog()
	return err
}

// closeLog writes out what the server's stderr still holds and closes the
// log.
func (s *mcpSession) closeLog() {
	if s.stderr != nil {
		_ = s.stderr.Flush()
	}
	if s.logf != nil {
		_ = s.logf.Close()
	}
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
// is not running or has died, unless it is waiting out its backoff.
func (r *Runner) session(ctx context.Context, server string) (*mcpSession, error) {
	c, ok := r.conn(server)
	if !ok {
		return nil, fmt.Errorf("MCP server %q is not configured (add [mcp.servers.%s] to skillet.toml)", server, server)
	}
	if r.isClosed() {
		return nil, fmt.Errorf("MCP server %q: the tool runner is closed", server)
	}
	if err := c.acquire(ctx); err != nil {
		return nil, fmt.Errorf("MCP server %q: cancelled while it was starting", server)
	}
	defer c.release()
	if c.live != nil && !c.live.isDead() {
		return c.live, nil
	}
	if r.isClosed() {
		return nil, fmt.Errorf("MCP server %q: the tool runner is closed", server)
	}
	if c.live != nil {
		_ = c.live.close()
		c.live = nil
	}
	if wait, msg := r.waitLeft(c); wait > 0 {
		return nil, unavailable(msg, wait)
	}
	r.setState(c, MCPStarting, "")
	s, err := r.startMCP(ctx, c)
	if err != nil {
		msg := c.redact(err.Error())
		if cancelled(ctx) {
			r.setState(c, MCPStopped, "its start was cancelled")
			return nil, &mcpError{msg: msg, kind: ErrMCPUnavailable}
		}
		return nil, r.failed(c, msg)
	}
	r.setState(c, MCPRunning, "")
	c.live = s
	return s, nil
}

func (r *Runner) isClosed() bool {
	r.mcpMu.Lock()
	defer r.mcpMu.Unlock()
	return r.mcpClosed
}

// startMCP starts a server and completes the MCP handshake.
func (r *Runner) startMCP(ctx context.Context, c *mcpConn) (*mcpSession, error) {
	name, cfg := c.name, c.cfg
	if (cfg.Command == "") == (cfg.URL == "") {
		return nil, fmt.Errorf("MCP server %q: set either command or url in [mcp.servers.%s]", name, name)
	}
	logf, err := r.openLog(name)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: %w", name, err)
	}
	fmt.Fprintf(logf, "--- %s skillet: starting MCP server %q: %s\n", r.now().Format(time.RFC3339), name, c.what)
	s := &mcpSession{conn: c, dead: make(chan struct{}), logPath: logf.Name(), logf: logf}
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
				logf.Close()
				return nil, fmt.Errorf("MCP server %q failed to start: %v", name, err)
			}
		}
		cmd := exec.Command(prog, cfg.Args...)
		s.tree = newProcTree(serverPoll)
		cmd.Env = append(env, s.tree.env())
		s.stderr = &redactingWriter{w: logf, rep: c.rep}
		cmd.Stderr = s.stderr
		// A daemon of the server holding its stderr must not hold up its
		// stop.
		cmd.WaitDelay = waitDelay
		setProcessGroup(cmd)
		s.tree.contained = contain(cmd)
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
		s.closeLog()
		msg := fmt.Sprintf("MCP server %q failed to start: %v", name, err)
		if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			msg = fmt.Sprintf("MCP server %q did not answer within %s", name, r.opts.DefaultTimeout)
		}
		r.logLine(c, "skillet: start failed: "+err.Error())
		if s.cmd != nil {
			msg = withLog(msg, s.logPath, s.logOffset)
		}
		return nil, errors.New(msg)
	}
	s.sess = sess
	go func() {
		_ = sess.Wait()
		// The state changes before the session counts as dead, so a caller
		// that finds it dead also finds the backoff.
		if !s.closing.Load() {
			msg := fmt.Sprintf("MCP server %q stopped unexpectedly", c.name)
			if s.cmd != nil {
				if last := lastLine(logTail(s.logPath, s.logOffset)); last != "" {
					msg += ": " + last
				}
			}
			_ = r.died(c, msg)
		}
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
// file. Its error wraps ErrNoMCPTool when the server answered and does not
// have the tool, ErrMCPUnavailable when the server could not be reached.
func (r *Runner) MCPTool(ctx context.Context, server, tool string) (*skills.ToolDef, error) {
	s, err := r.session(ctx, server)
	if err != nil {
		return nil, err
	}
	c := s.conn
	t, names, err := s.tool(ctx, tool)
	if names != nil {
		c.worked(names)
	}
	switch {
	case err == nil:
	case names != nil:
		has := "no tools"
		if len(names) > 0 {
			has = "these tools: " + strings.Join(names, ", ")
		}
		return nil, &mcpError{msg: fmt.Sprintf("MCP server %q has no tool %q; it has %s", server, tool, has), kind: ErrNoMCPTool}
	case s.isDead():
		return nil, &mcpError{msg: c.redact(s.withLog(fmt.Sprintf("MCP server %q stopped", server))), kind: ErrMCPUnavailable}
	default:
		return nil, &mcpError{msg: c.redact(fmt.Sprintf("MCP server %q: %v", server, err)), kind: ErrMCPUnavailable}
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
// missing (the server may have added it since). names is the sorted list
// the server gave when it was asked, nil when it was not or the listing
// failed.
func (s *mcpSession) tool(ctx context.Context, name string) (t *mcp.Tool, names []string, err error) {
	s.toolsMu.Lock()
	tools := s.tools
	s.toolsMu.Unlock()
	if t, ok := tools[name]; ok {
		return t, nil, nil
	}
	fresh := map[string]*mcp.Tool{}
	for t, err := range s.sess.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, fmt.Errorf("list tools: %w", err)
		}
		fresh[t.Name] = t
	}
	s.toolsMu.Lock()
	s.tools = fresh
	s.toolsMu.Unlock()
	names = slices.Sorted(maps.Keys(fresh))
	if names == nil {
		names = []string{}
	}
	if t, ok := fresh[name]; ok {
		return t, names, nil
	}
	return nil, names, fmt.Errorf("no tool %q", name)
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
	c := s.conn
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
			return errorResult("%s", c.redact(s.withLog(fmt.Sprintf("tool %s: MCP server %q stopped during the call (a later call starts it again)", label, def.Server))))
		}
		return errorResult("%s", c.redact(fmt.Sprintf("tool %s: %v", label, err)))
	}
	c.worked(nil)
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
			if !wasDead {
				r.setState(c, MCPStopped, "")
			}
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
