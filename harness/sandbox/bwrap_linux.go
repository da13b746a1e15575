package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"skillet/harness/procfs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// systemDirs are bound read-only (or recreated as the symlinks they are)
// when they exist. /usr covers /usr/local.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"}

// sandboxUID is the uid commands run as when Skillet runs as root, so tools
// that refuse or change behaviour under root (npm, pip) act as for a user.
const sandboxUID = "1000"

// New finds bubblewrap and starts one trivial sandbox to prove it works
// here. Its error says why no sandbox can start and how to run commands
// anyway.
func New(opts Options) (*Sandbox, error) {
	bin, err := findBwrap(opts.Bwrap)
	if err != nil {
		return nil, err
	}
	s := &Sandbox{opts: opts, confined: true, bwrap: bin, rootUID: os.Geteuid() == 0}
	s.version = bwrapVersion(bin)
	s.tmpfsSize = versionAtLeast(s.version, 0, 7)
	s.tmpfsPerms = versionAtLeast(s.version, 0, 5)
	if s.rootUID {
		// Only a root caller's sandbox uid owns root's files; for anyone
		// else they stay unreadable without a mount each.
		s.masks = findMasks("/etc")
	}
	if err := s.probe(); err != nil {
		return nil, err
	}
	if !opts.NoCgroup {
		s.cg = probeCgroup()
	}
	return s, nil
}

// Unconfined is the --no-sandbox mode: the same environment, limits,
// timeouts and process-tree kill, with no confinement at all.
func Unconfined(opts Options) *Sandbox {
	s := &Sandbox{opts: opts, rootUID: os.Geteuid() == 0}
	if !opts.NoCgroup {
		s.cg = probeCgroup()
	}
	return s
}

// findBwrap resolves the bubblewrap binary.
func findBwrap(given string) (string, error) {
	if given != "" {
		p, err := exec.LookPath(given)
		if err != nil {
			return "", fmt.Errorf("%w: bubblewrap %q: %v; install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) or run with --no-sandbox to allow commands unconfined", errNoSandbox, given, err)
		}
		return p, nil
	}
	if fi, err := os.Stat("/usr/bin/bwrap"); err == nil && !fi.IsDir() {
		return "/usr/bin/bwrap", nil
	}
	p, err := exec.LookPath("bwrap")
	if err != nil {
		return "", fmt.Errorf("%w: bubblewrap (bwrap) is not installed; install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) or run with --no-sandbox to allow commands unconfined", errNoSandbox)
	}
	return p, nil
}

// bwrapVersion is e.g. "bubblewrap 0.8.0", or "bubblewrap" when it will not say.
func bwrapVersion(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if v := strings.TrimSpace(string(out)); err == nil && v != "" {
		return v
	}
	return "bubblewrap"
}

// versionAtLeast reports whether "bubblewrap X.Y.Z" is at least major.minor.
func versionAtLeast(version string, major, minor int) bool {
	f := strings.Fields(version)
	if len(f) < 2 {
		return false
	}
	nums := strings.Split(f[len(f)-1], ".")
	if len(nums) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(nums[0])
	mi, err2 := strconv.Atoi(nums[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// probe runs `true` the way Run runs every command.
func (s *Sandbox) probe() error {
	ws, err := os.MkdirTemp("", "skillet-sandbox-probe-")
	if err != nil {
		return fmt.Errorf("%w: probe folder: %v", errNoSandbox, err)
	}
	defer os.RemoveAll(ws)
	res, err := s.Run(context.Background(), Spec{Command: "true", Workspace: ws, Env: []string{"PATH=" + DefaultPath}, Limits: Limits{Wall: 10 * time.Second}})
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("exit code %d%s", res.ExitCode, stderrNote(res.Stderr))
	}
	if err != nil {
		hint := "user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0), or a container forbids them (docker: --security-opt seccomp=unconfined or --privileged)"
		return fmt.Errorf("%w: %s cannot start a sandbox here (%v); %s; or run with --no-sandbox to allow commands unconfined", errNoSandbox, s.version, err, hint)
	}
	return nil
}

// findMasks lists the entries under root that others may not read.
func findMasks(root string) []mask {
	var out []mask
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			if err != nil && d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil || !(fi.Mode().IsRegular() || fi.IsDir()) {
			return nil
		}
		if fi.Mode().Perm()&0o004 == 0 {
			out = append(out, mask{path: path, dir: fi.IsDir()})
			if fi.IsDir() {
				return fs.SkipDir
			}
		}
		return nil
	})
	return out
}

