// Package sandbox runs one shell command at a time confined to a workspace.
//
// On Linux the confinement is bubblewrap (bwrap): new user, PID, network,
// IPC, UTS and cgroup namespaces, a root made of read-only binds of the
// system folders, the workspace bound read-write at its real path, skill
// folders bound read-only at theirs, a private tmpfs /tmp and home, a
// private /dev and a fresh /proc. Nothing else of the machine is mounted.
// Elsewhere New reports that no sandbox can start; Unconfined runs commands
// with the same environment, limits and process-tree kill but no
// confinement (the --no-sandbox mode).
//
// The caller passes the exact environment. The host's PATH often points
// into the user's home (pyenv shims, nvm, ~/.cargo/bin), which is not
// visible inside; DefaultPath is a PATH that finds /usr/bin/python3, node
// and git in the sandbox.
package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultPath is a PATH that finds the system's tools inside the sandbox.
const DefaultPath = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

// DefaultHome is where HOME points inside the sandbox when Spec.Env has no
// HOME: an empty private tmpfs, so git, npm and pip can write their caches.
const DefaultHome = "/home/sandbox"

// Limits bound one command; zero fields take the defaults (DefaultLimits()).
type Limits struct {
	// CPU is the CPU time of each process (RLIMIT_CPU). The soft limit sends
	// SIGXCPU, the hard limit one second later SIGKILL. Default 60s.
	CPU time.Duration
	// Wall is the wall-clock time of the whole command; when it passes, the
	// whole process tree is killed. Default 120s.
	Wall time.Duration
	// Memory is the data size of each process in bytes (RLIMIT_DATA).
	// RLIMIT_DATA counts private writable mappings only, so node/V8 and
	// WebAssembly, which reserve tens of GiB of PROT_NONE address space,
	// run; RLIMIT_AS would kill them at start. An allocation past it fails
	// (MemoryError, ENOMEM) instead of summoning the OOM killer. Default 2 GiB.
	Memory int64
	// Processes is the number of processes and threads of the command's
	// tree. It is enforced by a pids cgroup when one is writable; otherwise
	// by RLIMIT_NPROC inside the user namespace, which binds only when
	// Skillet does not run as root (the kernel exempts uid 0, and the
	// sandbox's uid maps to the caller's). Describe says which. Default 256.
	Processes int
	// FileSize is the largest file a process may write (RLIMIT_FSIZE).
	// Default 512 MiB.
	FileSize int64
	// Output is the number of bytes of output kept, for stdout, stderr and
	// the interleaved stream each; the rest is read, counted and discarded.
	// Past 64 × Output in all the command is killed. Default 1 MiB.
	Output int
}

// DefaultLimits returns the limits a zero Limits stands for.
func DefaultLimits() Limits {
	return Limits{
		CPU:       60 * time.Second,
		Wall:      120 * time.Second,
		Memory:    2 << 30,
		Processes: 256,
		FileSize:  512 << 20,
		Output:    1 << 20,
	}
}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.CPU <= 0 {
		l.CPU = d.CPU
	}
	if l.Wall <= 0 {
		l.Wall = d.Wall
	}
	if l.Memory <= 0 {
		l.Memory = d.Memory
	}
	if l.Processes <= 0 {
		l.Processes = d.Processes
	}
	if l.FileSize <= 0 {
		l.FileSize = d.FileSize
	}
	if l.Output <= 0 {
		l.Output = d.Output
	}
	return l
}

// killFactor times Limits.Output is the output that kills the command.
const killFactor = 64

