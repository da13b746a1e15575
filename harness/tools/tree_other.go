//go:build !linux

package tools

import (
	"os/exec"
	"time"
)

// BecomeSubreaper does nothing where the system has no child subreaper:
// a tool's process group is still stopped, but a daemon it started with
// setsid is out of reach.
func BecomeSubreaper() error { return nil }

// procTree is what one run started; without /proc, that is its process
// group.
type procTree struct {
	cmd       *exec.Cmd
	contained bool
}

func newProcTree(time.Duration) *procTree { return &procTree{} }

// env is the variable that marks the run's processes.
func (t *procTree) env() string { return markerVar + "=1" }

func (t *procTree) started(cmd *exec.Cmd) { t.cmd = cmd }

// kill stops the run's process group.
func (t *procTree) kill(rootAlive bool) {
	if t.cmd != nil {
		_ = killProcessGroup(t.cmd)
	}
}

// finish stops what is left of the run's process group.
func (t *procTree) finish() { t.kill(false) }
