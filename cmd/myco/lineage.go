package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"myco/session"
)

// forkSession copies a session's history, its first keepTurns turns of
// the latest thread (all of them when keepTurns < 0), into a new session.
func forkSession(e env, profile, prefix string, keepTurns int) error {
	st, id, err := openSession(e, profile, prefix)
	if err != nil {
		return err
	}
	if keepTurns < 0 {
		doc, err := st.sessions.Load(id)
		if err != nil {
			return err
		}
		keepTurns = doc.Turns()
	}
	fork, err := st.sessions.Fork(id, session.ForkOptions{ByTurns: true, KeepTurns: keepTurns})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "forked %s into %s (%d messages)\n", id, fork.ID, fork.MessageCount())
	return nil
}

// errNotConfirmed is a delete the person did not confirm.
var errNotConfirmed = errors.New("not deleted")

// deleteSession deletes an archived session for good, after asking on a
// terminal; a script passes --yes (without it, a delete that cannot ask
// is refused rather than taken for a yes).
func deleteSession(e env, profile, prefix string, yes bool) error {
	st, id, err := openSession(e, profile, prefix)
	if err != nil {
		return err
	}
	if !yes {
		if !isTerminal(e.stdin) {
			return fmt.Errorf("delete session %s: cannot ask for confirmation (stdin is not a terminal): pass --yes", id)
		}
		sum, err := st.sessions.Header(id)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "Delete session %s %q (%d messages) for good? [y/N] ", id, orDash(sum.Title), sum.Messages)
		if !confirmed(e.stdin) {
			return fmt.Errorf("%w: session %s", errNotConfirmed, id)
		}
	}
	if err := st.sessions.Delete(id); err != nil {
		return err
	}
	// Its snapshots go with it; the file contents they shared with other
	// sessions stay until a collection finds them unused.
	if err := openSnapshots(st.profile).DeleteSession(id); err != nil {
		return fmt.Errorf("deleted %s, but not its snapshots: %w", id, err)
	}
	fmt.Fprintf(e.stdout, "deleted %s and its snapshots (its images stay until `myco images gc`)\n", id)
	return nil
}

// isTerminal reports whether r is a terminal a person can answer on.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// confirmed reads one line and reports whether it says yes.
func confirmed(r io.Reader) bool {
	line, _ := bufio.NewReader(r).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}
