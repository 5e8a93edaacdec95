// Command fakellm runs the fake model server for the browser tests:
//
//	fakellm --addr 127.0.0.1:0 [--min-cache-tokens 1024]
//
// It prints "fakellm listening on http://127.0.0.1:PORT" once it accepts
// connections, and runs until interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"myco/e2e/fakellm"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", "127.0.0.1:0", "address to listen on")
	minCache := flags.Int("min-cache-tokens", 1024, "shortest Anthropic prefix the simulated prompt cache keeps")
	if err := flags.Parse(args); err != nil {
		return err
	}
	s, err := fakellm.Listen(*addr, fakellm.MinCacheTokens(*minCache))
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintf(stdout, "fakellm listening on %s\n", s.URL)
	<-ctx.Done()
	return nil
}
