package tools_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"myco/server/tools"
)

// long is a timeout no command of these tests should come near.
const long = 60 * time.Second

func newShell(t *testing.T) (*tools.Shell, string) {
	t.Helper()
	dir := t.TempDir()
	sh, err := tools.NewShell(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	return sh, dir
}

func run(t *testing.T, sh *tools.Shell, command string) tools.RunResult {
	t.Helper()
	res, err := sh.Run(context.Background(), command, long)
	if err != nil {
		t.Fatalf("Run(%q): %v", command, err)
	}
	return res
}

// readPID waits for a command to write its pid to path.
func readPID(t *testing.T, path string) int {
	t.Helper()
	pid, err := pollPID(path)
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// pollPID is readPID for goroutines other than the test's.
func pollPID(path string) (int, error) {
	deadline := time.Now().Add(long)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(path)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && perr == nil {
			return pid, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0, fmt.Errorf("no pid in %s", path)
}

// waitGone waits for process pid to die (a zombie counts as dead: nobody
// may be left to reap it in a container).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(long)
	for time.Now().Before(deadline) {
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := strings.LastIndexByte(string(stat), ')'); err == nil && i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d still runs", pid)
}

func TestShellRun(t *testing.T) {
	tests := []struct {
		name, command string
		want          string
		code          int
	}{
		{"stdout", "echo hello", "hello\n", 0},
		{"stderr", "echo oops >&2", "oops\n", 0},
		{"both in order", "echo a; echo b >&2; echo c", "a\nb\nc\n", 0},
		{"no final newline", "printf 'no newline'", "no newline", 0},
		{"exit code", "(exit 7)", "", 7},
		{"failed command", "false", "", 1},
		{"stdin is empty", "cat", "", 0},
		{"read gets EOF", "read x; echo \"got=$x\"", "got=\n", 0},
		{"single quotes", `echo 'it'"'"'s'`, "it's\n", 0},
		{"several lines", "echo one\necho two", "one\ntwo\n", 0},
		{"heredoc", "cat <<'EOF'\nline $HOME\nEOF", "line $HOME\n", 0},
		{"invalid UTF-8 becomes valid", `printf 'a\377b'`, "a\uFFFDb", 0},
	}
	sh, _ := newShell(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, sh, tt.command)
			if res.Output != tt.want || res.ExitCode != tt.code {
				t.Errorf("Run(%q) = %q, exit %d; want %q, exit %d", tt.command, res.Output, res.ExitCode, tt.want, tt.code)
			}
			if res.TimedOut || res.Truncated {
				t.Errorf("TimedOut %v, Truncated %v", res.TimedOut, res.Truncated)
			}
		})
	}
}

// TestShellSyntaxError: an unbalanced quote fails that command only; the
// shell does not wait for the rest of it.
func TestShellSyntaxError(t *testing.T) {
	sh, _ := newShell(t)
	res := run(t, sh, `echo "unterminated`)
	if res.ExitCode == 0 || !strings.Contains(res.Output, "unexpected EOF") {
		t.Errorf("got %q, exit %d; want a syntax error", res.Output, res.ExitCode)
	}
	if got := run(t, sh, "echo ok").Output; got != "ok\n" {
		t.Errorf("next command printed %q", got)
	}
}

