//go:build !unix

package sandbox

import (
	"os"
	"os/exec"
)

// setProcAttr does nothing where there are no sessions.
func setProcAttr(*exec.Cmd) {}

// killGroup cannot reach a process group here; Run kills the command itself.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// exitInfo is the exit code; signals are not reported here.
func exitInfo(ps *os.ProcessState) (int, string) { return ps.ExitCode(), "" }

// signalName knows no signals here.
func signalName(int) string { return "" }
