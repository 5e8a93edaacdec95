package main

// defaultMemoryLimit is the soft limit myco gives the Go runtime when
// GOMEMLIMIT does not set one. Without it the heap may grow to twice what
// is live before the collector runs (GOGC=100), and a burst of work (20
// turns streaming at once) leaves the process holding that headroom; the
// kernel counts it in the resident set as long as it is mapped. With the
// limit the collector runs sooner once the runtime's memory nears 32 MiB,
// which a desktop app idling beside a browser should not exceed.
//
// In issue 21's load run (docs/PERFORMANCE.md, "the peak in two parts")
// the peak was ~93 MB without a limit, 64 MB with 40 MiB and 57 MB with
// 32 MiB, once the live heap of 10,000 listed sessions came down to
// 13-16 MB. 32 MiB costs the 20 concurrent turns of that run ~15% more
// CPU (500 words each, the fake model streaming with no delay); a turn
// alone costs the same. Below ~28 MiB the collector runs all the time.
//
// It is soft: a session whose live heap needs more gets more, and the
// runtime caps the collector at about half the CPU then, rather than
// failing. Its price is more collections once the heap is near the limit.
const defaultMemoryLimit = 32 << 20

// memoryLimit is the soft limit to set, and whether to set one: none when
// GOMEMLIMIT is set, which the runtime has read already (even "off").
func memoryLimit(getenv func(string) string) (int64, bool) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, false
	}
	return defaultMemoryLimit, true
}
