package tools

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"skillet/harness/procfs"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

// BecomeSubreaper makes this process the child subreaper of everything it
// starts: a tool's descendants that leave their parent (a daemon started
// with setsid, a double fork) are re-parented to Skillet instead of init,
// so they stay within reach when the tool ends and can be stopped.
func BecomeSubreaper() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return fmt.Errorf("become child subreaper: %w", errno)
	}
	subreaper.Store(true)
	return nil
}

// subreaper is set once this process is the child subreaper: a run's
// processes are then all below its root or below this process, and need
// not be looked for among every process of the system.
var subreaper atomic.Bool

// reapWait bounds how long the end of a run waits for what it killed to die.
const reapWait = 2 * time.Second

// procTree is everything one run started: the root process, its process
// group, its descendants and every process carrying its marker.
type procTree struct {
	marker string
	self   int
	poll   time.Duration
	// contained: the run has a PID namespace of its own, which the kernel
	// empties when the run's first process ends, so its tree need not be
	// watched.
	contained bool

	mu   sync.Mutex
	root int
	// rootStart is the root's start time: a process started before it
	// cannot be the run's, which spares reading most environments.
	rootStart uint64
	// seen are the run's processes met so far, by pid, with their start
	// time: a pid may be reused once its process is reaped, the pair not.
	seen map[int]uint64
	stop chan struct{}
	done chan struct{}
}

// newProcTree returns the tree of a run whose processes are looked at
// every poll while it lasts.
func newProcTree(poll time.Duration) *procTree {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return &procTree{marker: hex.EncodeToString(b), self: os.Getpid(), poll: poll, seen: map[int]uint64{}}
}

// env is the variable that marks the run's processes.
func (t *procTree) env() string { return markerVar + "=" + t.marker }

// started records the root and begins watching its tree.
func (t *procTree) started(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.root = cmd.Process.Pid
	if st, ok := procfs.Read(t.root); ok {
		t.rootStart = st.Start
	}
	if t.contained {
		return
	}
	t.stop, t.done = make(chan struct{}), make(chan struct{})
	go t.watch(t.stop, t.done)
}

// watch notes the root's descendants while the run lasts, so that one that
// leaves the tree (and clears its environment) is still known at the end,
// and reaps re-parented ones that exit on their own.
func (t *procTree) watch(stop, done chan struct{}) {
	defer close(done)
	tick := time.NewTicker(t.poll)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		t.mu.Lock()
		root, rootStart := t.root, t.rootStart
		t.mu.Unlock()
		procs := t.candidates(root, true)
		// Once the root has been waited for, its pid may be another
		// process's, whose children are not the run's.
		rootSt, ok := procs[root]
		rootAlive := ok && rootSt.Start == rootStart
		own := map[int]bool{}
		for _, pid := range ownChildren(t.self) {
			own[pid] = true
		}
		for pid, st := range procs {
			if pid == root || st.Ended || st.Start < rootStart {
				continue
			}
			if (rootAlive && descends(procs, pid, root)) || (own[pid] && hasMarker(pid, t.env())) {
				t.note(pid, st)
			}
		}
		t.reapExited()
	}
}

func (t *procTree) note(pid int, st procfs.Stat) {
	t.mu.Lock()
	t.seen[pid] = st.Start
	t.mu.Unlock()
}

// descends reports whether pid is below root in procs.
func descends(procs map[int]procfs.Stat, pid, root int) bool {
	for range 64 { // deeper than any real tree; a bound against cycles
		st, ok := procs[pid]
		if !ok || st.PPID <= 1 {
			return false
		}
		if st.PPID == root {
			return true
		}
		pid = st.PPID
	}
	return false
}

// kill stops everything the run started: its process group, the root's
// descendants, the processes seen before and every process carrying the
// marker, in rounds until a scan finds none it has not killed yet (a
// process may fork between a scan and its kill). rootAlive says the root
// has not been waited for: once it has, its pid may belong to another
// process.
func (t *procTree) kill(rootAlive bool) {
	t.mu.Lock()
	root, rootStart := t.root, t.rootStart
	t.mu.Unlock()
	if root <= 0 {
		return
	}
	if err := syscall.Kill(-root, syscall.SIGKILL); err != nil && rootAlive {
		_ = syscall.Kill(root, syscall.SIGKILL)
	}
	killed := map[int]bool{}
	for range 100 {
		fresh := 0
		procs := t.candidates(root, rootAlive)
		for pid, st := range procs {
			if killed[pid] || pid == t.self || st.Ended || st.Start < rootStart || !t.member(procs, pid, st, root, rootAlive) {
				continue
			}
			killed[pid] = true
			fresh++
			if syscall.Kill(pid, syscall.SIGKILL) == nil && pid != root {
				t.note(pid, st)
			}
		}
		if fresh == 0 {
			return
		}
	}
}

