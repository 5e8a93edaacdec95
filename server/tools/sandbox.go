package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNoSandbox means commands cannot run where they change nothing here:
// not Linux, no bubblewrap, or bubblewrap that cannot start (user
// namespaces turned off, a container that forbids them).
var ErrNoSandbox = errors.New("no read-only sandbox is available")

// Sandbox runs one command at a time in a fresh shell that can change
// nothing outside itself (bubblewrap, bwrap(1)), as root too:
//
//   - The whole file system is read-only, /proc/sys included; /tmp and
//     /run are private and empty (the session's folder, if it lies there,
//     is bound back read-only), and thrown away after the command.
//   - It has its own user namespace without a single capability
//     (--unshare-user --cap-drop ALL), so even uid 0 cannot remount, mount,
//     set the hostname or make another namespace to gain them back; setuid
//     binaries do not raise it (every mount is nosuid).
//   - No network: its own network namespace holds a loopback that leads
//     nowhere, so myco's API (and every other server) is out of reach, and
//     an empty /run keeps it from the sockets there (D-Bus, Docker, systemd).
//   - Its own PID, UTS, IPC and cgroup namespaces: it sees no process of
//     the machine, and everything it starts dies with it (--die-with-parent).
//   - The folders given to Hiding (myco's data: every profile, with its
//     server.json and token) are empty folders inside.
//
// It can read every other file the user can read, and uses CPU and memory
// without limit. It is not a shell that persists: cd and export do not
// carry over. --new-session keeps a command from typing into the
// terminal of the server.
type Sandbox struct {
	bwrap string
	// nestedUserns is false where bwrap can forbid a namespace inside the
	// sandbox (--disable-userns, bubblewrap 0.8): one more wall, not the
	// main one, so an older bwrap still makes a sandbox.
	nestedUserns bool
	hidden       []string
}

// ProbeSandbox finds bwrap and runs `true` in the sandbox once: a bwrap
// that is installed but cannot create its namespaces (user namespaces
// turned off, a container that forbids them) is no sandbox. The error
// wraps ErrNoSandbox and says why.
func ProbeSandbox(ctx context.Context) (*Sandbox, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("%w: bubblewrap runs on Linux only", ErrNoSandbox)
	}
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, fmt.Errorf("%w: bwrap (bubblewrap) is not installed", ErrNoSandbox)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	sb := &Sandbox{bwrap: path}
	if sb.try(ctx) == nil {
		return sb, nil
	}
	sb.nestedUserns = true
	if err := sb.try(ctx); err != nil {
		return nil, fmt.Errorf("%w: bwrap cannot start here: %w", ErrNoSandbox, err)
	}
	return sb, nil
}

