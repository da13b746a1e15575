package tools

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// mcpLogTail is how much of a dead server's log an error carries.
const mcpLogTail = 2 << 10

// keepRunLogs is how long the log folders of earlier runs are kept.
const keepRunLogs = 7 * 24 * time.Hour

// runLogPrefix starts the name of each runner's own log folder.
const runLogPrefix = "run-"

// MCPLogPath is the file a server's stderr goes to in this runner's own log
// folder, so it holds this session's log only: mcp-NAME.log ("" before the
// first server started).
func (r *Runner) MCPLogPath(server string) string {
	r.logDirMu.Lock()
	defer r.logDirMu.Unlock()
	if r.runLogDir == "" {
		return ""
	}
	return filepath.Join(r.runLogDir, "mcp-"+safeFileName(server)+".log")
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

func safeFileName(s string) string {
	s = unsafeFileChars.ReplaceAllString(s, "_")
	if s == "" || strings.Trim(s, ".") == "" {
		s = "_" + s
	}
	return s
}

// logFolder makes, on first use, this runner's own folder under the log
// folder (mode 0700): logs may hold what a server prints about its users'
// data. A log folder that cannot be used (another
// user's, in a shared temporary folder) gives way to a fresh temporary one.
func (r *Runner) logFolder() (string, error) {
	r.logDirMu.Lock()
	defer r.logDirMu.Unlock()
	if r.runLogDir != "" {
		return r.runLogDir, nil
	}
	pattern := runLogPrefix + time.Now().UTC().Format("20060102T150405") + "-"
	var dir string
	var err error
	if r.logDir != "" {
		// An existing folder keeps its mode: it may be shared, and the
		// run's own folder inside it is 0700 anyway.
		if err = os.MkdirAll(r.logDir, 0o700); err == nil {
			dir, err = os.MkdirTemp(r.logDir, pattern)
		}
		if err == nil {
			pruneLogs(r.logDir)
		}
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "skillet-logs-"); err != nil {
			return "", fmt.Errorf("make log folder: %w", err)
		}
	}
	r.runLogDir = dir
	return dir, nil
}

// pruneLogs removes the log folders of runs older than keepRunLogs and
// closes logs written by earlier versions to their owner.
func pruneLogs(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		fi, err := e.Info()
		if err != nil {
			continue
		}
		switch {
		case e.IsDir() && strings.HasPrefix(name, runLogPrefix) && !touchedSince(filepath.Join(dir, name), fi.ModTime()):
			_ = os.RemoveAll(filepath.Join(dir, name))
		case !e.IsDir() && strings.HasPrefix(name, "mcp-") && strings.HasSuffix(name, ".log"):
			_ = os.Chmod(filepath.Join(dir, name), 0o600)
		}
	}
}

// touchedSince reports whether a run's log folder or a log in it was
// written within keepRunLogs: a session may run for longer than that.
func touchedSince(dir string, dirTime time.Time) bool {
	if time.Since(dirTime) <= keepRunLogs {
		return true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) <= keepRunLogs {
			return true
		}
	}
	return false
}

// openLog opens the server's log for appending (mode 0600).
func (r *Runner) openLog(server string) (*os.File, error) {
	if _, err := r.logFolder(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(r.MCPLogPath(server), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	return f, nil
}

// MCPLog returns the end of what a server wrote to its log in this
// session (at most limit bytes, whole lines; 0 or less means
// DefaultMaxOutput), "" when there is none.
func (r *Runner) MCPLog(server string, limit int) (string, error) {
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	path := r.MCPLogPath(server)
	if path == "" {
		return "", nil
	}
	text, cut, err := readTail(path, 0, int64(limit))
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read log of MCP server %q: %w", server, err)
	}
	if cut {
		if _, rest, ok := strings.Cut(text, "\n"); ok {
			text = rest
		}
	}
	return text, nil
}

// logTail returns the end of what a session wrote to its log from offset
// from on.
func logTail(path string, from int64) string {
	text, _, err := readTail(path, from, mcpLogTail)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(trimLeadingPartial(text))
}

// readTail reads at most limit bytes at the end of a file, from offset
// from on; cut says whether it began after from, inside what was written.
func readTail(path string, from, limit int64) (text string, cut bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false, err
	}
	start := max(from, fi.Size()-limit)
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return "", false, err
	}
	b, err := io.ReadAll(io.LimitReader(f, limit))
	return string(b), start > from, err
}

// lastLine is the last non-empty line of a log tail.
func lastLine(tail string) string {
	tail = strings.TrimSpace(tail)
	if i := strings.LastIndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	return strings.TrimSpace(tail)
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
