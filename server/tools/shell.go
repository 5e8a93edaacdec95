// Package tools implements the agent's tools: the persistent shell behind
// `bash`, and the pure parts of `session_history` and `session_meta`.
package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits of a command run in a shell.
const (
	DefaultTimeout   = 120 * time.Second
	MaxTimeout       = 600 * time.Second
	DefaultMaxOutput = 30000 // bytes of output kept per command
	minMaxOutput     = 1000
)

// How a timed out or stopped command is ended: the shell is told to drop
// it and its processes are killed, every killInterval until the shell
// reports back; a shell that does not within killGrace (it cleared the
// stop trap) is replaced. exitDrain is how long output of a shell that
// exited is still read while a background job holds the pipe open.
const (
	killInterval = 100 * time.Millisecond
	killGrace    = 2 * time.Second
	exitDrain    = 500 * time.Millisecond
)

// ErrClosed is returned by Run on a closed shell.
var ErrClosed = errors.New("shell closed")

// RunResult is the outcome of one command.
type RunResult struct {
	Output string // stdout and stderr merged, capped, valid UTF-8
	// ExitCode is the command's status: 124 when a timeout or stop ended
	// it (as with timeout(1)) or 137 when that killed its last process,
	// -1 when the shell had to be replaced before it said.
	ExitCode  int
	TimedOut  bool
	Truncated bool // the middle of Output was cut
	Duration  time.Duration
}

// Shell is the persistent shell of a live session: one bash process (sh
// when there is no bash) in its own process group, fed commands on its
// stdin, so that cd and export carry over from one command to the next.
type Shell struct {
	shell program
	dir   string // the folder it started in, the fallback on restart
	env   []string

	run sync.Mutex // one command at a time

	mu        sync.Mutex // guards the fields below
	p         *proc
	cwd       string
	closed    bool
	maxOutput int
}

// NewShell starts a shell in folder dir with environment env (the
// process's own when nil).
func NewShell(dir string, env []string) (*Shell, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("start shell: %w", err)
	}
	if err := checkDir(dir); err != nil {
		return nil, fmt.Errorf("start shell: %w", err)
	}
	shell, err := findShell()
	if err != nil {
		return nil, fmt.Errorf("start shell: %w", err)
	}
	s := &Shell{shell: shell, dir: dir, env: env, cwd: dir, maxOutput: DefaultMaxOutput}
	if s.p, err = startProc(shell, dir, env); err != nil {
		return nil, fmt.Errorf("start shell: %w", err)
	}
	return s, nil
}

func checkDir(dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("folder %s does not exist: %w", dir, err)
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	}
	return nil
}

// program is the shell to run and how to stop a command in it.
type program struct {
	argv []string
	// prologue runs before every command (and once at start): SIGUSR1
	// then ends the command being sourced with status 124, as timeout(1)
	// does, so that after a timeout the rest of a list (`sleep 30; rm x`)
	// does not run, and a loop the shell runs itself ends without killing
	// the shell. bash's trap also arms a DEBUG trap that returns from every
	// function level in turn; sh returns from the innermost one only.
	prologue string
	// epilogue runs after every command, keeping its status in
	// $__myco_status, and disarms what the trap armed.
	epilogue string
}

// findShell prefers bash without start-up files, so that a person's
// prompt, aliases and traps do not leak into the agent's commands.
func findShell() (program, error) {
	if path, err := exec.LookPath("bash"); err == nil {
		return program{
			argv:     []string{path, "--noprofile", "--norc"},
			prologue: "trap - DEBUG; set +T; trap 'set -T; trap \"return 124 2>/dev/null\" DEBUG; return 124 2>/dev/null' USR1\n",
			epilogue: "__myco_status=$?; trap - DEBUG; set +T\n",
		}, nil
	}
	path, err := exec.LookPath("sh")
	if err != nil {
		return program{}, fmt.Errorf("no bash or sh found: %w", err)
	}
	return program{
		argv:     []string{path},
		prologue: "trap 'return 124 2>/dev/null' USR1\n",
		epilogue: "__myco_status=$?\n",
	}, nil
}

// Cwd is the shell's working folder as of the end of its last command.
func (s *Shell) Cwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cwd
}