// launch builds the command for p: bwrap when confined, the shell otherwise.
// hold means a cgroup waits for the command before it may fork.
func (s *Sandbox) launch(p *prepared, hold bool) (*launch, error) {
	shell := shellPath()
	nproc := s.confined && !s.rootUID
	if !s.confined {
		l := &launch{}
		l.cmd = exec.Command(shell, "-c", limitScript(shell, p.lim, false, false), "skillet-sandbox", p.Command)
		l.cmd.Dir = p.dir
		l.cmd.Env = p.env
		// With no cgroup, or after kill -9 of Skillet, the PID namespace is
		// what takes the command's daemons down. Its init is the process
		// moved into the cgroup, so it is the one to wait until then,
		// before it forks.
		before := ""
		if hold {
			before = holdWait
		}
		if !containAfter(l.cmd, before) && hold {
			l.cmd.Args[2] = limitScript(shell, p.lim, false, true)
		}
		if hold {
			r, w, err := os.Pipe()
			if err != nil {
				return nil, fmt.Errorf("sandbox: hold pipe: %w", err)
			}
			l.cmd.ExtraFiles = []*os.File{r}
			l.files = []*os.File{r}
			l.hold = w
		}
		return l, nil
	}
	args, err := s.bwrapArgs(p)
	if err != nil {
		return nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: status pipe: %w", err)
	}
	l := &launch{files: []*os.File{statusW}}
	statusFD := "3"
	if hold {
		statusFD = "4" // fd 3 is the hold pipe
	}
	args = append(args, "--json-status-fd", statusFD, "--", shell, "-c", limitScript(shell, p.lim, nproc, false), "skillet-sandbox", p.Command)
	if hold {
		// A small shell waits on fd 3 until Run has moved it into the
		// cgroup, then becomes bwrap, so every process of the sandbox is
		// born inside.
		r, w, err := os.Pipe()
		if err != nil {
			statusR.Close()
			statusW.Close()
			return nil, fmt.Errorf("sandbox: hold pipe: %w", err)
		}
		// The shell exports PWD, which bwrap would pass on as its own
		// environment (/proc/1/environ inside): drop it unless given.
		script := `read _ <&3; exec 3<&-; exec "$0" "$@"`
		if !hasVar(p.env, "PWD") {
			script = `read _ <&3; exec 3<&-; exec /usr/bin/env -u PWD "$0" "$@"`
		}
		l.cmd = exec.Command("/bin/sh", append([]string{"-c", script, s.bwrap}, args...)...)
		l.cmd.ExtraFiles = []*os.File{r, statusW}
		l.cmd.Dir = p.dir
		l.files = append(l.files, r)
		l.hold = w
	} else {
		l.cmd = exec.Command(s.bwrap, args...)
		l.cmd.ExtraFiles = []*os.File{statusW}
	}
	l.cmd.Env = p.env
	// bwrap's --die-with-parent ties the sandbox to bwrap; this ties bwrap
	// to Skillet, so kill -9 of Skillet takes the sandbox down.
	l.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	l.status = newBwrapStatus(statusR)
	return l, nil
}

// mount is one mount in the sandbox beyond the system folders.
type mount struct {
	kind string // "--tmpfs", "--bind", "--ro-bind"
	path string
}

// bwrapArgs is everything before --json-status-fd for p.
func (s *Sandbox) bwrapArgs(p *prepared) ([]string, error) {
	a := []string{"--die-with-parent", "--new-session", "--unshare-all", "--unshare-user", "--hostname", "skillet-sandbox"}
	if p.Network {
		a = append(a, "--share-net")
	}
	if s.rootUID {
		a = append(a, "--uid", sandboxUID, "--gid", sandboxUID)
	}
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		if err != nil {
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(d)
			if err != nil {
				continue
			}
			a = append(a, "--symlink", target, d)
		} else if fi.IsDir() {
			a = append(a, "--ro-bind", d, d)
		}
	}
	for _, m := range s.masks {
		if m.dir {
			a = append(a, "--tmpfs", m.path, "--remount-ro", m.path)
		} else {
			a = append(a, "--ro-bind", "/dev/null", m.path)
		}
	}
	if p.Network {
		// resolv.conf often links into /run, which is not mounted.
		if t, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && !within(t, "/etc") {
			a = append(a, "--ro-bind-try", t, t)
		}
	}
	a = append(a, "--dev", "/dev", "--proc", "/proc")

	mounts := []mount{{"--tmpfs", "/tmp"}, {"--tmpfs", "/var/tmp"}}
	home := p.home
	inside := within(home, p.workspace)
	for _, ro := range p.readOnly {
		inside = inside || within(home, ro)
	}
	if !inside {
		if home == "/" {
			return nil, errors.New("sandbox: HOME cannot be the root folder /")
		}
		for _, d := range systemDirs {
			if within(home, d) || within(d, home) {
				return nil, fmt.Errorf("sandbox: HOME %s would hide the system folder %s", home, d)
			}
		}
		mounts = append(mounts, mount{"--tmpfs", home})
	}
	mounts = append(mounts, mount{"--bind", p.workspace})
	for _, ro := range p.readOnly {
		mounts = append(mounts, mount{"--ro-bind", ro})
	}
	// Parents before children, so a read-only skill folder inside the
	// workspace (or the workspace inside /tmp) stays as asked.
	sort.SliceStable(mounts, func(i, j int) bool {
		return strings.Count(mounts[i].path, "/") < strings.Count(mounts[j].path, "/")
	})
	size := strconv.FormatInt(p.lim.FileSize, 10)
	for _, m := range mounts {
		if m.kind == "--tmpfs" {
			perms := "1777"
			if m.path == home {
				perms = "0700"
			}
			// --perms came in bwrap 0.5, --size in 0.7 (Ubuntu 22.04 has 0.6).
			if s.tmpfsPerms {
				a = append(a, "--perms", perms)
			}
			if s.tmpfsSize {
				a = append(a, "--size", size)
			}
			a = append(a, "--tmpfs", m.path)
		} else {
			a = append(a, m.kind, m.path, m.path)
		}
	}
	a = append(a, aliasLinks(p, mounts)...)
	a = append(a, "--remount-ro", "/", "--chdir", p.dir)
	return a, nil
}

