package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"myco/profiles"
	"myco/session"
)

// maxPromptInput bounds a prompt read from standard input.
const maxPromptInput = 1 << 20

// runOptions are `myco run`'s command line.
type runOptions struct {
	profile, session, forkFrom, model, name string
	keepTurns                               int
	asJSON                                  bool
	plan                                    bool     // start (or go on) in plan mode
	allow                                   []string // approval kinds: bash, edit, memory, web_fetch, lsp_diagnostics
	prompt                                  string
}

// allowKinds are what --allow may name: the kinds of approval settings
// have (approvals.bash, approvals.edit, approvals.memory, web_fetch.allowed_hosts).
var allowKinds = []string{"bash", "edit", "memory", "web_fetch", "lsp_diagnostics"}

// runCommand runs one turn headless: `myco run [flags] PROMPT`. It goes
// through the profile's running server, so open tabs see the turn live;
// with none, it starts the server in this process for the turn (the same
// server, lock and address as `myco`), and stops it after.
func runCommand(ctx context.Context, e env, profile string, args []string) error {
	opts, err := parseRun(e, profile, args)
	if err != nil {
		return err
	}
	st, err := openStores(e, opts.profile, true)
	if err != nil {
		return err
	}
	r := &headlessRun{e: e, opts: opts}
	for attempt := 1; ; attempt++ {
		info, done, err := connect(ctx, e, st)
		if err != nil {
			return err
		}
		r.api, r.local = newAPIClient(info), done != nil
		err = r.run(ctx)
		if done != nil {
			if derr := done(); derr != nil && err == nil {
				err = derr
			}
		}
		// A server another run started stops once no turn runs in it: one
		// that stopped before it took the message is no failure of the
		// turn. The run starts again on the profile's server, found or
		// started anew, in the session it had made already.
		var gone *serverGone
		if !errors.As(err, &gone) || attempt == maxAttempts {
			return err
		}
	}
}

// maxAttempts bounds how often a run starts again on another server.
const maxAttempts = 3

// parseRun reads the command line; a bad one is errUsage (exit 2).
func parseRun(e env, profile string, args []string) (runOptions, error) {
	fs := newFlagSet("myco run", e.stderr)
	opts := runOptions{profile: profile}
	fs.StringVar(&opts.profile, "profile", profile, "profile name")
	fs.StringVar(&opts.session, "session", "", "continue this session (an ID, its start, a name or @last)")
	fs.StringVar(&opts.forkFrom, "fork-from", "", "fork this session first and run in the fork")
	fs.IntVar(&opts.keepTurns, "keep-turns", -1, "with --fork-from: keep the first N turns (default: all)")
	fs.StringVar(&opts.model, "model", "", "the model (provider/model-id)")
	fs.BoolVar(&opts.asJSON, "json", false, "print each event as one JSON object a line")
	fs.StringVar(&opts.name, "n", "", "name the session (the name moves from any session that had it)")
	fs.BoolVar(&opts.plan, "plan", false, "plan mode: the agent reads and writes a plan, changes nothing")
	allow := fs.String("allow", "", "approve these kinds of tool call once each: bash, edit, memory, web_fetch, lsp_diagnostics (comma-separated)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return opts, err
	}
	bad := func(format string, a ...any) (runOptions, error) {
		fmt.Fprintf(e.stderr, "myco run: "+format+"\n\n%s", append(a, usage)...)
		return opts, errUsage
	}
	switch {
	case len(pos) > 1:
		return bad("expected one PROMPT (quote it), got %d arguments", len(pos))
	case opts.session != "" && opts.forkFrom != "":
		return bad("--session and --fork-from do not go together")
	case opts.keepTurns != -1 && opts.forkFrom == "":
		return bad("--keep-turns needs --fork-from")
	case opts.keepTurns < -1:
		return bad("--keep-turns must be 0 or more")
	}
	if err := session.ValidateName(opts.name); err != nil {
		return bad("-n: %v", err)
	}
	for k := range strings.SplitSeq(*allow, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if !slices.Contains(allowKinds, k) {
			return bad("--allow %q: say bash, edit, memory, web_fetch or lsp_diagnostics, or several (bash,edit)", k)
		}
		opts.allow = append(opts.allow, k)
	}
	if len(pos) == 1 {
		opts.prompt = pos[0]
	} else if e.stdin != nil && !isTerminal(e.stdin) {
		// A terminal would wait for a prompt the person did not mean to
		// type there: without PROMPT it is a bad command line.
		data, err := io.ReadAll(io.LimitReader(e.stdin, maxPromptInput+1))
		if err != nil {
			return opts, fmt.Errorf("read the prompt from standard input: %w", err)
		}
		if len(data) > maxPromptInput {
			return opts, fmt.Errorf("the prompt on standard input is longer than %d bytes", maxPromptInput)
		}
		opts.prompt = string(data)
	}
	if strings.TrimSpace(opts.prompt) == "" {
		return bad("the prompt is empty: give it as PROMPT or on standard input")
	}
	return opts, nil
}

