//go:build !linux

package sandbox

import "os/exec"

// Contain does nothing where there is no PID namespace or
// PR_SET_PDEATHSIG: a command's process group is still stopped with it,
// but a daemon it starts in a session of its own, or a command whose
// Skillet was killed, runs on. It reports false.
func Contain(cmd *exec.Cmd) bool { return false }

// PIDNamespaces reports false: there are none here.
func PIDNamespaces() bool { return false }

func initProcesses() int { return 0 }
