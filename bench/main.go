// Command bench runs the benchmarks behind each row of issue 21's table
// (bench/benchmarks.txt, the one list of them) and compares them with the
// committed baseline (bench/baseline.txt) using benchstat: it prints
// benchstat's tables, then one line per row that got worse, and the rows
// that have no benchmark yet. It is a report: a worse row never fails it,
// since a shared machine's noise would.
//
//	go run ./bench compare [-count 6] [-rows burst,turn-500] [-min 5]
//	go run ./bench compare -new bench/new.txt   # compare a run again
//	go run ./bench baseline [-count 6]          # write bench/baseline.txt
//
// Run it from the repository's root (task bench:compare does).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

const (
	listPath     = "bench/benchmarks.txt"
	baselinePath = "bench/baseline.txt"
	newPath      = "bench/new.txt" // the last compare's run (not committed)
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		}
		os.Exit(2)
	}
}

// options are the command line of both commands.
type options struct {
	count  int
	rows   string  // comma-separated rows to run; all when empty
	min    float64 // percent below which a worse figure is not reported
	newRun string  // compare this run instead of running the benchmarks
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "compare" && args[0] != "baseline") {
		fmt.Fprintln(stderr, "usage: bench compare|baseline [flags]")
		return flag.ErrHelp
	}
	var o options
	fs := flag.NewFlagSet("bench "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.count, "count", 6, "runs of each benchmark (benchstat wants 6 or more)")
	fs.StringVar(&o.rows, "rows", "", "only these rows, comma-separated (e.g. burst,turn-500)")
	fs.Float64Var(&o.min, "min", 5, "report a row as worse only when a figure grew by at least this many percent")
	fs.StringVar(&o.newRun, "new", "", "compare this file of go test -bench output instead of running the benchmarks")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if args[0] == "baseline" && (o.rows != "" || o.newRun != "") {
		// A baseline of some rows would drop the others' figures.
		return errors.New("bench baseline takes every row: no -rows or -new")
	}
	list, err := loadList(o.rows)
	if err != nil {
		return err
	}
	if args[0] == "baseline" {
		return writeBaseline(ctx, list, o, stderr)
	}
	return compare(ctx, list, o, stdout, stderr)
}

// loadList reads benchmarks.txt, keeping only the rows named (all when
// rows is empty).
func loadList(rows string) ([]entry, error) {
	f, err := os.Open(listPath)
	if err != nil {
		return nil, fmt.Errorf("%w (run from the repository's root)", err)
	}
	defer f.Close()
	list, err := readList(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", listPath, err)
	}
	if rows == "" {
		return list, nil
	}
	want := strings.Split(rows, ",")
	var out []entry
	for _, e := range list {
		for _, w := range want {
			if e.row == strings.TrimSpace(w) {
				out = append(out, e)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no row of %s is named %q", listPath, rows)
	}
	return out, nil
}

// compare runs the benchmarks (or takes o.newRun), then prints benchstat's
// tables against the baseline and the summary.
func compare(ctx context.Context, list []entry, o options, stdout, stderr io.Writer) error {
	path := o.newRun
	var failed []string
	if path == "" {
		path = newPath
		var err error
		if failed, err = runToFile(ctx, list, o.count, path, nil, stderr); err != nil {
			return err
		}
	}
	table, err := benchstat(ctx, "text", baselinePath, path)
	if err != nil {
		return err
	}
	stdout.Write(table)
	data, err := benchstat(ctx, "csv", baselinePath, path)
	if err != nil {
		return err
	}
	changes, err := parseChanges(data)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	summarize(stdout, list, changes, failed, o.min)
	return nil
}

// writeBaseline runs the benchmarks into bench/baseline.txt, under a
// header that says where and when.
func writeBaseline(ctx context.Context, list []entry, o options, stderr io.Writer) error {
	failed, err := runToFile(ctx, list, o.count, baselinePath, header(ctx), stderr)
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("the baseline lacks rows whose benchmarks failed: %s", strings.Join(failed, ", "))
	}
	fmt.Fprintf(stderr, "bench: wrote %s; commit it with why it changed\n", baselinePath)
	return nil
}