// connect finds the profile's running server, or starts it in this process
// when there is none. done, nil for a server another process runs, lets
// go of the one started here: it stops once no turn runs in it, and the
// profile's lock and server.json go with it.
func connect(ctx context.Context, e env, st *stores) (profiles.ServerInfo, func() error, error) {
	// Two runs that start together: one takes the lock and serves, the
	// other waits until that one answers. A server that is stopping holds
	// the lock a moment more without answering: wait for it to let go.
	deadline := time.Now().Add(15 * time.Second)
	lock := profileLock(st.profile)
	for {
		if info, ok := liveServer(st.profile); ok && answers(info) {
			return info, nil, nil
		}
		locked, err := lock.TryLock()
		if err != nil {
			return profiles.ServerInfo{}, nil, fmt.Errorf("lock profile %q: %w", st.profile.Name, err)
		}
		if locked {
			return startHere(ctx, e, st, func() { lock.Unlock() })
		}
		if time.Now().After(deadline) {
			return profiles.ServerInfo{}, nil, fmt.Errorf("another myco holds profile %q but does not answer", st.profile.Name)
		}
		select {
		case <-ctx.Done():
			return profiles.ServerInfo{}, nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// startHere serves the profile in this process, whose lock is held, for
// the run: unlock lets the lock go once the server has stopped.
func startHere(ctx context.Context, e env, st *stores, unlock func()) (profiles.ServerInfo, func() error, error) {
	settings, err := profiles.LoadLiveSettings(st.profile.SettingsPath(), e.getenv)
	if err != nil {
		unlock()
		return profiles.ServerInfo{}, nil, err
	}
	warnings, _ := settings.Problems()
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "myco: warning: %s\n", w)
	}
	ready := make(chan profiles.ServerInfo, 1)
	release := make(chan struct{})
	served := make(chan error, 1)
	quiet := env{getenv: e.getenv, stdout: io.Discard, stderr: e.stderr}
	h := &headless{ready: func(info profiles.ServerInfo) { ready <- info }, release: release}
	// The server outlives a Ctrl-C until the run has stopped its turn
	// through it; then it stops at once, without waiting for other turns.
	srvCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		err := serveLocked(srvCtx, quiet, st, settings, "/", serveOptions{profile: st.profile.Name, noOpen: true, headless: h}, nil)
		unlock()
		served <- err
	}()
	select {
	case info := <-ready:
		done := func() error {
			close(release)
			select {
			case err := <-served:
				cancel()
				return err
			case <-ctx.Done():
			}
			cancel()
			return <-served
		}
		return info, done, nil
	case err := <-served:
		cancel()
		if err == nil {
			err = errors.New("the server stopped before it served")
		}
		return profiles.ServerInfo{}, nil, err
	}
}