// SetMaxOutput sets how many bytes of output a command keeps (at least
// 1000); DefaultMaxOutput until set.
func (s *Shell) SetMaxOutput(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxOutput = max(n, minMaxOutput)
}

// Close kills the shell's whole process group, background jobs included.
// A command running meanwhile returns ErrClosed.
func (s *Shell) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	p := s.p
	s.mu.Unlock()
	p.stop()
	return nil
}

// Run runs command in the shell and waits for it, at most timeout (<= 0
// means DefaultTimeout; more than MaxTimeout is cut to it). On timeout or
// when ctx ends, every process of the shell's group but the shell is
// killed, so the shell keeps its folder and variables; a shell that does
// not come back is replaced by a new one in the same folder. A stopped
// command returns what it printed with an error wrapping ctx's.
func (s *Shell) Run(ctx context.Context, command string, timeout time.Duration) (RunResult, error) {
	return s.RunWithProgress(ctx, command, timeout, nil)
}

// RunWithProgress is Run that also hands the command's output to progress
// as it arrives (from the goroutine that waits for the command), so what a
// command printed is kept even if myco dies before it ends.
func (s *Shell) RunWithProgress(ctx context.Context, command string, timeout time.Duration, progress func([]byte)) (RunResult, error) {
	s.run.Lock()
	defer s.run.Unlock()
	start := time.Now()
	p, limit, notice, err := s.ready()
	if err != nil {
		return RunResult{ExitCode: -1}, err
	}
	token, err := newToken()
	if err != nil {
		return RunResult{ExitCode: -1}, fmt.Errorf("run command: %w", err)
	}
	go writeScript(p.stdin, s.shell.script(command, token))
	out := newCapture(limit)
	out.progress = progress
	r := &runner{s: s, p: p, sent: newSentinel(token), out: out}
	res, err := r.wait(ctx, clampTimeout(timeout))
	res.Output = notice + res.Output
	res.Duration = time.Since(start)
	return res, err
}

// ready returns the shell to run in and the output limit. A shell that
// exited since the last command (something killed it) is replaced, with a
// notice for the output: what the agent set in it is gone.
func (s *Shell) ready() (p *proc, limit int, notice string, err error) {
	s.mu.Lock()
	p, closed, limit := s.p, s.closed, s.maxOutput
	s.mu.Unlock()
	if closed {
		return nil, 0, "", ErrClosed
	}
	select {
	case <-p.exited:
	default:
		return p, limit, "", nil
	}
	dir, err := s.restart(p)
	if err != nil {
		return nil, 0, "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.p, limit, restartNotice(exitReason(p.stop()), dir), nil
}

// restartNotice tells the agent that the shell it knew is gone.
func restartNotice(why, dir string) string {
	return fmt.Sprintf("[%s; a new shell started in %s: exported variables and functions are reset]\n", why, dir)
}

func exitReason(status int) string {
	if status < 0 {
		return "the shell was killed"
	}
	return fmt.Sprintf("the shell exited with status %d", status)
}

// restart kills what is left of p and starts a new shell in the last known
// folder (the first one if that is gone), reporting which.
func (s *Shell) restart(p *proc) (string, error) {
	p.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", ErrClosed
	}
	dir := s.cwd
	if checkDir(dir) != nil {
		dir = s.dir
	}
	np, err := startProc(s.shell, dir, s.env)
	if err != nil {
		return "", fmt.Errorf("restart shell: %w", err)
	}
	s.p, s.cwd = np, dir
	return dir, nil
}

func (s *Shell) setCwd(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cwd = dir
}

func (s *Shell) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func clampTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return min(d, MaxTimeout)
}

func newToken() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// script wraps command for the shell. The command is sourced from a
// here-document: it runs in the shell itself, so cd, export and declare
// persist; a syntax error (an unbalanced quote) fails that command alone
// instead of swallowing the lines after it (sh exits, and is replaced);
// and the stop trap's return ends it. Its stdin is /dev/null, so a command
// that reads stdin cannot eat the script, and stderr joins stdout. The
// sentinel line after it reports the exit status and the folder.
func (sh program) script(command, token string) string {
	command = strings.ReplaceAll(command, "\x00", "")
	if !strings.HasSuffix(command, "\n") {
		command += "\n"
	}
	eof := "__MYCO_EOF_" + token
	return sh.prologue +
		". /dev/fd/3 3<<'" + eof + "' </dev/null 2>&1\n" + command + eof + "\n" +
		sh.epilogue +
		`printf '\n` + sentinelStart(token) + `%d_%s` + sentinelEnd(token) + `\n' "$__myco_status" "$PWD"` + "\n"
}

