// Command myco is a local app for working with an LLM agent from a browser
// tab. See README.md; `myco --help` lists the commands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// Before anything else, and here rather than in run, which the tests
	// call in process: it is the whole process that hides its secrets
	// (secrets_linux.go).
	if err := hideSecrets(); err != nil {
		fmt.Fprintf(os.Stderr, "myco: warning: %v\n", err)
	}
	// The process's memory, like its secrets: main's, not run's.
	e := env{getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	if managesMemoryLimit(os.Getenv) {
		keepMemoryLimit() // for the life of the process
	}
	if pausesCollectorAtStart(os.Getenv) {
		e.started = pauseCollector(startPause)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := runIn(ctx, e, os.Args[1:])
	stop()
	os.Exit(exitCode(err, os.Stderr))
}
