package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// A session's live memory grows slowly (its transcript, notes and turn
// records, about a kilobyte a message), but the collector's default goal
// is twice the live heap, and pages freed above that stay with the
// process: the resident size grew by about twice what the session kept.
// The memory limit below keeps the goal at the live heap plus a fixed
// headroom instead (the default's own headroom at 2,000 messages), with a
// floor that leaves start-up (the tokenizer's tables) alone: the collector
// does not grow lazier as the session grows, and it never works against a
// live heap near the limit, since the limit moves up with the heap. A
// GOMEMLIMIT the user set is left as it is.

const (
	// memHeadroom is what may be allocated between two collections.
	memHeadroom = 32 << 20
	// memFloor is the lowest limit set: below it the default goal holds.
	memFloor = 64 << 20
)

var limitOnce sync.Once

// limitMemory keeps the runtime's soft memory limit at the live heap plus
// memHeadroom from now on, unless GOMEMLIMIT is set. It is called before
// a session opens: a journal streams through the fold that reopens it, so
// what the heap holds then is the session itself, not the journal's
// events. The limit is set again after every collection, so it follows a
// heap that grows fast.
func limitMemory() { limitOnce.Do(startLimit) }

// settleMemory hands back to the system what reading a journal left
// behind: reopening a long session decodes every line of it, and without
// this its resident size stays near that peak until the collector gets to
// returning pages on its own, long after.
func settleMemory() { debug.FreeOSMemory() }

func startLimit() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	samples := limitSamples()
	debug.SetMemoryLimit(memLimitFor(samples))
	afterEachGC(func() { debug.SetMemoryLimit(memLimitFor(samples)) })
}

// gcSentinel is garbage from birth: its finalizer runs once a collection
// has found it, which is how the program hears of every collection. The
// pointer keeps it out of the tiny allocator, whose blocks die together.
type gcSentinel struct {
	p *int
	_ [8]byte
}

// afterEachGC calls f, on the finalizer goroutine, after every collection.
func afterEachGC(f func()) {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		f()
		afterEachGC(f)
	})
}

// limitSamples are the metrics memLimitFor reads, in the order it reads
// them.
func limitSamples() []metrics.Sample {
	return []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
}

// memLimitFor reads samples and returns the limit they call for: the live
// heap, what the runtime holds besides the heap (stacks, metadata), and
// the headroom.
func memLimitFor(samples []metrics.Sample) int64 {
	metrics.Read(samples)
	v := func(i int) int64 {
		if samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(samples[i].Value.Uint64())
	}
	live := v(0)
	other := v(1) - v(2) - v(3) - v(4) - v(5)
	return max(memFloor, live+max(0, other)+memHeadroom)
}
