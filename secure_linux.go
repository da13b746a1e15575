package main

import "syscall"

// hideEnvironment makes the process undumpable. Then /proc/PID/environ (and
// mem, maps, fd) of Skillet can be read only by root, not by a tool or MCP
// server running as the same user: its environment holds OPENAI_API_KEY,
// which the tools' own environments leave out. Children get their own
// dumpable flag back when they exec.
func hideEnvironment() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); errno != 0 {
		return errno
	}
	return nil
}
