package harness

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"skillet/harness/agenttools"
	"skillet/harness/config"
	"skillet/harness/event"
	"skillet/harness/sandbox"
	"skillet/harness/tools"
	wspace "skillet/harness/workspace"
)

// maxDiff caps the diff a tool result carries for the transcript; the
// journal keeps every changed file whole regardless.
const maxDiff = 16 << 10

// maxKeptFile is the size past which a changed file is journaled by hash
// and size only.
const maxKeptFile = 8 << 20

// agentTools is a session's workspace, sandbox and the profile's own
// tools. Set by start or reopen under Session.mu and never changed after,
// except tree, which run guards.
type agentTools struct {
	ws   *wspace.Workspace
	info event.WorkspaceInfo
	// box runs shell commands; nil when no sandbox could start and
	// commands are refused, with boxErr saying why.
	box    *sandbox.Sandbox
	boxErr string
	env    []string
	limits sandbox.Limits
	// skillDirs are the skills' folders, read-only to every tool.
	skillDirs []string
	// run serializes agent tool calls, so each call's scan sees its own
	// changes alone; it guards tree, the workspace as the last scan saw
	// it, and seen, the content of files by hash that diffs start from.
	run      sync.Mutex
	tree     wspace.Tree
	seen     map[string][]byte
	seenSize int
}

// maxSeen bounds the file contents kept to diff against.
const maxSeen = 64 << 20

var (
	probeOnce sync.Once
	probedBox *sandbox.Sandbox
	probeErr  error
)

// confinedSandbox probes for a sandbox once per process.
func confinedSandbox() (*sandbox.Sandbox, error) {
	probeOnce.Do(func() { probedBox, probeErr = sandbox.New(sandbox.Options{}) })
	return probedBox, probeErr
}

// sandboxLimits converts the [sandbox] table.
func sandboxLimits(c config.Sandbox) sandbox.Limits {
	return sandbox.Limits{CPU: c.CPU.Duration, Wall: c.Wall.Duration, Memory: c.Memory, Processes: c.Processes, FileSize: c.FileSize, Output: c.Output}
}

// openAgent makes the workspace of a session whose folder is dir, or
// finds again the one a journal recorded (prev). It runs without the
// session's lock: a copy of a large folder takes a while.
func (s *Session) openAgent(dir string, prev *event.WorkspaceInfo) (*agentTools, []string, error) {
	cfg := s.opts.Config
	a := &agentTools{limits: sandboxLimits(cfg.Sandbox), seen: map[string][]byte{}}
	var notices []string
	var err error
	switch {
	case prev != nil && prev.Root != "":
		a.ws, err = wspace.InPlace(prev.Root)
		if err != nil {
			return nil, nil, fmt.Errorf("workspace of the session: %w", err)
		}
		a.info = *prev
	case cfg.WorkspaceInPlace != "":
		a.ws, err = wspace.InPlace(cfg.WorkspaceInPlace)
		if err != nil {
			return nil, nil, fmt.Errorf("workspace %s: %w", cfg.WorkspaceInPlace, err)
		}
		a.info = event.WorkspaceInfo{Root: a.ws.Root(), Mode: event.WorkspaceInPlace, Source: a.ws.Root()}
		notices = append(notices, fmt.Sprintf("the agent tools work IN PLACE on %s: commands and edits change it for real", a.ws.Root()))
	case cfg.Workspace != "":
		ws, stats, err := wspace.CopyOf(cfg.Workspace, filepath.Join(dir, "workspace"))
		if err != nil {
			return nil, nil, fmt.Errorf("workspace from %s: %w", cfg.Workspace, err)
		}
		a.ws = ws
		a.info = event.WorkspaceInfo{Root: ws.Root(), Mode: event.WorkspaceCopy, Source: cfg.Workspace, Files: stats.Files, Bytes: stats.Bytes}
		notices = append(notices, fmt.Sprintf("workspace: a copy of %s at %s (%s)", cfg.Workspace, ws.Root(), stats))
	default:
		a.ws, err = wspace.Scratch(filepath.Join(dir, "workspace"))
		if err != nil {
			return nil, nil, fmt.Errorf("workspace: %w", err)
		}
		a.info = event.WorkspaceInfo{Root: a.ws.Root(), Mode: event.WorkspaceScratch}
	}
	for _, sk := range s.opts.Catalog.All() {
		if sk.Dir != "" {
			a.skillDirs = append(a.skillDirs, sk.Dir)
		}
	}
	a.ws.AddReadOnly(a.skillDirs...)
	if a.tree, err = a.ws.Scan(nil); err != nil {
		return nil, nil, fmt.Errorf("workspace %s: %w", a.ws.Root(), err)
	}
	if a.info.Files == 0 {
		for _, f := range a.tree {
			a.info.Files++
			a.info.Bytes += f.Size
		}
	}
	a.env = agentEnv()
	a.info.Network = cfg.Sandbox.Network
	if cfg.Sandbox.Disabled {
		a.box = sandbox.Unconfined(sandbox.Options{})
		a.info.Sandbox = "none (--no-sandbox): " + a.box.Describe()
		notices = append(notices, "commands run UNCONFINED (--no-sandbox): they can read and change anything this user can")
	} else if box, err := confinedSandbox(); err != nil {
		a.boxErr = fmt.Sprintf("no sandbox can start here, so shell commands are refused: %v; run with --no-sandbox to allow them unconfined", err)
		notices = append(notices, a.boxErr)
	} else {
		a.box = box
		a.info.Sandbox = box.Describe()
	}
	return a, notices, nil
}

