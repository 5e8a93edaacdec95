package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"myco/e2e/internal/mycotest"
)

// report collects the figures of a run and prints them as Markdown.
type report struct {
	fixture  fixture
	rows     []row
	samples  []sample
	failures []string
	peak     int64
	resident residentPeak // of the two servers on the 10,000-session profile
}

type row struct {
	group, what, figure, detail, target string
}

// sample is the process's resources at one point of the run.
type sample struct {
	when string
	st   procStatus
	cpu  time.Duration
}

func (r *report) add(group, what, figure, detail string) {
	r.rows = append(r.rows, row{group: group, what: what, figure: figure, detail: detail})
}

// target adds a row with a target: got is the figure the target is
// checked against.
func (r *report) target(group, what, figure, detail string, limit, got time.Duration) {
	verdict := "met"
	if got >= limit {
		verdict = "**missed**"
	}
	r.rows = append(r.rows, row{group: group, what: what, figure: figure, detail: detail,
		target: fmt.Sprintf("< %s: %s", limit, verdict)})
}

func (r *report) fail(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

// sample reads myco's /proc entries; a failure to read them is a failure
// of the run (myco has died).
func (r *report) sample(when string, m *mycotest.Server) {
	st, err := readProc(m.PID())
	if err != nil {
		r.fail("read /proc of myco %s: %v", when, err)
		return
	}
	cpu, _ := cpuTime(m.PID())
	r.samples = append(r.samples, sample{when: when, st: st, cpu: cpu})
	r.peak = max(r.peak, st.hwm)
}

// idleCPU measures the CPU myco uses while nothing is asked of it (its
// file watcher and heartbeats only).
func (r *report) idleCPU(m *mycotest.Server, d time.Duration) {
	before, err := cpuTime(m.PID())
	if err != nil {
		r.fail("read myco's CPU time: %v", err)
		return
	}
	time.Sleep(d) // nothing to wait on: idling is what is measured
	after, err := cpuTime(m.PID())
	if err != nil {
		r.fail("read myco's CPU time: %v", err)
		return
	}
	r.add("process", fmt.Sprintf("CPU while idle for %s", d), ms(after-before), "user + system, 10 ms ticks")
}

func (r *report) print(w io.Writer) {
	if len(r.rows) == 0 && len(r.failures) == 0 {
		return // the run failed before measuring anything
	}
	fx := r.fixture
	fmt.Fprintf(w, "\nmyco load: %d sessions (%s of documents, written in %s), %d CPUs, %s\n\n",
		fx.sessions, mb(fx.bytes), ms(fx.took), runtime.NumCPU(), time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintln(w, "| group | measurement | figure | detail | target |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for _, rw := range r.rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", rw.group, cell(rw.what), rw.figure, cell(rw.detail), rw.target)
	}
	r.printMemory(w)
	if len(r.failures) > 0 {
		fmt.Fprintln(w, "\nFailed checks:")
		for _, f := range r.failures {
			fmt.Fprintf(w, "- %s\n", f)
		}
	}
}

func (r *report) printMemory(w io.Writer) {
	if len(r.samples) == 0 {
		return
	}
	fmt.Fprintln(w, "\n| myco process | RSS | peak RSS (VmHWM) | threads | open fds | CPU used |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
	for _, s := range r.samples {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %s |\n", s.when, mb(s.st.rss), mb(s.st.hwm), s.st.threads, s.st.fds, ms(s.cpu))
	}
	verdict := "met"
	if r.peak >= targetRSS {
		verdict = "**missed**"
	}
	fmt.Fprintf(w, "\nPeak RSS %s; target < %s: %s\n", mb(r.peak), mb(targetRSS), verdict)
	fmt.Fprintf(w, "Of it, at their own peaks: anonymous (heap, stacks, runtime) %s, the binary's file-backed pages %s\n",
		mb(r.resident.anon.Load()), mb(r.resident.file.Load()))
}

// cell escapes the pipes of a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case f < 10:
		return fmt.Sprintf("%.2f ms", f)
	case f < 1000:
		return fmt.Sprintf("%.1f ms", f)
	}
	return fmt.Sprintf("%.2f s", f/1000)
}

func ms2(a, b time.Duration) string { return ms(a) + " / " + ms(b) }

func ms3(a, b, c time.Duration) string { return ms(a) + " / " + ms(b) + " / " + ms(c) }

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

func kb(n int) string { return fmt.Sprintf("%.0f KB", float64(n)/(1<<10)) }
