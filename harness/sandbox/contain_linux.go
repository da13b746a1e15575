package sandbox

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// initShell runs as the first process of a contained command's PID
// namespace, with the command as its child.
const initShell = "/bin/sh"

// initScript runs the command and exits with its status (128+N when a
// signal N ended it). The command is not exec'd in the shell's place: the
// kernel shields a namespace's first process from every signal it has no
// handler for (SIGTERM, SIGPIPE, SIGXCPU, SIGXFSZ, even from the process
// itself), and the command should keep the defaults of any other process.
// When the shell exits, for whatever reason, the kernel kills everything
// left in the namespace before the shell can be waited for. A signal sent
// to the shell is not passed on (the shell has no handler, so the kernel
// drops it): Skillet ends a run with SIGKILL, or a stdio MCP server by
// closing its stdin. Running the command in the background with a trap to
// pass signals on would make it ignore SIGINT and SIGQUIT, as POSIX has a
// shell do for background commands.
const initScript = `"$@"; exit $?`

// Contain prepares cmd, not yet started, so that nothing it starts
// outlives it or Skillet. Its first process gets SIGKILL when Skillet dies
// (PR_SET_PDEATHSIG), kill -9 included. Where the kernel allows, it also
// runs in a PID namespace of its own (with a user namespace mapping
// Skillet's own uid and gid when Skillet is not root), under a small shell
// as the namespace's init: when the command ends, is killed, or Skillet
// dies, the kernel kills every process left in the namespace, daemons that
// left the process group and cleared their environment included. Contain
// reports whether cmd got the namespace; without one only its first
// process is tied to Skillet.
//
// In the namespace, $$ and getpid() are the namespace's numbers while
// /proc stays the machine's; a command that reads its own /proc entry
// should use /proc/self.
func Contain(cmd *exec.Cmd) bool { return containAfter(cmd, "") }

// containAfter is Contain with shell text run before the namespace is
// made, by the process Start starts.
func containAfter(cmd *exec.Cmd, before string) bool {
	return containIn(cmd, before, pidNamespaceMode())
}

// containIn is containAfter with the namespaces made as how says.
func containIn(cmd *exec.Cmd, before string, how namespaceMode) bool {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// The signal comes when the thread that started the process ends, not
	// the process (go.dev/issue/27505). The Go runtime ends a thread only
	// when a goroutine locked to it exits, and no unlocked goroutine (as
	// every caller of Start here is) runs on such a thread, so the thread
	// lasts as long as Skillet.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if cmd.Err != nil || cmd.Process != nil || cmd.Path == "" || how.kind == "" {
		return false
	}
	args := []string{initShell, "-c", initScript, "skillet-init", cmd.Path}
	if len(cmd.Args) > 1 {
		args = append(args, cmd.Args[1:]...)
	}
	if how.kind == "clone" {
		withNamespaces(cmd.SysProcAttr)
		args[2] = before + initScript
	} else {
		args = append(append([]string{how.unshare}, unshareFlags...), args...)
		if before != "" {
			args = append([]string{initShell, "-c", before + `exec "$@"`, "skillet-init"}, args...)
		}
	}
	cmd.Path, cmd.Args = args[0], args
	return true
}

// unshareFlags make util-linux's unshare(1) start its command in new user
// and PID namespaces, mapping the caller's uid and gid to themselves, and
// kill the command when unshare dies.
var unshareFlags = []string{"--map-current-user", "--pid", "--fork", "--kill-child=SIGKILL", "--"}

// withNamespaces adds the new PID namespace (and, for a user other than
// root, the user namespace that allows it) to attr.
func withNamespaces(attr *syscall.SysProcAttr) {
	attr.Cloneflags |= syscall.CLONE_NEWPID
	if uid := os.Geteuid(); uid != 0 {
		// The same uid and gid inside: files keep their owner, and the
		// command has no capability once it has exec'd. Files of other
		// users show as the overflow uid (nobody), and set-uid programs
		// (sudo) do not raise privileges.
		gid := os.Getegid()
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	}
}

// namespaceMode is how commands get their PID namespace here: kind
// "clone" (flags to the clone of Start), "unshare" (through the unshare
// program at path unshare), or "" (none).
type namespaceMode struct {
	kind    string
	unshare string
}

// pidNamespaceMode finds, once, how a command can start in a PID namespace
// of its own here. Root clones into one. Another user needs a user
// namespace too, whose uid map the parent writes into the child: Skillet
// makes itself non-dumpable (so tools cannot read its memory or
// environment), which a child inherits until it execs, and the kernel then
// keeps its map from its parent. unshare(1) makes the namespaces after its
// own exec, so that is tried first; the clone still works for a process
// that is dumpable. User namespaces may also be disabled, or a container's
// seccomp profile may refuse them: then there is none.
var pidNamespaceMode = sync.OnceValue(func() namespaceMode {
	if fi, err := os.Stat(initShell); err != nil || fi.IsDir() {
		return namespaceMode{}
	}
	try := func(cmd *exec.Cmd) bool {
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		return cmd.Run() == nil
	}
	if os.Geteuid() != 0 {
		if path, err := exec.LookPath("unshare"); err == nil {
			if try(exec.Command(path, append(unshareFlags, initShell, "-c", "exit 0")...)) {
				return namespaceMode{kind: "unshare", unshare: path}
			}
		}
	}
	cmd := exec.Command(initShell, "-c", "exit 0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	withNamespaces(cmd.SysProcAttr)
	if cmd.Run() == nil {
		return namespaceMode{kind: "clone"}
	}
	return namespaceMode{}
})

// initProcesses is how many processes Contain adds to a command's tree:
// the namespace's init, and unshare waiting for it.
func initProcesses() int {
	switch pidNamespaceMode().kind {
	case "clone":
		return 1
	case "unshare":
		return 2
	}
	return 0
}

// PIDNamespaces reports whether Contain gives commands a PID namespace of
// their own on this machine.
func PIDNamespaces() bool { return pidNamespaceMode().kind != "" }
