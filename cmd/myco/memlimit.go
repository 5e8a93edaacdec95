package main

// defaultMemoryLimit is the soft limit myco gives the Go runtime when
// GOMEMLIMIT does not set one. Without it the heap may grow to twice what
// is live before the collector runs (GOGC=100), and a burst of work (20
// turns streaming at once) leaves the process holding that headroom; the
// kernel counts it in the resident set as long as it is mapped. With the
// limit the collector runs sooner once the runtime's memory nears 40 MiB,
// which a desktop app idling beside a browser should not exceed; in issue
// 21's load run the peak fell from ~93 to ~66 MB (docs/PERFORMANCE.md,
// "Issue 21: memory and turn overhead", with the CPU it costs).
//
// It is soft: a session whose live heap needs more gets more, and the
// runtime caps the collector at about half the CPU then, rather than
// failing. Its price is more collections once the heap is near the limit.
const defaultMemoryLimit = 40 << 20

// memoryLimit is the soft limit to set, and whether to set one: none when
// GOMEMLIMIT is set, which the runtime has read already (even "off").
func memoryLimit(getenv func(string) string) (int64, bool) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, false
	}
	return defaultMemoryLimit, true
}
