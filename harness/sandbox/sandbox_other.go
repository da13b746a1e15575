//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// New reports that no sandbox exists on this system: the confinement is
// bubblewrap, which is Linux only.
func New(opts Options) (*Sandbox, error) {
	return nil, fmt.Errorf("%w: commands can be confined only on Linux (bubblewrap), not on %s; run with --no-sandbox to allow commands unconfined", errNoSandbox, runtime.GOOS)
}

// Unconfined is the --no-sandbox mode: the same environment, limits,
// timeouts and process-group kill, with no confinement at all.
func Unconfined(opts Options) *Sandbox {
	return &Sandbox{opts: opts, rootUID: os.Geteuid() == 0}
}

// launch builds the unconfined command for p.
func (s *Sandbox) launch(p *prepared, hold bool) (*launch, error) {
	shell := shellPath()
	l := &launch{}
	l.cmd = exec.Command(shell, "-c", limitScript(shell, p.lim, false, false), "skillet-sandbox", p.Command)
	l.cmd.Dir = p.dir
	l.cmd.Env = p.env
	return l, nil
}

// cgroupRoot does not exist off Linux.
type cgroupRoot struct{ version string }

type cgroup struct{}

func (*cgroupRoot) create(string, Limits) (*cgroup, error) {
	return nil, fmt.Errorf("no cgroups on %s", runtime.GOOS)
}
func (*cgroup) add(int) error          { return nil }
func (*cgroup) kill()                  {}
func (*cgroup) remove()                {}
func (*cgroup) limitHit(Limits) string { return "" }

// bwrapStatus does not exist off Linux.
type bwrapStatus struct{}

func (*bwrapStatus) started() bool { return true }
func (*bwrapStatus) killInit()     {}
func (*bwrapStatus) release()      {}

// closeOnExec does nothing here; the commands are not confined anyway.
func closeOnExec() {}
