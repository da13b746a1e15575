//go:build !unix

package tools

import "os/exec"

// setProcessGroup does nothing where there are no process groups.
func setProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup kills the command's process; without process groups its
// children are out of reach.
func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
