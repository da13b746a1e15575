package harnesstest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"skillet/harness/procfs"
)

// KillAtEnd kills pid when the test ends if the same process still runs
// (a pid may be reused, its start time with it not), so a failing test
// leaves nothing behind. It reports whether pid runs now.
func KillAtEnd(t testing.TB, pid int) bool {
	st, ok := procfs.Read(pid)
	if !ok || st.Ended {
		return false
	}
	t.Cleanup(func() {
		if now, ok := procfs.Read(pid); ok && !now.Ended && now.Start == st.Start {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return true
}

// WaitGone polls /proc until every process has ended, for at most 10 s,
// and names each one still running then.
func WaitGone(t testing.TB, what string, pids []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for procfs.Running(pid) {
			if time.Now().After(deadline) {
				cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
				t.Errorf("%s: process %d (%s) is still running", what, pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
