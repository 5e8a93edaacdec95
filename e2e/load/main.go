// Command load measures a whole myco server under a realistic profile: it
// writes a profile of many sessions straight to disk (docs/FORMAT.md),
// points the anthropic provider at an in-process fakellm, starts a built
// myco binary on it and measures startup, page and API latencies, chat
// turns over the event stream, concurrent turns and the process's memory.
// It prints a Markdown table for docs/PERFORMANCE.md.
//
//	go build -o bin/myco ./cmd/myco && go run ./e2e/load --myco bin/myco
//
// myco is a black box here: the script talks to it over HTTP and reads
// /proc, as a person's browser and tools would.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// config is the command line.
type config struct {
	myco       string
	sessions   int
	requests   int
	clients    int
	turns      int
	concurrent int
	words      int
	delay      time.Duration
	query      string
	keep       bool
	verbose    bool
	timeout    time.Duration
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "load: %v\n", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.myco, "myco", "", "path of a built myco binary (required)")
	fs.IntVar(&c.sessions, "sessions", 10000, "sessions in the generated profile")
	fs.IntVar(&c.requests, "requests", 200, "requests per latency measurement")
	fs.IntVar(&c.clients, "clients", 4, "concurrent clients for the throughput measurement")
	fs.IntVar(&c.turns, "turns", 20, "sequential chat turns")
	fs.IntVar(&c.concurrent, "concurrent", 20, "sessions streaming a turn at once")
	fs.IntVar(&c.words, "words", 500, "words the fake model answers per turn ([[text:N]])")
	fs.DurationVar(&c.delay, "delay", time.Millisecond, "fake model's wait between deltas ([[delay:D]])")
	fs.StringVar(&c.query, "query", "flaky", "search query for /partials/sessions")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary MYCO_HOME (its path is printed)")
	fs.BoolVar(&c.verbose, "verbose", false, "log each sequential turn's timings to stderr")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Minute, "give up on the whole run after this long")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, errUsage
	}
	switch {
	case c.myco == "":
		fmt.Fprintln(stderr, "load: --myco PATH is required (build it first: go build -o bin/myco ./cmd/myco)")
		return c, errUsage
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "load: unexpected arguments %q\n", fs.Args())
		return c, errUsage
	case c.sessions < 1 || c.requests < 1 || c.clients < 1 || c.turns < 1 || c.concurrent < 1 || c.words < 1:
		fmt.Fprintln(stderr, "load: --sessions, --requests, --clients, --turns, --concurrent and --words must be positive")
		return c, errUsage
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	// myco runs in a folder of its own: a relative path must not follow it.
	if cfg.myco, err = filepath.Abs(cfg.myco); err != nil {
		return fmt.Errorf("--myco: %w", err)
	}
	if _, err := os.Stat(cfg.myco); err != nil {
		return fmt.Errorf("--myco: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	home, err := os.MkdirTemp("", "myco-load-")
	if err != nil {
		return err
	}
	if cfg.keep {
		fmt.Fprintf(stderr, "load: MYCO_HOME kept at %s\n", home)
	} else {
		defer os.RemoveAll(home)
	}
	r := &report{}
	runErr := measure(ctx, cfg, home, r, stderr)
	r.print(stdout)
	if runErr != nil {
		return runErr
	}
	if len(r.failures) > 0 {
		return fmt.Errorf("%d check(s) failed", len(r.failures))
	}
	return nil
}

// progress logs what the run is doing, so a slow phase is visible.
func progress(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "load: "+format+"\n", args...)
}