func sentinelStart(token string) string { return "__MYCO_DONE_" + token + "_" }
func sentinelEnd(token string) string   { return "_END_" + token }

// writeScript runs on its own goroutine: a shell that does not read must
// not block Run past its timeout. A failed write shows as the shell's exit.
func writeScript(w io.Writer, script string) {
	_, _ = io.WriteString(w, script)
}

// runner follows one command until its sentinel, a timeout, a stop or the
// shell's end.
type runner struct {
	s    *Shell
	p    *proc
	sent *sentinel
	out  *capture

	timedOut, stopped bool
	stopErr           error
	killTick          *time.Ticker
	grace             <-chan time.Time
}

func (r *runner) wait(ctx context.Context, timeout time.Duration) (RunResult, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	defer r.stopKilling()
	done, exited := ctx.Done(), r.p.exited
	var drain <-chan time.Time
	for {
		select {
		case chunk, ok := <-r.p.out:
			if !ok {
				return r.shellGone("")
			}
			if payload, ok := r.sent.feed(chunk, r.out); ok {
				return r.finished(payload)
			}
		case <-exited:
			// Output may still be in the pipe; EOF comes once no
			// background job holds it, or the drain time ends.
			exited, drain = nil, time.After(exitDrain)
		case <-drain:
			return r.shellGone("")
		case <-timer.C:
			r.timedOut = true
			r.startKilling()
		case <-done:
			done, r.stopped, r.stopErr = nil, true, ctx.Err()
			r.startKilling()
		case <-r.tick():
			r.killCommand()
		case <-r.grace:
			return r.shellGone("the shell did not stop the command")
		}
	}
}

// startKilling kills the command's processes, and keeps killing those it
// starts next (the rest of a `a; b` list) until the shell reports back.
func (r *runner) startKilling() {
	if r.killTick != nil {
		return
	}
	r.killTick = time.NewTicker(killInterval)
	r.grace = time.After(killGrace)
	r.killCommand()
}

func (r *runner) stopKilling() {
	if r.killTick != nil {
		r.killTick.Stop()
	}
}

func (r *runner) tick() <-chan time.Time {
	if r.killTick == nil {
		return nil
	}
	return r.killTick.C
}

// killCommand tells the shell to abandon the command and kills the
// group's other processes. Where the group cannot be listed, the shell
// goes too and is replaced.
func (r *runner) killCommand() {
	_ = syscall.Kill(r.p.cmd.Process.Pid, syscall.SIGUSR1)
	if err := r.p.killChildren(); err != nil {
		r.p.stop()
	}
}

// finished reads the sentinel's payload: "<status>_<folder>".
func (r *runner) finished(payload string) (RunResult, error) {
	res := r.result()
	code, dir, ok := strings.Cut(payload, "_")
	if n, err := strconv.Atoi(code); ok && err == nil {
		res.ExitCode = n
		r.s.setCwd(dir)
	}
	return res, r.err()
}

// shellGone handles a shell that exited (the command ran `exit`) or did
// not report back (why says so): a new one takes its place.
func (r *runner) shellGone(why string) (RunResult, error) {
	status := r.p.stop()
	r.sent.flush(r.out)
	res := r.result()
	if r.s.isClosed() {
		return res, ErrClosed
	}
	dir, err := r.s.restart(r.p)
	if err != nil {
		return res, err
	}
	if why == "" {
		why = exitReason(status)
		res.ExitCode = status
	}
	if res.Output != "" && !strings.HasSuffix(res.Output, "\n") {
		res.Output += "\n"
	}
	res.Output += restartNotice(why, dir)
	return res, r.err()
}

func (r *runner) result() RunResult {
	out, cut := r.out.String()
	return RunResult{Output: out, ExitCode: -1, TimedOut: r.timedOut, Truncated: cut}
}

func (r *runner) err() error {
	if r.stopped {
		return fmt.Errorf("run command: stopped: %w", r.stopErr)
	}
	return nil
}