func TestShellStatePersists(t *testing.T) {
	sh, dir := newShell(t)
	if err := os.Mkdir(filepath.Join(dir, "sub dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	run(t, sh, `cd "sub dir" && export GREETING=hi && f() { echo "f:$1"; }`)
	want := filepath.Join(dir, "sub dir")
	if got := run(t, sh, "pwd").Output; got != want+"\n" {
		t.Errorf("pwd = %q, want %q", got, want)
	}
	if got := sh.Cwd(); got != want {
		t.Errorf("Cwd() = %q, want %q", got, want)
	}
	if got := run(t, sh, `echo "$GREETING"; f x`).Output; got != "hi\nf:x\n" {
		t.Errorf("variable and function = %q", got)
	}
}

func TestShellTimeout(t *testing.T) {
	sh, dir := newShell(t)
	run(t, sh, "mkdir kept && cd kept && export KEPT=yes")
	pidFile := filepath.Join(dir, "pid")
	start := time.Now()
	res, err := sh.Run(context.Background(), `echo before; sh -c 'echo $$ > "$1"; exec sleep 30' _ `+pidFile, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("Run returned after %s, when the sleep would end", elapsed)
	}
	if !res.TimedOut || !strings.HasPrefix(res.Output, "before\n") {
		t.Errorf("got %+v, want TimedOut with the output so far", res)
	}
	waitGone(t, readPID(t, pidFile))
	// The shell survived: the folder and the variable are still there.
	if got := run(t, sh, `pwd; echo "$KEPT"`).Output; got != filepath.Join(dir, "kept")+"\nyes\n" {
		t.Errorf("after the timeout: %q", got)
	}
}

// TestShellTimeoutAbandons: a timeout ends the whole command, the rest of
// its list, loops the shell runs itself and function calls included, and
// the shell keeps its state.
func TestShellTimeoutAbandons(t *testing.T) {
	tests := []struct{ name, command string }{
		{"list", "sleep 30; echo after; sleep 30"},
		{"builtin loop", "while :; do :; done; echo after"},
		{"function", "f() { while :; do :; done; echo after; }; g() { f; echo after; }; g; echo after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh, _ := newShell(t)
			run(t, sh, "export KEPT=yes")
			start := time.Now()
			res, err := sh.Run(context.Background(), tt.command, 300*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if elapsed := time.Since(start); elapsed > 20*time.Second || !res.TimedOut {
				t.Errorf("got %+v after %s, want a timeout", res, elapsed)
			}
			if strings.Contains(res.Output, "after") || strings.Contains(res.Output, "new shell") {
				t.Errorf("output %q: the command went on, or the shell was replaced", res.Output)
			}
			if got := run(t, sh, `echo "$KEPT"`).Output; got != "yes\n" {
				t.Errorf("after the timeout: %q", got)
			}
		})
	}
}

// TestShellTimeoutReplacesShell: a shell that ignores the request to stop
// is replaced by a new one in the same folder.
func TestShellTimeoutReplacesShell(t *testing.T) {
	sh, dir := newShell(t)
	run(t, sh, "mkdir kept && cd kept")
	res, err := sh.Run(context.Background(), "trap '' USR1; while :; do :; done", 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || !strings.Contains(res.Output, "new shell") {
		t.Errorf("got %+v, want a timeout and a new shell", res)
	}
	if got := run(t, sh, "pwd").Output; got != filepath.Join(dir, "kept")+"\n" {
		t.Errorf("the new shell is in %q", got)
	}
}

func TestShellExit(t *testing.T) {
	sh, dir := newShell(t)
	run(t, sh, "mkdir kept && cd kept")
	res := run(t, sh, "echo bye; exit 3")
	if res.ExitCode != 3 || !strings.HasPrefix(res.Output, "bye\n") {
		t.Errorf("got %+v, want the output and exit code 3", res)
	}
	if got := run(t, sh, "pwd").Output; got != filepath.Join(dir, "kept")+"\n" {
		t.Errorf("the new shell is in %q", got)
	}
}

func TestShellStop(t *testing.T) {
	sh, dir := newShell(t)
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if _, err := pollPID(pidFile); err != nil {
			t.Error(err)
		}
		cancel()
	}()
	start := time.Now()
	res, err := sh.Run(ctx, `sh -c 'echo $$ > "$1"; exec sleep 30' _ `+pidFile, long)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if elapsed := time.Since(start); elapsed > 20*time.Second || res.TimedOut {
		t.Errorf("got %+v after %s, want a stop before the sleep ends", res, elapsed)
	}
	waitGone(t, readPID(t, pidFile))
	if got := run(t, sh, "echo alive").Output; got != "alive\n" {
		t.Errorf("after the stop: %q", got)
	}
}

var cutNote = regexp.MustCompile(`\[… (\d+) bytes \((\d+) lines\) cut from the middle …\]\n`)

// TestShellOutputCap: a long output keeps its head and tail, and the note
// between them counts exactly what was cut.
func TestShellOutputCap(t *testing.T) {
	sh, _ := newShell(t)
	const n = 200000
	var full strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&full, "%d\n", i)
	}
	res := run(t, sh, fmt.Sprintf("seq 1 %d", n))
	if !res.Truncated || len(res.Output) > tools.DefaultMaxOutput {
		t.Fatalf("Truncated %v, %d bytes; want a cut to %d", res.Truncated, len(res.Output), tools.DefaultMaxOutput)
	}
	m := cutNote.FindStringSubmatchIndex(res.Output)
	if m == nil {
		t.Fatalf("no note of the cut in %q…", res.Output[:200])
	}
	head, tail := res.Output[:m[0]], res.Output[m[1]:]
	cutBytes, _ := strconv.Atoi(res.Output[m[2]:m[3]])
	cutLines, _ := strconv.Atoi(res.Output[m[4]:m[5]])
	if !strings.HasPrefix(full.String(), head) || !strings.HasSuffix(full.String(), tail) {
		t.Errorf("head or tail is not the output's start or end")
	}
	if len(head)+cutBytes+len(tail) != full.Len() {
		t.Errorf("kept %d+%d bytes and cut %d, want %d in all", len(head), len(tail), cutBytes, full.Len())
	}
	lines := strings.Count(head, "\n") + cutLines + strings.Count(tail, "\n")
	if lines != n || !strings.HasSuffix(head, "\n") || !strings.HasPrefix(tail, strconv.Itoa(n-strings.Count(tail, "\n")+1)) {
		t.Errorf("cut %d lines, keeping %q…%q; want whole lines, %d in all", cutLines, head[len(head)-10:], tail[:10], n)
	}
}

