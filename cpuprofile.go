package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"time"
)

// startCPUProfile writes a CPU profile of the run to the file named by
// SKILLET_CPUPROFILE, for measuring the program as a user runs it;
// SKILLET_CPUPROFILE_AFTER (a duration) starts it that long after start-up,
// to leave out what comes before the part measured, and
// SKILLET_CPUPROFILE_HZ samples that many times a second instead of 100,
// for a process that uses little CPU. The returned function ends it. Without the variable it does nothing.
func startCPUProfile() func() {
	path := os.Getenv("SKILLET_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	var after time.Duration
	if s := os.Getenv("SKILLET_CPUPROFILE_AFTER"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			fmt.Fprintf(os.Stderr, "skillet: SKILLET_CPUPROFILE_AFTER %q: %v\n", s, err)
			return func() {}
		}
		after = d
	}
	hz := 0
	if s := os.Getenv("SKILLET_CPUPROFILE_HZ"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 10000 {
			fmt.Fprintf(os.Stderr, "skillet: SKILLET_CPUPROFILE_HZ %q: want a number from 1 to 10000\n", s)
			return func() {}
		}
		hz = n
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "skillet: SKILLET_CPUPROFILE: %v\n", err)
		return func() {}
	}
	var mu sync.Mutex
	started, stopped := false, false
	start := func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		if hz > 0 {
			// StartCPUProfile keeps a rate set before it (and says so on
			// stderr, which the screen's own output covers)
			runtime.SetCPUProfileRate(hz)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "skillet: SKILLET_CPUPROFILE %s: %v\n", path, err)
			return
		}
		started = true
	}
	if after > 0 {
		time.AfterFunc(after, start)
	} else {
		start()
	}
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		if started {
			pprof.StopCPUProfile()
		}
		f.Close()
	}
}
