// Package procfs reads what Skillet needs of a process from Linux's /proc:
// its parent, its process group, its start time, the CPU time it has used
// and whether it has ended.
// One reader for the process trees of tools, the sandbox's init, the
// tests that check no process outlives its run and the benchmarks that
// measure a process's CPU.
package procfs