// try runs `true` in the sandbox.
func (sb *Sandbox) try(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, sb.bwrap, sb.args("/", []string{"true"})...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Hiding is a copy of sb in which each of paths (a folder, or a file)
// that exists is empty, wherever a symlink leads to it from. Paths are
// resolved at each command, so a folder made later is hidden too.
func (sb *Sandbox) Hiding(paths ...string) *Sandbox {
	c := *sb
	c.hidden = append(slices.Clip(sb.hidden), paths...)
	return &c
}

// Paths are the folders and files d denies, each as given and, when it
// is a link, where it leads: what a sandbox hides (Hiding) so that a
// command cannot read what the file tools refuse.
func (d *Denied) Paths() []string {
	var out []string
	for _, r := range d.roots {
		out = append(out, r.path)
		if r.real != "" {
			out = append(out, r.real)
		}
	}
	return out
}

// private are the folders the sandbox gets empty and writable instead of
// the machine's: scratch space, and /run for its sockets.
var private = []string{"/tmp", "/run"}

// args is bwrap's command line for argv run in dir. Order matters: the
// later mounts go over the earlier ones, so a folder under /tmp is bound
// again (read-only) over the private /tmp, and a hidden folder inside
// the session's folder is emptied after that.
func (sb *Sandbox) args(dir string, argv []string) []string {
	a := []string{
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		// bwrap leaves a new /proc's sys writable, and uid 0 needs no
		// capability to write most of it (kernel.core_pattern runs a
		// program as the machine's root).
		"--ro-bind", "/proc/sys", "/proc/sys",
	}
	for _, p := range private {
		if isDir(p) {
			a = append(a, "--tmpfs", p)
			if within(dir, p) {
				a = append(a, "--ro-bind", dir, dir)
			}
		}
	}
	a = append(a, sb.hideArgs(dir)...)
	a = append(a, envFileArgs(dir)...)
	// As root, --unshare-user maps uid 0 to itself: the kernel still sees
	// the machine's root, owner of root's files, so --uid 65534 would
	// change what id(1) prints and nothing else. What holds is no
	// capability at all and every mount read-only, /proc/sys included.
	a = append(a,
		"--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
		"--cap-drop", "ALL", "--die-with-parent", "--new-session")
	if !sb.nestedUserns {
		a = append(a, "--disable-userns")
	}
	a = append(a, "--chdir", dir, "--")
	return append(a, argv...)
}

// hideArgs empties each hidden path the sandbox would otherwise show: a
// folder gets a tmpfs, a file /dev/null. A path inside a private folder
// is already out of sight unless it is in the session's folder.
func (sb *Sandbox) hideArgs(dir string) []string {
	var a []string
	for _, p := range sb.resolvedHidden() {
		if slices.ContainsFunc(private, func(root string) bool { return within(p, root) }) && !within(p, dir) {
			continue
		}
		switch info, err := os.Stat(p); {
		case err != nil:
		case info.IsDir():
			a = append(a, "--tmpfs", p)
		default:
			a = append(a, "--ro-bind", "/dev/null", p)
		}
	}
	return a
}

// envFileArgs empties the .env files at the top of the session's folder
// (the denied-path rule's .env and .env.*), where a project keeps its
// secrets and where a plan's `cat` or `grep -r` would send them to the
// model. Only the top: a walk of the whole folder before every command
// would cost what the folder costs, and bwrap can only hide a path it is
// given. Deeper ones stay readable (README, Safety).
func envFileArgs(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var a []string
	for _, e := range entries {
		name := e.Name()
		if name != ".env" && !strings.HasPrefix(name, ".env.") {
			continue
		}
		p := filepath.Join(dir, name)
		// A link is followed: bwrap mounts over where it leads.
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			a = append(a, "--ro-bind", "/dev/null", p)
		}
	}
	return a
}

// resolvedHidden is every hidden path with its symlinks followed: bwrap
// mounts over the real folder, and a link to it then leads to the empty
// one. A path inside another hidden one is left out.
func (sb *Sandbox) resolvedHidden() []string {
	var out []string
	for _, p := range sb.hidden {
		if !filepath.IsAbs(p) {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			out = append(out, real)
		}
	}
	slices.Sort(out)
	// A path inside another is gone with it; mounting over it again
	// would need a folder made in the empty one.
	kept := out[:0]
	for _, p := range out {
		if !slices.ContainsFunc(kept, func(k string) bool { return within(p, k) }) {
			kept = append(kept, p)
		}
	}
	return kept
}

// hides reports whether dir is inside a hidden folder, where a command
// cannot run: it would see an empty folder.
func (sb *Sandbox) hides(dir string) bool {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	return slices.ContainsFunc(sb.resolvedHidden(), func(p string) bool { return within(real, p) })
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
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
	if sb.hides(dir) {
		return RunResult{ExitCode: -1}, fmt.Errorf("sandbox: %s is inside myco's own data, which the sandbox hides", dir)
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
	// From the spawner's thread: --die-with-parent is a Pdeathsig too.
	runErr := startLocked(cmd)
	if runErr == nil {
		runErr = cmd.Wait()
	}
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