// bwrapStatus reads bwrap's --json-status-fd: the child's pid once the
// namespaces exist, and "exit-code" once the command ran.
type bwrapStatus struct {
	done    chan struct{}
	mu      sync.Mutex
	exitSet bool
	init    *os.Process // bwrap's child: the PID namespace's init
}

func newBwrapStatus(r *os.File) *bwrapStatus {
	st := &bwrapStatus{done: make(chan struct{})}
	go st.read(r)
	return st
}

func (st *bwrapStatus) read(r *os.File) {
	defer close(st.done)
	defer r.Close()
	dec := json.NewDecoder(r)
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			if !errors.Is(err, io.EOF) {
				_, _ = io.Copy(io.Discard, r)
			}
			return
		}
		if v, ok := doc["child-pid"].(float64); ok {
			// Go holds a pidfd for the process from here on, so a later
			// kill cannot reach another process that reused the pid.
			if proc, err := os.FindProcess(int(v)); err == nil {
				st.mu.Lock()
				st.init = proc
				st.mu.Unlock()
			}
		}
		if _, ok := doc["exit-code"]; ok {
			st.mu.Lock()
			st.exitSet = true
			st.mu.Unlock()
		}
	}
}

// started reports whether bwrap ran the command, once bwrap has exited.
func (st *bwrapStatus) started() bool {
	select {
	case <-st.done:
	case <-time.After(time.Second):
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.exitSet
}

// killInit kills the sandbox's init and waits until it has taken the PID
// namespace down. bwrap exits as soon as the command does, while its init
// may still be killing what the command left behind, so Run would
// otherwise return with a daemon alive for a moment.
func (st *bwrapStatus) killInit() {
	// bwrap is dead or dying here: its status pipe is about to end, and
	// with it the reading of the init's pid.
	select {
	case <-st.done:
	case <-time.After(time.Second):
	}
	st.mu.Lock()
	proc := st.init
	st.mu.Unlock()
	if proc == nil {
		return
	}
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if err := proc.Signal(syscall.SIGKILL); err != nil || !alive(proc.Pid) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// release lets go of the init's pidfd.
func (st *bwrapStatus) release() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.init != nil {
		st.init.Release()
		st.init = nil
	}
}

// alive reports whether pid exists and is not a zombie. A zombie init has
// already killed its namespace: the kernel does that before it exits.
func alive(pid int) bool { return procfs.Running(pid) }

// hasVar reports whether env sets name.
func hasVar(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// closeOnExec marks every open file of this process close-on-exec. Go
// opens its own files so, but one inherited from whoever started Skillet
// (a shell's stray pipe, a terminal) would otherwise pass through bwrap,
// which hands on what it is given, into every command.
func closeOnExec() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// aliasLinks makes each read-only folder given through a symbolic link
// reachable by the path it was given as, as a link in the sandbox's own
// root — never inside a folder bound from the machine, where the link
// would be written to disk.
func aliasLinks(p *prepared, mounts []mount) []string {
	var a []string
	for _, al := range p.aliases {
		given, real := al[0], al[1]
		covered := false
		for _, m := range mounts {
			covered = covered || within(given, m.path)
		}
		for _, d := range append(append([]string{}, systemDirs...), "/tmp", "/var/tmp", "/dev", "/proc") {
			covered = covered || within(given, d)
		}
		if !covered {
			a = append(a, "--symlink", real, given)
		}
	}
	return a
}
