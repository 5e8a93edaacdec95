package main

import (
	"io"
	"testing"
	"time"
)

// BenchmarkPeakMemory is issue 21's row "peak memory (VmHWM)": a whole
// load run (every phase of task load: an empty profile's start, 10,000
// sessions written, myco started on them, the home page, search and the
// JSON list sequential and with 4 clients, turns in one session, 20
// concurrent turns, idle, SIGTERM) against a built myco, with fewer
// requests than task load makes so that one run takes seconds. peak-MiB
// is myco's VmHWM at the end of the run: the most it held resident at any
// point. The target is under 50 MiB. Run it with -benchtime 1x: one
// iteration is a whole run. peak-anon-MiB and peak-file-MiB are its two
// parts, each at its own peak: what myco allocates, and what the kernel
// maps of the binary (read from disk: the run evicts it from the page
// cache first, see evictBinary).
//
// myco is built from this tree once per test binary (mycoBin, as the
// start-up rows build it), or MYCO_BENCH_BIN names a binary built already.
func BenchmarkPeakMemory(b *testing.B) {
	bin := mycoBin(b)
	cfg := config{
		myco: bin, sessions: 10000, requests: 40, clients: 4, turns: 5,
		concurrent: 20, words: 500, delay: 0, query: "flaky", timeout: 5 * time.Minute,
	}
	var peak, anon, file int64
	for b.Loop() {
		r := &report{}
		if err := measure(b.Context(), cfg, b.TempDir(), r, io.Discard); err != nil {
			b.Fatal(err)
		}
		if len(r.failures) > 0 {
			b.Fatalf("load run failed its checks: %q", r.failures)
		}
		peak = max(peak, r.peak)
		anon = max(anon, r.resident.anon.Load())
		file = max(file, r.resident.file.Load())
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	b.ReportMetric(float64(anon)/(1<<20), "peak-anon-MiB")
	b.ReportMetric(float64(file)/(1<<20), "peak-file-MiB")
}