// member reports whether a live process belongs to the run.
func (t *procTree) member(procs map[int]procfs.Stat, pid int, st procfs.Stat, root int, rootAlive bool) bool {
	if rootAlive && (pid == root || descends(procs, pid, root)) {
		return true
	}
	if st.PGrp == root {
		return true
	}
	t.mu.Lock()
	start, seen := t.seen[pid]
	t.mu.Unlock()
	if seen && start == st.Start {
		return true
	}
	return hasMarker(pid, t.env())
}

// finish kills what is left of the run once its root has been waited for,
// and reaps what was re-parented to this process.
func (t *procTree) finish() {
	t.mu.Lock()
	stop, done := t.stop, t.done
	t.stop = nil
	t.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	t.kill(false)
	deadline := time.Now().Add(reapWait)
	for t.reapExited() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// reapExited waits for the run's re-parented processes that have exited
// and returns how many are still to be reaped. The root is left to its
// exec.Cmd. A process that is not this one's child (yet) stays on the list
// while it exists: its parent may die and hand it over.
func (t *procTree) reapExited() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	for pid, start := range t.seen {
		st, ok := procfs.Read(pid)
		if pid == t.root || !ok || st.Start != start {
			delete(t.seen, pid) // gone, or the pid is another process's now
			continue
		}
		if !st.Ended || st.PPID != t.self {
			continue
		}
		var ws syscall.WaitStatus
		if got, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); got == pid {
			delete(t.seen, pid)
		}
	}
	// Zombies left in the root's group by orphans that exited before they
	// were noticed: the group id is the root's pid, which no other process
	// group can have while one of its members is left.
	if t.root > 0 {
		for _, pid := range ownChildren(t.self) {
			if st, ok := procfs.Read(pid); ok && pid != t.root && st.Ended && st.PGrp == t.root {
				var ws syscall.WaitStatus
				_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			}
		}
	}
	return len(t.seen)
}

// candidates reads the processes that may belong to the run. For the
// child subreaper, those are the root's tree (while it runs) and the trees
// of this process's children, where its orphans land; otherwise they may
// be anywhere.
func (t *procTree) candidates(root int, rootAlive bool) map[int]procfs.Stat {
	if !subreaper.Load() {
		return scanProcs()
	}
	queue := ownChildren(t.self)
	if rootAlive {
		queue = append(queue, root)
	}
	out := map[int]procfs.Stat{}
	for len(queue) > 0 && len(out) < maxTree {
		pid := queue[0]
		queue = queue[1:]
		if _, done := out[pid]; done {
			continue
		}
		st, ok := procfs.Read(pid)
		if !ok {
			continue
		}
		out[pid] = st
		kids, ok := childrenOf(pid)
		if !ok {
			return scanProcs() // no children files in this kernel
		}
		queue = append(queue, kids...)
	}
	return out
}

// maxTree bounds the processes candidates reads: a fork bomb must not
// stall the end of a run.
const maxTree = 100000

// scanProcs reads the stat of every process.
func scanProcs() map[int]procfs.Stat {
	out := map[int]procfs.Stat{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := procfs.Read(pid); ok {
			out[pid] = st
		}
	}
	return out
}

// ownChildren lists this process's children.
func ownChildren(self int) []int {
	kids, ok := childrenOf(self)
	if ok {
		return kids
	}
	var out []int
	for pid, st := range scanProcs() {
		if st.PPID == self {
			out = append(out, pid)
		}
	}
	return out
}

// childrenOf lists a process's children from the children files of its
// threads; false where the kernel has no such files.
func childrenOf(pid int) ([]int, bool) {
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	if len(files) == 0 {
		// A process that exited has no tasks left either.
		_, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/task")
		return nil, err != nil
	}
	var out []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, s := range strings.Fields(string(b)) {
			if kid, err := strconv.Atoi(s); err == nil {
				out = append(out, kid)
			}
		}
	}
	return out, true
}

// hasMarker reports whether the process's environment holds kv.
func hasMarker(pid int, kv string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, e := range bytes.Split(b, []byte{0}) {
		if string(e) == kv {
			return true
		}
	}
	return false
}
