// Package procfs reads what Skillet needs of a process from Linux's /proc:
// its parent, its process group, its start time and whether it has ended.
// One reader for the process trees of tools, the sandbox's init and the
// tests that check no process outlives its run.
package procfs
