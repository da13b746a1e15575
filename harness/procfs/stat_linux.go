package procfs

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// Stat is what Skillet reads of /proc/PID/stat.
type Stat struct {
	PPID, PGrp int
	// Start is the start time in clock ticks after boot: a pid may be
	// reused once its process is reaped, the pair of pid and start not.
	Start uint64
	// Ended is set for a zombie (or dead) process: it runs no more but
	// has not been reaped.
	Ended bool
	// CPU is the user and system time the process has used so far, to
	// the clock tick (a hundredth of a second).
	CPU time.Duration
}

// userHZ is the unit of /proc's times: USER_HZ, 100 on every Linux ABI Go
// supports.
const userHZ = 100

// Read reads pid's stat; ok is false when there is no such process.
func Read(pid int) (st Stat, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, false
	}
	// The command name may hold spaces and parentheses: fields start after
	// the last ')', with the state (field 3 of proc(5)) first.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Stat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return Stat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	start, err3 := strconv.ParseUint(f[19], 10, 64)
	utime, err4 := strconv.ParseUint(f[11], 10, 64)
	stime, err5 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil {
		return Stat{}, false
	}
	cpu := time.Duration(utime+stime) * time.Second / userHZ
	return Stat{PPID: ppid, PGrp: pgrp, Start: start, Ended: f[0] == "Z" || f[0] == "X", CPU: cpu}, true
}

// Running reports whether pid is a process that has not ended.
func Running(pid int) bool {
	st, ok := Read(pid)
	return ok && !st.Ended
}