// Spec is one command to run.
type Spec struct {
	// Command is run by `/bin/bash -c` (/bin/sh where there is no bash).
	Command string
	// Dir is the working folder; it must be inside Workspace. Empty means
	// Workspace; a relative Dir is taken from Workspace.
	Dir string
	// Workspace is the only read-write folder, bound at its real path.
	Workspace string
	// ReadOnly are extra folders bound read-only at their real paths (the
	// skill folders).
	ReadOnly []string
	// Env is the exact environment; nothing of Skillet's own is added. A
	// confined command without HOME gets HOME=DefaultHome. Pass PATH (see
	// DefaultPath).
	Env []string
	// Stdin feeds the command; nil means /dev/null.
	Stdin io.Reader
	// Network false gives the command a network namespace of its own with
	// nothing but its own loopback.
	Network bool
	// Limits bound the command; zero fields take the defaults.
	Limits Limits
}

// Result is what a command did. A command that fails, or is killed by a
// limit, is a Result, not an error.
type Result struct {
	Stdout, Stderr []byte // each capped at Limits.Output
	Output         []byte // stdout and stderr interleaved in arrival order, capped
	OutputBytes    int64  // total bytes written to stdout and stderr, kept or not
	Truncated      bool   // some output was discarded
	ExitCode       int    // -1 when killed by a signal
	Signal         string // e.g. "SIGKILL", "" when it exited
	Duration       time.Duration
	// Limit names the limit that ended the command ("wall time 120s", "CPU
	// time 60s", "output 64 MiB", "memory 2 GiB", "processes 256", "file
	// size 512 MiB"), or "cancelled" when the context ended it; "" if none.
	Limit string
}

// Options configure a Sandbox.
type Options struct {
	// Bwrap is the bubblewrap binary; "" finds /usr/bin/bwrap or bwrap on PATH.
	Bwrap string
	// Network is the default the UI shows in Describe; each Spec decides
	// for itself whether its command gets the network.
	Network bool
	// NoCgroup keeps the sandbox from using a cgroup even where one is
	// writable (the process limit then falls back to RLIMIT_NPROC).
	NoCgroup bool
}

// Sandbox runs commands. It is safe for concurrent use.
type Sandbox struct {
	opts     Options
	confined bool
	bwrap    string
	version  string // e.g. "bubblewrap 0.8.0"
	masks    []mask // /etc entries only their owner may read
	// tmpfsSize and tmpfsPerms say whether this bwrap takes --size and
	// --perms before --tmpfs; private /tmp and home are capped at
	// Limits.FileSize where it does.
	tmpfsSize, tmpfsPerms bool
	cg                    *cgroupRoot
	rootUID               bool // Skillet runs as uid 0
	seq                   atomic.Int64
}

// Confined reports whether commands run in the sandbox.
func (s *Sandbox) Confined() bool { return s.confined }

// Describe is one line for the UI's first screen.
func (s *Sandbox) Describe() string {
	net := "no network"
	if s.opts.Network {
		net = "network allowed"
	}
	procs := s.processMechanism()
	if !s.confined {
		return fmt.Sprintf("no sandbox (--no-sandbox): commands run unconfined, as Skillet's user, with its access to files and network; processes: %s", procs)
	}
	return fmt.Sprintf("%s: workspace rw, skills ro, system ro, private /tmp and home, %s; processes: %s", s.version, net, procs)
}

// processMechanism says how the process limit is enforced.
func (s *Sandbox) processMechanism() string {
	switch {
	case s.cg != nil:
		return "pids cgroup " + s.cg.version
	case s.confined && !s.rootUID:
		return "RLIMIT_NPROC"
	default:
		return "not limited (no writable pids cgroup)"
	}
}

// mask hides one /etc entry that only its owner may read. The sandbox's
// uid maps to the caller's, so a caller that is root would otherwise read
// /etc/shadow and the SSH host keys as their owner.
type mask struct {
	path string
	dir  bool
}

// prepared is a validated Spec with resolved paths.
type prepared struct {
	Spec
	lim       Limits
	workspace string
	dir       string
	readOnly  []string
	// aliases are read-only folders given by a path through a symbolic
	// link: [given, real]. The folder is bound at its real path, and the
	// given path is made a link to it, so a command can use either.
	aliases [][2]string
	env     []string
	home    string // HOME inside, "" when Env has none (unconfined)
}

