package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"skillet/skills"
)

// MCPState is where an MCP server stands in this session.
type MCPState string

// The states of an MCP server.
const (
	MCPNotStarted MCPState = "not started"
	MCPStarting   MCPState = "starting"
	MCPRunning    MCPState = "running"
	MCPFailed     MCPState = "failed"
	MCPStopped    MCPState = "stopped"
)

// Backoff between starts of a server that keeps failing: the first retry
// may come a second after a failure, each further one twice as late.
const (
	mcpBackoffFirst = time.Second
	mcpBackoffMax   = time.Minute
)

// ErrMCPUnavailable is wrapped by the errors of MCPTool and of MCP calls
// when the server could not be reached: it failed to start, stopped, or is
// waiting out its backoff. Its tools are worth offering again later.
var ErrMCPUnavailable = errors.New("MCP server unavailable")

// ErrNoMCPTool is wrapped by the error of MCPTool when the server is up
// and its tool list lacks the tool: offering it would only fail.
var ErrNoMCPTool = skills.ErrNoMCPTool

// mcpError is a message that also says which kind of failure it is.
type mcpError struct {
	msg  string
	kind error
}

func (e *mcpError) Error() string { return e.msg }
func (e *mcpError) Unwrap() error { return e.kind }

// MCPServerStatus describes one configured MCP server.
type MCPServerStatus struct {
	Name string `json:"name"`
	// Target is the server's command line or URL with its credentials
	// hidden, fit to show.
	Target string   `json:"target"`
	State  MCPState `json:"state"`
	// Why says what went wrong when the state is failed, and why a server
	// stopped when it did not stop with the session.
	Why string `json:"why,omitempty"`
	// Since is when the server entered its state; zero when not started.
	Since time.Time `json:"since,omitzero"`
	// NextTry is, for a failed server, when a call may start it again.
	NextTry time.Time `json:"next_try,omitzero"`
	// Launches counts the starts attempted in this session.
	Launches int `json:"launches"`
	// Tools are the names the server listed, once it has.
	Tools []string `json:"tools,omitempty"`
	// Log is this session's log of the server ("" before it started).
	Log string `json:"log,omitempty"`
	// Change counts the server's state changes: whoever reports states
	// reports one again only when Change moves.
	Change uint64 `json:"change"`
}

// connState is the state part of an mcpConn, guarded by its own lock so a
// status can be read while a start holds the start lock.
type connState struct {
	mu       sync.Mutex
	state    MCPState
	why      string
	since    time.Time
	nextTry  time.Time
	failures int // consecutive, reset by a call or listing that works
	// restartNow makes the next failure wait for nothing: it is the death
	// of a server that had been working, restarted at once the first time
	restartNow bool
	launches   int
	change     uint64
	tools      []string
	lastErr    string // the whole message of the last failure
	// settled and settledWhy are the last state other than starting, which
	// Change counts changes of.
	settled    MCPState
	settledWhy string
}

func backoff(failures int) time.Duration {
	d := mcpBackoffFirst << min(max(failures-1, 0), 16)
	return min(d, mcpBackoffMax)
}

// setState moves the server to a new state. A change of the settled state
// (running, failed and why, stopped) is noted in its log and counted once;
// starting is a passing state, logged by the start itself.
func (r *Runner) setState(c *mcpConn, st MCPState, why string) {
	now := r.now()
	c.st.mu.Lock()
	c.st.state, c.st.why, c.st.since = st, why, now
	c.st.nextTry = time.Time{}
	switch st {
	case MCPStarting:
		c.st.launches++
		c.st.mu.Unlock()
		return
	case MCPFailed:
		c.st.failures++
		c.st.nextTry = now.Add(backoff(c.st.failures))
		if c.st.restartNow {
			// a server that was working died: the next call starts it
			c.st.nextTry, c.st.restartNow = now, false
		}
	}
	changed := st != c.st.settled || why != c.st.settledWhy
	c.st.settled, c.st.settledWhy = st, why
	line := fmt.Sprintf("--- %s skillet: MCP server %q: %s", now.Format(time.RFC3339), c.name, st)
	if why != "" {
		line += ": " + why
	}
	if st == MCPFailed {
		if wait := c.st.nextTry.Sub(now); wait > 0 {
			line += fmt.Sprintf(" (not started again for %s)", wait)
		} else {
			line += " (started again at the next call)"
		}
	}
	if changed {
		c.st.change++
	}
	c.st.mu.Unlock()
	if changed {
		r.logLine(c, line)
	}
}

