package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroupRoot is a writable pids cgroup under which each command gets its
// own child. A pids cgroup counts every process of the tree whatever its
// uid, which RLIMIT_NPROC cannot do for root, and lets a tree that left its
// process group (setsid) be found and killed.
type cgroupRoot struct {
	version string // "v2" or "v1"
	dir     string
}

// cgroup is one command's cgroup.
type cgroup struct {
	root *cgroupRoot
	dir  string
}

// probeCgroup finds a pids cgroup this process may create children in, or nil.
func probeCgroup() *cgroupRoot {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	var v1Path, v2Path string
	haveV2 := false
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2Path, haveV2 = parts[2], true
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "pids" {
				v1Path = parts[2]
			}
		}
	}
	if haveV2 {
		for _, mnt := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
			if _, err := os.Stat(filepath.Join(mnt, "cgroup.controllers")); err != nil {
				continue
			}
			// Our own cgroup first; where it holds processes and lacks pids
			// for its children, the top of the hierarchy (root may use it).
			for _, dir := range []string{filepath.Join(mnt, v2Path), mnt} {
				root := &cgroupRoot{version: "v2", dir: dir}
				if root.enablePids() && root.works() {
					return root
				}
			}
		}
	}
	if v1Path != "" {
		root := &cgroupRoot{version: "v1", dir: filepath.Join("/sys/fs/cgroup/pids", v1Path)}
		if root.works() {
			return root
		}
	}
	return nil
}

// sweep removes the empty cgroups of Skillet processes that died without
// removing theirs (killed mid-command).
func (r *cgroupRoot) sweep() {
	entries, _ := os.ReadDir(r.dir)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "skillet-")
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
			continue
		}
		_ = os.Remove(filepath.Join(r.dir, e.Name()))
	}
}

// enablePids makes the pids controller available to children (v2).
func (r *cgroupRoot) enablePids() bool {
	ctl, err := os.ReadFile(filepath.Join(r.dir, "cgroup.subtree_control"))
	if err != nil {
		return false
	}
	if hasWord(string(ctl), "pids") {
		return true
	}
	// Fails when this cgroup holds processes and is not the root; then
	// there is no pids cgroup to use.
	return os.WriteFile(filepath.Join(r.dir, "cgroup.subtree_control"), []byte("+pids"), 0) == nil
}

// works creates and removes a child with a pids limit.
func (r *cgroupRoot) works() bool {
	cg, err := r.create(fmt.Sprintf("skillet-probe-%d", os.Getpid()), Limits{Processes: 1})
	if err != nil {
		return false
	}
	cg.remove()
	r.sweep()
	return true
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// create makes a child cgroup limited to lim.Processes.
func (r *cgroupRoot) create(name string, lim Limits) (*cgroup, error) {
	dir := filepath.Join(r.dir, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create cgroup %s: %w", dir, err)
	}
	cg := &cgroup{root: r, dir: dir}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(lim.Processes)), 0); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("set pids.max in %s: %w", dir, err)
	}
	return cg, nil
}

// add moves pid into the cgroup; its later children follow it.
func (cg *cgroup) add(pid int) error {
	if err := os.WriteFile(filepath.Join(cg.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		return fmt.Errorf("move process %d into cgroup %s: %w", pid, cg.dir, err)
	}
	return nil
}

// kill kills every process in the cgroup, forking ones included.
func (cg *cgroup) kill() {
	if os.WriteFile(filepath.Join(cg.dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	// No cgroup.kill (v1, or a kernel before 5.14): kill in rounds until
	// empty; pids.max bounds how many a fork bomb can make between rounds.
	for range 200 {
		pids := cg.pids()
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}

// pids lists the processes in the cgroup.
func (cg *cgroup) pids() []int {
	data, err := os.ReadFile(filepath.Join(cg.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// remove kills what is left and deletes the cgroup. Killed processes leave
// it a moment later, so rmdir is retried briefly.
func (cg *cgroup) remove() {
	cg.kill()
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := os.Remove(cg.dir)
		if err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			return
		}
		cg.kill()
		time.Sleep(5 * time.Millisecond)
	}
}

// limitHit is "processes N" when a fork was refused for the pids limit.
func (cg *cgroup) limitHit(lim Limits) string {
	data, err := os.ReadFile(filepath.Join(cg.dir, "pids.events"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "max" && f[1] != "0" {
			return "processes " + strconv.Itoa(lim.Processes)
		}
	}
	return ""
}
