package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// errUsage marks a command line that could not be understood; the usage text
// has been printed already.
var errUsage = errors.New("usage")

// exitCode prints err as one line and turns it into the process's status:
// 0 success, 2 a bad command line, 1 anything else.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, flag.ErrHelp):
		return 0
	default:
		fmt.Fprintf(stderr, "myco: %s\n", oneLine(err.Error()))
		return 1
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// env is what every command needs from the world outside.
type env struct {
	getenv         func(string) string
	stdin          io.Reader // answers to a question (a delete asks on a terminal)
	stdout, stderr io.Writer
	// started, if set, is called once the server serves (its URL line
	// written): main ends the collector's start pause with it.
	started func()
}

const usage = `myco - work with an LLM agent from a browser tab

Usage:
  myco [--profile P] [--addr 127.0.0.1:0] [--no-open]   start (or reuse) the server, on its last address, and open the home page
  myco [--profile P] --resume ID                        open a session's page (an ID prefix is enough)
  myco sessions list [--archived] [--json]              list sessions, newest first, with their names (damaged ones too)
  myco sessions show ID [--json]                        print a session, its old transcripts too (or its document as JSON)
  myco sessions search WORDS [--json]                   find words in messages, scratchpads and old transcripts
  myco sessions title ID TITLE                          rename a session (open tabs update live)
  myco sessions archive ID…                             move sessions into the archive
  myco sessions restore ID…                             bring archived sessions back
  myco sessions fork ID [--keep-turns N]                copy a session's history (its first N turns) into a new session
  myco sessions delete ID… [--yes]                      delete archived sessions for good (asks for each on a terminal)
  myco sessions compact ID [--focus TEXT]               compact a session now: a summary and recent context in a new thread
  myco sessions export ID --format md|json|html [-o FILE]  write a session as Markdown, JSON or one HTML page (never over a file; -o - for stdout)
  myco send [--from NAME] ID [TEXT]                     leave a note for a session (TEXT or standard input); the agent gets it with the next message
  myco mcp                                              serve the profile's sessions over stdio as an MCP server (list, search, read, send a note)
  myco run [--session ID | --fork-from ID [--keep-turns N]] [--model M] [-n NAME] [--plan] [--json] [--allow bash,edit] [PROMPT]
                                                        run one turn headless (PROMPT or standard input), in a new session unless
                                                        --session or --fork-from says otherwise: the answer on stdout, tool
                                                        activity on stderr (--json: one event a line); -n names the session; --plan
                                                        runs it in plan mode (a plan, no changes);
                                                        a tool call settings would ask about fails the run unless --allow names it
  myco schedule add [--session new|ID] [--deliver-to ID] [--model M] [--missed run_once|skip] [--disabled] NAME WHEN PROMPT
                                                        run PROMPT on a clock: WHEN is five cron fields ("0 9 * * 1-5", local time) or "@every 30m"
  myco schedule list [--json]                           schedules with their next and last run
  myco schedule rm ID                                   remove a schedule (an ID prefix or its name is enough)
  myco schedule run-now ID                              run a schedule at once (needs the running myco)
  myco schedule history ID [--json]                     a schedule's runs, newest first: outcome, session, tokens
  myco import claude-code|codex|opencode [--json] [PATH...]
                                                        bring another agent's sessions into the profile (default: the tool's
                                                        own folder); one imported before is not imported again
  myco images verify                                    check every stored image against its SHA-256, and that every image a session shows is stored
  myco images gc [--dry-run]                            remove images no session refers to
  myco snapshots du                                     how much room undo's snapshots take, and what gc would free
  myco snapshots gc [--dry-run]                         remove snapshots of deleted sessions and file contents no snapshot needs

An ID can be its first characters, a session's name (myco run -n NAME), or
@last for the most recently active session. Every command takes --profile P
(default "default"). Data lives in $MYCO_HOME, else $XDG_DATA_HOME/myco, else
~/.local/share/myco.

Exit status: 0 on success, 1 on failure (one line on stderr says why; for
myco run, a turn that did not end with an answer), 2 on a bad command line.
`

// run is the whole program: main only wires the process to it.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runIn(ctx, env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}, args)
}

// runIn is run in e.
func runIn(ctx context.Context, e env, args []string) error {
	stderr := e.stderr
	fs := newFlagSet("myco", stderr)
	profile := fs.String("profile", "", "profile name (default \"default\")")
	addr := fs.String("addr", "", "address to listen on (loopback only; default: the profile's last one, else 127.0.0.1:0)")
	noOpen := fs.Bool("no-open", false, "print the URL instead of opening a browser")
	resume := fs.String("resume", "", "open this session (an ID prefix is enough)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return serve(ctx, e, serveOptions{profile: *profile, addr: *addr, noOpen: *noOpen, resume: *resume})
	}
	switch rest[0] {
	case "sessions":
		return sessionsCommand(ctx, e, *profile, rest[1:])
	case "images":
		return imagesCommand(ctx, e, *profile, rest[1:])
	case "snapshots":
		return snapshotsCommand(ctx, e, *profile, rest[1:])
	case "send":
		return sendCommand(ctx, e, *profile, rest[1:])
	case "mcp":
		return mcpCommand(ctx, e, *profile, rest[1:])
	case "run":
		return runCommand(ctx, e, *profile, rest[1:])
	case "schedule":
		return scheduleCommand(ctx, e, *profile, rest[1:])
	case "import":
		return importCommand(ctx, e, *profile, rest[1:])
	case "help":
		fmt.Fprint(e.stdout, usage)
		return nil
	default:
		fmt.Fprintf(stderr, "myco: unknown command %q\n\n%s", rest[0], usage)
		return errUsage
	}
}

// newFlagSet makes a flag set that reports errors instead of exiting and
// prints the one usage text.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	return fs
}

// parseInterspersed parses flags that may come before or after positional
// arguments (`show ID --json` as well as `show --json ID`) and returns the
// positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// wantArgs checks the number of positional arguments of a subcommand.
func wantArgs(e env, cmd string, got []string, n int) error {
	if len(got) == n {
		return nil
	}
	fmt.Fprintf(e.stderr, "myco %s: expected %d argument(s), got %d\n\n%s", cmd, n, len(got), usage)
	return errUsage
}