// prepare validates spec and resolves its folders to real paths.
func (s *Sandbox) prepare(spec Spec) (*prepared, error) {
	p := &prepared{Spec: spec, lim: spec.Limits.withDefaults()}
	if strings.TrimSpace(spec.Command) == "" {
		return nil, errors.New("sandbox: empty command")
	}
	if strings.IndexByte(spec.Command, 0) >= 0 {
		return nil, errors.New("sandbox: command contains a NUL byte")
	}
	if spec.Workspace == "" {
		return nil, errors.New("sandbox: no workspace folder given")
	}
	ws, err := realDir(spec.Workspace)
	if err != nil {
		return nil, fmt.Errorf("sandbox: workspace: %w", err)
	}
	if ws == "/" {
		return nil, errors.New("sandbox: the workspace cannot be the root folder /")
	}
	p.workspace = ws
	p.dir = ws
	if spec.Dir != "" {
		d := spec.Dir
		if !filepath.IsAbs(d) {
			d = filepath.Join(ws, d)
		}
		d, err = realDir(d)
		if err != nil {
			return nil, fmt.Errorf("sandbox: working folder: %w", err)
		}
		if !within(d, ws) {
			return nil, fmt.Errorf("sandbox: working folder %s is not inside the workspace %s", spec.Dir, ws)
		}
		p.dir = d
	}
	for _, ro := range spec.ReadOnly {
		r, err := realDir(ro)
		if err != nil {
			return nil, fmt.Errorf("sandbox: read-only folder: %w", err)
		}
		if r == "/" {
			return nil, errors.New("sandbox: a read-only folder cannot be the root folder /")
		}
		p.readOnly = append(p.readOnly, r)
		if abs, err := filepath.Abs(ro); err == nil && filepath.Clean(abs) != r {
			p.aliases = append(p.aliases, [2]string{filepath.Clean(abs), r})
		}
	}
	p.env = make([]string, 0, len(spec.Env)+1)
	for _, kv := range spec.Env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("sandbox: environment entry %q is not NAME=value", kv)
		}
		if strings.IndexByte(kv, 0) >= 0 {
			return nil, fmt.Errorf("sandbox: environment variable %s contains a NUL byte", k)
		}
		if k == "HOME" {
			p.home = kv[len("HOME="):]
		}
		p.env = append(p.env, kv)
	}
	if s.confined {
		if p.home == "" {
			p.home = DefaultHome
			p.env = append(p.env, "HOME="+DefaultHome)
		}
		if !filepath.IsAbs(p.home) {
			return nil, fmt.Errorf("sandbox: HOME %q is not an absolute path", p.home)
		}
		p.home = filepath.Clean(p.home)
	}
	return p, nil
}

// realDir resolves dir to an absolute path without symlinks and checks that
// it is a folder.
func realDir(dir string) (string, error) {
	if strings.IndexByte(dir, 0) >= 0 {
		return "", fmt.Errorf("path %q contains a NUL byte", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("stat %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a folder", dir)
	}
	return real, nil
}

// within reports whether path is dir or inside it; both are clean and absolute.
func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}

// fmtBytes writes n in the largest binary unit that divides it.
func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// fmtDur writes d as seconds when it is a whole number of them ("120s").
func fmtDur(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// memoryHints are what programs print when an allocation fails under
// RLIMIT_DATA; the kernel itself reports nothing.
var memoryHints = [][]byte{
	[]byte("MemoryError"),
	[]byte("Cannot allocate memory"),
	[]byte("out of memory"),
	[]byte("std::bad_alloc"),
	[]byte("memory exhausted"),
}

// looksOutOfMemory reports whether stderr says an allocation failed.
func looksOutOfMemory(stderr []byte) bool {
	for _, h := range memoryHints {
		if bytes.Contains(stderr, h) {
			return true
		}
	}
	return false
}