// agentEnv is the environment of agent shell commands: the allowlisted
// variables command tools get, with Python kept from writing caches into
// the read-only skill folders.
func agentEnv() []string {
	env := tools.AllowedEnv(os.Environ())
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + sandboxPath(v)
		}
	}
	return append(env, "PYTHONDONTWRITEBYTECODE=1")
}

// sandboxPath keeps the entries of PATH a sandboxed command can see: the
// system folders (a home folder's shims and version managers are not
// there), or the sandbox's default when none is left.
func sandboxPath(path string) string {
	var keep []string
	for _, d := range filepath.SplitList(path) {
		for _, sys := range []string{"/usr/", "/bin", "/sbin", "/opt/"} {
			if strings.HasPrefix(d, sys) {
				keep = append(keep, d)
				break
			}
		}
	}
	if len(keep) == 0 {
		return sandbox.DefaultPath
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// Resolve and Root make the workspace the file tools' resolver.
type wsResolver struct{ ws *wspace.Workspace }

func (r wsResolver) Resolve(p string, write bool) (string, error) { return r.ws.Resolve(p, write) }
func (r wsResolver) Root() string                                 { return r.ws.Root() }

// boxShell runs the file tools' shell commands in the sandbox.
type boxShell struct{ a *agentTools }

// Run runs one command confined, in the workspace, with the skill
// folders read-only and the allowlisted environment.
func (b boxShell) Run(ctx context.Context, req agenttools.ShellRequest) (agenttools.ShellResult, error) {
	lim := b.a.limits
	if req.Timeout > 0 && (lim.Wall == 0 || req.Timeout < lim.Wall) {
		lim.Wall = req.Timeout
	}
	dir := req.Dir
	if dir == "" {
		dir = b.a.ws.Root()
	}
	spec := sandbox.Spec{Command: req.Command, Dir: dir, Workspace: b.a.ws.Root(), ReadOnly: b.a.skillDirs, Env: b.a.env,
		Network: b.a.info.Network, Limits: lim}
	if req.Stdin != "" {
		spec.Stdin = strings.NewReader(req.Stdin)
	}
	r, err := b.a.box.Run(ctx, spec)
	if err != nil {
		return agenttools.ShellResult{}, err
	}
	return agenttools.ShellResult{Stdout: string(r.Stdout), Stderr: string(r.Stderr), Output: string(r.Output), ExitCode: r.ExitCode, Signal: r.Signal,
		Duration: r.Duration, Truncated: r.Truncated, OutputBytes: r.OutputBytes, Limit: r.Limit}, nil
}

// env is what one call of an agent tool works with.
func (a *agentTools) toolEnv() agenttools.Env {
	env := agenttools.Env{Files: wsResolver{a.ws}, SkillDirs: a.skillDirs}
	if a.box != nil {
		env.Shell = boxShell{a}
	} else {
		env.ShellUnavailable = a.boxErr
	}
	return env
}

// call runs one agent tool call and finds what it changed in the
// workspace: the result, the changes with their content, and their diff.
func (a *agentTools) call(ctx context.Context, def agenttools.Def, args []byte) (agenttools.Result, []event.FileChange, string) {
	a.run.Lock()
	defer a.run.Unlock()
	if t := agenttools.TargetOf(def, args); t.Path != "" && !def.ReadOnly {
		// what the file was, for the diff of a write or an edit
		if p, err := a.ws.Resolve(t.Path, true); err == nil {
			if data, err := os.ReadFile(p); err == nil {
				a.keep(data)
			}
		}
	}
	res := agenttools.Run(ctx, a.toolEnv(), def, args)
	if def.ReadOnly {
		return res, nil, ""
	}
	after, err := a.ws.Scan(a.tree)
	if err != nil {
		res.Content += fmt.Sprintf("\n(skillet: the workspace could not be read after the call: %v)", err)
		return res, nil, ""
	}
	changes := wspace.Diff(a.tree, after)
	a.tree = after
	return res, a.fileChanges(changes), a.diffText(changes)
}

// fileChanges reads what each change left, for the journal.
func (a *agentTools) fileChanges(changes []wspace.Change) []event.FileChange {
	out := make([]event.FileChange, 0, len(changes))
	for _, c := range changes {
		fc := event.FileChange{Path: c.Path, Op: c.Op, Hash: c.After.Hash, Size: c.After.Size, Mode: uint32(c.After.Mode), Link: c.After.Link}
		if c.Op != event.FileDelete && c.After.Link == "" && !c.After.Mode.IsDir() {
			switch data, err := os.ReadFile(filepath.Join(a.ws.Root(), filepath.FromSlash(c.Path))); {
			case err != nil || c.After.Size > maxKeptFile:
				fc.Omitted = true
			case utf8.Valid(data):
				fc.Content = string(data)
				a.keep(data)
			default:
				fc.Content, fc.Base64 = base64.StdEncoding.EncodeToString(data), true
			}
		}
		out = append(out, fc)
	}
	return out
}

// diffText is the unified diff of changes, cut at maxDiff. The content
// before a change comes from the previous version's file in the journal's
// store when known; a change made by a command is diffed against what the
// last scan kept.
func (a *agentTools) diffText(changes []wspace.Change) string {
	var b strings.Builder
	for _, c := range changes {
		if c.After.Mode.IsDir() || c.Before.Mode.IsDir() {
			continue // a folder's files say what changed
		}
		if b.Len() > maxDiff {
			fmt.Fprintf(&b, "… and %d more changed files\n", len(changes))
			break
		}
		before := a.before(c)
		var after []byte
		if c.Op != event.FileDelete {
			after, _ = os.ReadFile(filepath.Join(a.ws.Root(), filepath.FromSlash(c.Path)))
		}
		b.WriteString(wspace.UnifiedDiff(c.Path, before, after))
	}
	out := b.String()
	if len(out) > maxDiff {
		out = tools.CutOutput(out, maxDiff)
	}
	return out
}

// keep remembers a file's content by hash, for later diffs.
func (a *agentTools) keep(data []byte) {
	if a.seenSize+len(data) > maxSeen {
		return
	}
	h := contentHash(data)
	if _, ok := a.seen[h]; !ok {
		a.seen[h] = data
		a.seenSize += len(data)
	}
}

// before is a changed file's content before the change: kept from an
// earlier call, or, in a copied workspace, the source's file when it
// still has that content.
func (a *agentTools) before(c wspace.Change) []byte {
	if c.Op == event.FileCreate || c.Before.Hash == "" {
		return nil
	}
	if b, ok := a.seen[c.Before.Hash]; ok {
		return b
	}
	if a.info.Mode == event.WorkspaceCopy {
		if data, err := os.ReadFile(filepath.Join(a.info.Source, filepath.FromSlash(c.Path))); err == nil && contentHash(data) == c.Before.Hash {
			return data
		}
	}
	return nil
}

// contentHash names content as the workspace's scans do.
func contentHash(data []byte) string { return wspace.HashBytes(data) }

// elapsedMS is d in whole milliseconds, at least 0.
func elapsedMS(d time.Duration) int64 { return max(d.Milliseconds(), 0) }

// AgentReplay is a recorded call of an agent tool, as a replay serves it.
type AgentReplay struct {
	Content string
	IsError bool
	Shell   *event.ShellRun
	Changes []event.FileChange
}

// replay serves a recorded call: its file changes are made again in the
// workspace, then the workspace is scanned as after a real call.
func (a *agentTools) replay(rec AgentReplay) (agenttools.Result, []event.FileChange, string, []string) {
	a.run.Lock()
	defer a.run.Unlock()
	res := agenttools.Result{Content: rec.Content, IsError: rec.IsError}
	if sh := rec.Shell; sh != nil {
		res.Shell = &agenttools.ShellRun{Command: sh.Command, Dir: filepath.Join(a.ws.Root(), sh.Dir), ExitCode: sh.ExitCode, Signal: sh.Signal,
			Duration: time.Duration(sh.DurationMS) * time.Millisecond, Output: sh.Output, Limit: sh.Limit}
	}
	byPath := map[string]event.FileChange{}
	for _, c := range rec.Changes {
		byPath[c.Path] = c
	}
	var rep wspace.Report
	if err := wspace.WriteChanges(a.ws.Root(), byPath, &rep); err != nil {
		rep.Warned = append(rep.Warned, err.Error())
	}
	after, err := a.ws.Scan(a.tree)
	if err != nil {
		return res, nil, "", append(rep.Warned, err.Error())
	}
	changes := wspace.Diff(a.tree, after)
	a.tree = after
	return res, a.fileChanges(changes), a.diffText(changes), rep.Warned
}
