package main

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// keep holds live memory for the test of the limit.
var keep [][]byte

func TestMemLimitFollowsTheLiveHeap(t *testing.T) {
	samples := limitSamples()
	runtime.GC()
	small := memLimitFor(samples)
	if small < memFloor {
		t.Fatalf("limit %d below the floor %d", small, memFloor)
	}
	for range 96 {
		keep = append(keep, make([]byte, 1<<20))
	}
	runtime.GC()
	big := memLimitFor(samples)
	live := int64(samples[0].Value.Uint64())
	if live < 96<<20 {
		t.Fatalf("the live heap is %d bytes with 96 MiB held", live)
	}
	if big < live+memHeadroom {
		t.Fatalf("limit %d leaves less than the headroom above a live heap of %d", big, live)
	}
	if big > live+memHeadroom+64<<20 {
		t.Fatalf("limit %d is far above a live heap of %d", big, live)
	}
	keep = nil
}

func TestMemLimitLeavesGOMEMLIMITAlone(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "300MiB")
	before := debug.SetMemoryLimit(-1)
	startLimit()
	if after := debug.SetMemoryLimit(-1); after != before {
		t.Fatalf("the limit moved from %d to %d although GOMEMLIMIT is set", before, after)
	}
}
