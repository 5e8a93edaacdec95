package tools

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNoSandbox means commands cannot run where they change nothing here:
// not Linux, no bubblewrap, or bubblewrap that cannot start (user
// namespaces turned off, a container that forbids them).
var ErrNoSandbox = errors.New("no read-only sandbox is available")

// Sandbox runs one command at a time in a fresh shell that sees the whole
// file system read-only (bubblewrap, bwrap(1)): it can read the session's
// folder and run programs, and cannot create, change or delete a file
// anywhere but in a private /tmp that is thrown away after the command.
// It is not a shell that persists: cd and export do not carry over.
//
// The network is left as it is (a plan may need to read documentation);
// the guarantee is about files only. Processes are in their own PID
// namespace and die with the command (--die-with-parent), and --new-session
// keeps a command from typing into the terminal of the server.
type Sandbox struct {
	bwrap string
}

// ProbeSandbox finds bwrap and runs `true` in the sandbox once: a bwrap
// that is installed but cannot create its namespaces is no sandbox. The
// error wraps ErrNoSandbox and says why.
func ProbeSandbox(ctx context.Context) (*Sandbox, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("%w: bubblewrap runs on Linux only", ErrNoSandbox)
	}
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, fmt.Errorf("%w: bwrap (bubblewrap) is not installed", ErrNoSandbox)
	}
	sb := &Sandbox{bwrap: path}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, sb.args("/", []string{"true"})...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%w: bwrap cannot start here: %v %s", ErrNoSandbox, err, strings.TrimSpace(string(out)))
	}
	return sb, nil
}

// args is bwrap's command line for argv run in dir. Order matters: the
// later mounts go over the earlier ones, so a folder under /tmp is bound
// again (read-only) over the private /tmp.
func (sb *Sandbox) args(dir string, argv []string) []string {
	a := []string{
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
	}
	if dir == "/tmp" || strings.HasPrefix(dir, "/tmp/") {
		a = append(a, "--ro-bind", dir, dir)
	}
	a = append(a, "--unshare-pid", "--die-with-parent", "--new-session", "--chdir", dir, "--")
	return append(a, argv...)
}

// Run runs command with bash in a new sandboxed shell in folder dir, with
// environment env, and waits for it at most timeout (as Shell.Run counts
// it). Output is merged, capped as a Shell caps it, and handed to
// progress as it arrives. A command stopped by ctx returns what it printed
// with an error wrapping ctx's.
func (sb *Sandbox) Run(ctx context.Context, dir, command string, env []string, timeout time.Duration, progress func([]byte)) (RunResult, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return RunResult{ExitCode: -1}, fmt.Errorf("sandbox: %w", err)
	}
	if err := checkDir(dir); err != nil {
		return RunResult{ExitCode: -1}, fmt.Errorf("sandbox: %w", err)
	}
	shell, err := findShell()
	if err != nil {
		return RunResult{ExitCode: -1}, fmt.Errorf("sandbox: %w", err)
	}
	timeout = clampTimeout(timeout)
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	argv := append(append([]string(nil), shell.argv...), "-c", command)
	cmd := exec.CommandContext(runCtx, sb.bwrap, sb.args(dir, argv)...)
	cmd.Env = env
	out := &lockedCapture{c: newCapture(DefaultMaxOutput)}
	out.c.progress = progress
	cmd.Stdout, cmd.Stderr = out, out
	// Its own group: a stop kills bwrap and, through its PID namespace,
	// everything the command started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A background job that keeps the output open must not hold the
	// command past its end.
	cmd.WaitDelay = exitDrain
	start := time.Now()
	runErr := cmd.Run()
	res := RunResult{Duration: time.Since(start)}
	res.Output, res.Truncated = out.String()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.ExitCode = 124
		return res, fmt.Errorf("sandbox: %w", ctx.Err())
	case runCtx.Err() != nil:
		res.ExitCode, res.TimedOut = 124, true
	case errors.As(runErr, &exit):
		res.ExitCode = exit.ExitCode()
	case runErr != nil && !errors.Is(runErr, exec.ErrWaitDelay):
		res.ExitCode = -1
		return res, fmt.Errorf("sandbox: %w", runErr)
	}
	return res, nil
}

// lockedCapture is a capture written from exec's copying goroutine and
// read once the command is done.
type lockedCapture struct {
	mu sync.Mutex
	c  *capture
}

func (l *lockedCapture) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.c.write(p)
	return len(p), nil
}

func (l *lockedCapture) String() (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c.String()
}
