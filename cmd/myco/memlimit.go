package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// defaultMemoryLimit is the soft limit myco gives the Go runtime when
// GOMEMLIMIT does not set one, while the live heap is small. Without it
// the heap may grow to twice what is live before the collector runs
// (GOGC=100), and a burst of work (20 turns streaming at once) leaves the
// process holding that headroom; the kernel counts it in the resident set
// as long as it is mapped. With the limit the collector runs sooner once
// the runtime's memory nears 24 MiB, which a desktop app idling beside a
// browser should not exceed.
//
// In issue 21's load run (docs/PERFORMANCE.md, "the peak in two parts")
// the peak was ~93 MB without a limit, 64 MB with 40 MiB and 57 MB with
// 32 MiB, once the live heap of 10,000 listed sessions came down to
// 13-16 MB. 24 MiB came once a streamed delta stopped costing 2.5 KB and
// a tab's queue 96 KB ("The soft limit: 32 → 24 MiB"): anonymous memory
// 28.6 -> 21.3 MB, for 3% more CPU in that run and 6% longer for its 20
// concurrent turns.
const defaultMemoryLimit = 24 << 20

// managesMemoryLimit says whether myco sets the soft limit: not when
// GOMEMLIMIT is set, which the runtime has read already (even "off").
func managesMemoryLimit(getenv func(string) string) bool {
	return getenv("GOMEMLIMIT") == ""
}

// pausesCollectorAtStart says whether the start holds off the
// collector's pacing (pauseCollector): only when myco manages the limit
// and the person chose no pacing (GOGC) of their own.
func pausesCollectorAtStart(getenv func(string) string) bool {
	return managesMemoryLimit(getenv) && getenv("GOGC") == ""
}

// limitFor is the soft limit for a live heap of live bytes: the default,
// or half as much again as is live and 8 MiB more, whichever is larger.
// A fixed limit under what a large session needs made the collector run
// without pause: with a 50 MB session open, every turn of the process
// took 2-3 times as long (BenchmarkTurnOverhead under GOMEMLIMIT, in
// docs/PERFORMANCE.md).
func limitFor(live uint64) int64 {
	return max(defaultMemoryLimit, int64(live+live/2)+8<<20)
}

// keepMemoryLimit sets the soft limit and moves it with the live heap,
// after every collection, until stop (main never stops it).
func keepMemoryLimit() (stop func()) {
	debug.SetMemoryLimit(defaultMemoryLimit)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var current int64 = defaultMemoryLimit
	return afterEachGC(func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		if want := limitFor(sample[0].Value.Uint64()); want != current {
			current = want
			debug.SetMemoryLimit(want)
		}
	})
}

// afterEachGC calls fn on the runtime's finalizer goroutine after every
// garbage collection until stop: a sentinel that nothing refers to is
// found by each cycle, and its finalizer arms the next one. Nothing runs
// while the process allocates nothing, where a ticker would wake it.
func afterEachGC(fn func()) (stop func()) {
	type sentinel struct{ _ [32]byte } // not a tiny allocation, whose finalizer may never run
	var stopped atomic.Bool
	var arm func()
	arm = func() {
		runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
			if stopped.Load() {
				return
			}
			fn()
			arm()
		})
	}
	arm()
	return func() { stopped.Store(true) }
}

// startPause is the longest the collector's pacing waits at the start.
const startPause = time.Second

// pauseCollector turns off the collector's pacing (GOGC) until the
// returned resume is called or d has passed, whichever comes first, then
// puts back what it was. The soft limit (keepMemoryLimit) still holds, so
// the heap cannot pass it meanwhile; only the small heap goals of a young
// process go. A restart on 10,000 sessions grows the heap from 4 to 12 MB
// while it reads its listing, and paced from 4 MB it ran three
// collections in its first 110 ms, ~20 ms of CPU on two cores: its first
// page came 6% later. The server resumes as it starts serving: left off
// through its first pages, the heap ran up to the soft limit and was the
// run's peak (docs/PERFORMANCE.md, "The collector at the start").
func pauseCollector(d time.Duration) (resume func()) {
	was := debug.SetGCPercent(-1)
	resume = sync.OnceFunc(func() { debug.SetGCPercent(was) })
	time.AfterFunc(d, resume)
	return resume
}
