package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// runToFile runs every measured entry with go test, -count times, and
// writes their output to path after head, each entry's as it ends (an
// interrupted run keeps what it measured). An entry whose go test fails
// is reported on stderr and named in failed; the others still run.
func runToFile(ctx context.Context, list []entry, count int, path string, head []byte, stderr io.Writer) (failed []string, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Write(head); err != nil {
		return nil, err
	}
	for _, e := range list {
		if !e.measured() {
			continue
		}
		fmt.Fprintf(stderr, "bench: %s: %s %s\n", e.row, e.pkg, e.regex)
		start := time.Now()
		var out bytes.Buffer
		err := goTest(ctx, e, count, &out, stderr)
		if _, werr := f.Write(out.Bytes()); werr != nil {
			return nil, werr
		}
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			fmt.Fprintf(stderr, "bench: %s: %s %s failed: %v\n", e.row, e.pkg, e.regex, err)
			failed = append(failed, e.row)
		default:
			fmt.Fprintf(stderr, "bench: %s: done in %s\n", e.row, time.Since(start).Round(time.Second))
		}
	}
	return failed, f.Close()
}

// goTest runs one entry's benchmarks, appending their output to out. Its
// own flags come after the common ones, so they win (-count=3).
func goTest(ctx context.Context, e entry, count int, out *bytes.Buffer, stderr io.Writer) error {
	args := []string{"test", "-run", "^$", "-bench", e.regex, "-benchmem",
		"-count", strconv.Itoa(count), "-timeout", "30m"}
	args = append(append(args, e.flags...), e.pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = append(os.Environ(), e.env...)
	var got bytes.Buffer
	cmd.Stdout, cmd.Stderr = &got, stderr
	err := cmd.Run()
	// Only the result and config lines: PASS and ok lines are noise to
	// benchstat, a failure's log goes to stderr.
	for line := range strings.Lines(got.String()) {
		if strings.HasPrefix(line, "Benchmark") || isConfig(line) {
			out.WriteString(line)
		} else if err != nil {
			io.WriteString(stderr, line)
		}
	}
	return err
}

// isConfig reports whether line is a benchmark configuration line
// ("pkg: myco/server") as go test prints them.
func isConfig(line string) bool {
	k, _, ok := strings.Cut(line, ": ")
	return ok && k != "" && !strings.ContainsAny(k, " \t") && k == strings.ToLower(k)
}

// benchstat runs the pinned benchstat (tools/go.mod) on the baseline and
// the new run. The cpu line is ignored, so that a baseline taken on the
// quiet machine compares with a run elsewhere (read such a comparison's
// ratios with care: it is two machines).
func benchstat(ctx context.Context, format, base, run string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", "tool", "-modfile=tools/go.mod", "benchstat",
		"-ignore", "cpu", "-format", format, "base="+base, "new="+run)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("benchstat: %w\n%s", err, stderr.Bytes())
	}
	return out, nil
}

// header is the baseline's first lines: where, when and from what it was
// taken. benchstat ignores lines starting with #.
func header(ctx context.Context) []byte {
	commit := "unknown"
	if out, err := exec.CommandContext(ctx, "git", "describe", "--always", "--dirty").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
	}
	load, _ := os.ReadFile("/proc/loadavg")
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Baseline of task bench:compare (bench/benchmarks.txt), written by task bench:baseline.\n")
	fmt.Fprintf(&b, "# date: %s\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, "# commit: %s\n", commit)
	fmt.Fprintf(&b, "# machine: %s, %d CPUs, %s/%s, %s\n", cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Fprintf(&b, "# load average at start: %s\n", strings.TrimSpace(string(load)))
	return b.Bytes()
}

func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for line := range strings.Lines(string(data)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