// TestShellOutputHuge: a command printing far more than the cap is read
// to its end and costs no more than the cap.
func TestShellOutputHuge(t *testing.T) {
	sh, _ := newShell(t)
	sh.SetMaxOutput(2000)
	res := run(t, sh, "head -c 100000000 /dev/zero | tr '\\0' x; echo; echo end")
	if !res.Truncated || len(res.Output) > 2000 || !strings.HasSuffix(res.Output, "\nend\n") {
		t.Errorf("got %d bytes, Truncated %v, ending %q", len(res.Output), res.Truncated, res.Output[max(len(res.Output)-20, 0):])
	}
}

func TestShellCloseKillsBackgroundJobs(t *testing.T) {
	sh, dir := newShell(t)
	pidFile := filepath.Join(dir, "pid")
	run(t, sh, `sleep 300 & echo $! > `+pidFile)
	pid := readPID(t, pidFile)
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	if _, err := sh.Run(context.Background(), "true", long); !errors.Is(err, tools.ErrClosed) {
		t.Errorf("Run after Close = %v, want ErrClosed", err)
	}
}

func TestShellCloseDuringRun(t *testing.T) {
	sh, dir := newShell(t)
	pidFile := filepath.Join(dir, "pid")
	go func() {
		if _, err := pollPID(pidFile); err != nil {
			t.Error(err)
		}
		sh.Close()
	}()
	_, err := sh.Run(context.Background(), `sh -c 'echo $$ > "$1"; exec sleep 30' _ `+pidFile, long)
	if !errors.Is(err, tools.ErrClosed) {
		t.Errorf("Run = %v, want ErrClosed", err)
	}
}

// TestShellOneAtATime: concurrent calls queue; each gets its own output.
func TestShellOneAtATime(t *testing.T) {
	sh, _ := newShell(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			res, err := sh.Run(context.Background(), fmt.Sprintf("x=%d; sleep 0.01; echo $x", i), long)
			if err != nil || res.Output != fmt.Sprintf("%d\n", i) {
				t.Errorf("command %d: %q, %v", i, res.Output, err)
			}
		})
	}
	wg.Wait()
}