// worked notes that the server answered a listing or a call: a later
// failure backs off from the start again.
func (c *mcpConn) worked(tools []string) {
	c.st.mu.Lock()
	defer c.st.mu.Unlock()
	c.st.failures = 0
	if tools != nil {
		c.st.tools = tools
	}
}

// waitLeft is how long a failed server is not started again, and the
// message of its failure.
func (r *Runner) waitLeft(c *mcpConn) (time.Duration, string) {
	c.st.mu.Lock()
	defer c.st.mu.Unlock()
	if c.st.state != MCPFailed {
		return 0, ""
	}
	msg := c.st.lastErr
	if msg == "" {
		msg = fmt.Sprintf("MCP server %q %s", c.name, c.st.why)
	}
	return c.st.nextTry.Sub(r.now()), msg
}

// died records the unexpected end of a running server. The first death
// after the server worked is not waited out: a server killed in the middle
// of a call is started again for the next one. Only a server that keeps
// dying, or cannot start, backs off.
func (r *Runner) died(c *mcpConn, msg string) error {
	c.st.mu.Lock()
	c.st.restartNow = c.st.failures == 0
	c.st.mu.Unlock()
	return r.failed(c, msg)
}

// failed records a failure with its whole message and returns the error a
// caller gets.
func (r *Runner) failed(c *mcpConn, msg string) error {
	c.st.mu.Lock()
	c.st.lastErr = msg
	c.st.mu.Unlock()
	r.setState(c, MCPFailed, firstLine(msg))
	wait, _ := r.waitLeft(c)
	return unavailable(msg, wait)
}

// logLine appends one of the runner's own lines to a server's log.
func (r *Runner) logLine(c *mcpConn, line string) {
	f, err := r.openLog(c.name)
	if err != nil {
		return
	}
	defer f.Close()
	if c.rep != nil {
		line = c.rep.Replace(line)
	}
	fmt.Fprintln(f, line)
}

// conn returns the connection record of a configured server.
func (r *Runner) conn(server string) (*mcpConn, bool) {
	cfg, ok := r.opts.MCPServers[server]
	if !ok {
		return nil, false
	}
	r.mcpMu.Lock()
	defer r.mcpMu.Unlock()
	c := r.mcpConns[server]
	if c == nil {
		c = r.newConn(server, cfg)
		r.mcpConns[server] = c
	}
	return c, true
}

// MCPStatus describes one configured server; false when there is no such
// server in the config.
func (r *Runner) MCPStatus(server string) (MCPServerStatus, bool) {
	c, ok := r.conn(server)
	if !ok {
		return MCPServerStatus{}, false
	}
	c.st.mu.Lock()
	st := MCPServerStatus{
		Name: server, Target: c.what, State: c.st.state, Why: c.st.why, Since: c.st.since, NextTry: c.st.nextTry,
		Launches: c.st.launches, Tools: slices.Clone(c.st.tools), Change: c.st.change,
	}
	c.st.mu.Unlock()
	if st.Launches > 0 {
		st.Log = r.MCPLogPath(server)
	}
	return st, true
}

// MCPStatuses describes every configured server, sorted by name.
func (r *Runner) MCPStatuses() []MCPServerStatus {
	out := make([]MCPServerStatus, 0, len(r.opts.MCPServers))
	for name := range r.opts.MCPServers {
		if st, ok := r.MCPStatus(name); ok {
			out = append(out, st)
		}
	}
	slices.SortFunc(out, func(a, b MCPServerStatus) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// unavailable is the error of a server that failed and waits out its
// backoff.
func unavailable(msg string, wait time.Duration) error {
	return &mcpError{
		msg:  fmt.Sprintf("%s\n(not started again for %s)", msg, max(wait, 0).Round(100*time.Millisecond)),
		kind: ErrMCPUnavailable,
	}
}

// cancelled reports whether a start failed because its caller gave up.
func cancelled(ctx context.Context) bool { return ctx.Err() != nil }

// firstLine is the first line of an error message, for a status.
func firstLine(msg string) string {
	first, _, _ := strings.Cut(msg, "\n")
	return first
}