func TestNewShellMissingFolder(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := tools.NewShell(missing, nil)
	if err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), missing) {
		t.Errorf("NewShell(missing) = %v, want an error naming the missing folder", err)
	}
}

func TestShellEnv(t *testing.T) {
	sh, err := tools.NewShell(t.TempDir(), append(os.Environ(), "MYCO_TEST_VAR=from-env"))
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	if got := run(t, sh, `echo "$MYCO_TEST_VAR"`).Output; got != "from-env\n" {
		t.Errorf("got %q", got)
	}
}

// TestShellFallbackSh: without bash on the PATH, sh runs the commands.
func TestShellFallbackSh(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	bin := t.TempDir()
	if err := os.Symlink(sh, filepath.Join(bin, "sh")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+os.Getenv("PATH"))
	t.Setenv("PATH", bin)
	dir := t.TempDir()
	s, err := tools.NewShell(dir, env)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := run(t, s, "echo $BASH_VERSION").Output; got != "\n" {
		t.Fatalf("the shell is bash %q", got)
	}
	run(t, s, "mkdir kept && cd kept && export KEPT=yes")
	if got := run(t, s, `pwd; echo "$KEPT"; (exit 5)`); got.Output != filepath.Join(dir, "kept")+"\nyes\n" || got.ExitCode != 5 {
		t.Errorf("got %+v", got)
	}
	res, err := s.Run(context.Background(), "sleep 30; echo after", 300*time.Millisecond)
	if err != nil || !res.TimedOut || strings.Contains(res.Output, "after") {
		t.Errorf("got %+v, %v; want a timeout", res, err)
	}
	if got := run(t, s, `echo "$KEPT"`).Output; got != "yes\n" {
		t.Errorf("after the timeout: %q", got)
	}
}

// TestShellKilled: a shell killed during a command, or between commands,
// is replaced in the same folder, and the agent is told.
func TestShellKilled(t *testing.T) {
	sh, dir := newShell(t)
	run(t, sh, "mkdir kept && cd kept")
	res := run(t, sh, "echo dying; kill -9 $$")
	if !strings.HasPrefix(res.Output, "dying\n") || !strings.Contains(res.Output, "the shell was killed") {
		t.Errorf("killed during a command: %+v", res)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(run(t, sh, "echo $$").Output))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	// The next command finds the shell gone; it may have been sent before
	// that showed, and then is lost with it.
	res = run(t, sh, "pwd")
	if !strings.Contains(res.Output, "the shell was killed") {
		t.Errorf("killed between commands: got %q, want a notice", res.Output)
	}
	if got, want := run(t, sh, "pwd").Output, filepath.Join(dir, "kept")+"\n"; got != want {
		t.Errorf("the new shell is in %q, want %q", got, want)
	}
}

// TestShellProgress: output reaches the progress callback while the
// command still runs (all of a line but its newline, which could start
// the end marker), so a crash keeps what a command printed so far.
func TestShellProgress(t *testing.T) {
	sh, dir := newShell(t)
	gate := filepath.Join(dir, "gate")
	var mu sync.Mutex
	var seen strings.Builder
	done := make(chan tools.RunResult, 1)
	go func() {
		res, _ := sh.RunWithProgress(context.Background(), "echo first-line; while [ ! -e "+gate+" ]; do sleep 0.01; done; echo second", long, func(p []byte) {
			mu.Lock()
			seen.Write(p)
			mu.Unlock()
		})
		done <- res
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		got := seen.String()
		mu.Unlock()
		if got == "first-line" || got == "first-line\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("progress saw %q while the command waits, want its first line", got)
		}
		time.Sleep(5 * time.Millisecond)
	}
	os.WriteFile(gate, nil, 0o600)
	res := <-done
	mu.Lock()
	defer mu.Unlock()
	if res.Output != "first-line\nsecond\n" || seen.String() != res.Output {
		t.Errorf("output %q, progress saw %q", res.Output, seen.String())
	}
}
