package tools_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"myco/internal/reexec"
	"myco/server/tools"
)

const holderDirEnv = "MYCO_TEST_HOLDER_DIR"

// A SIGKILLed myco leaves no command behind: a copy of this test binary
// stands for myco, starts a shell, a background job in it and a command
// that waits, prints their PIDs, and is killed with SIGKILL. Each of them
// must end.
func TestShellDiesWithMyco(t *testing.T) {
	if reexec.Role() == "shell-holder" {
		holdShell(t)
		return
	}
	cmd := reexec.Command(t, "TestShellDiesWithMyco", "shell-holder", holderDirEnv+"="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := readPIDs(t, bufio.NewScanner(out))
	// Opened before the kill, so that a PID used again meanwhile cannot
	// pass for a survivor, nor a survivor hide behind a reused PID.
	fds := make([]int, len(pids))
	for i, pid := range pids {
		if fds[i], err = unix.PidfdOpen(pid, 0); err != nil {
			t.Fatalf("pidfd of %d: %v", pid, err)
		}
		defer unix.Close(fds[i])
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for i, pid := range pids {
		if !exits(t, fds[i]) {
			t.Errorf("process %d (%s) outlived myco", pid, comm(pid))
			_ = unix.Kill(pid, unix.SIGKILL)
		}
	}
}

// exits waits for the process behind pidfd to end: its pidfd becomes
// readable. The bound is only there to fail rather than hang.
func exits(t *testing.T, pidfd int) bool {
	t.Helper()
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int((30 * time.Second).Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
}

func comm(pid int) string {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.ReplaceAll(string(data), "\x00", " ")
}

func readPIDs(t *testing.T, sc *bufio.Scanner) []int {
	t.Helper()
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "pids ")
		if !ok {
			continue
		}
		var pids []int
		for _, f := range strings.Fields(line) {
			pid, err := strconv.Atoi(f)
			if err != nil || pid < 2 {
				t.Fatalf("bad pid line %q", sc.Text())
			}
			pids = append(pids, pid)
		}
		return pids
	}
	t.Fatalf("the holder printed no pids: %v", sc.Err())
	return nil
}

// holdShell is the stand-in for myco: it prints the shell's PID, a
// background job's, and the PID of a job the shell then waits for, and
// blocks until it is killed.
func holdShell(t *testing.T) {
	sh, err := tools.NewShell(os.Getenv(holderDirEnv), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sh.Run(context.Background(), "echo $$ $(sleep 1000 >/dev/null 2>&1 & echo $!)", time.Minute)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	busy := make(chan string, 1)
	go sh.RunWithProgress(context.Background(), "sleep 1000 & echo busy $!; wait", tools.MaxTimeout, func(p []byte) {
		if rest, ok := strings.CutPrefix(string(p), "busy "); ok {
			busy <- strings.TrimSpace(rest)
		}
	})
	fmt.Printf("pids %s %s\n", strings.TrimSpace(res.Output), <-busy)
	select {}
}

// pidfdThread is PIDFD_THREAD (Linux 6.9): a pidfd for one thread, which
// becomes readable when that thread ends. x/sys does not name it yet.
const pidfdThread = unix.O_EXCL

// Pdeathsig fires when the thread that started the shell ends, not the
// process (go.dev/issue/27505), and Go ends a thread whose locked
// goroutine returns: a shell started from such a goroutine must outlive
// it. It is started from a goroutine that locks its thread and returns;
// once that thread is gone (its pidfd says so), the shell must still
// answer, not be replaced.
func TestShellOutlivesTheThreadThatStartedIt(t *testing.T) {
	type started struct {
		sh        *tools.Shell
		tid, tidf int
		err       error
	}
	for range 20 {
		got := make(chan started)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			s := started{tid: unix.Gettid()}
			if s.tidf, s.err = unix.PidfdOpen(s.tid, pidfdThread); s.err == nil {
				s.sh, s.err = tools.NewShell(t.TempDir(), nil)
			}
			got <- s
		}()
		s := <-got
		if s.err != nil {
			t.Skipf("no pidfd for a thread here (Linux 6.9 has them), or no shell: %v", s.err)
		}
		defer s.sh.Close()
		defer unix.Close(s.tidf)
		if s.tid == os.Getpid() {
			continue // the main thread: Go never ends it; try again
		}
		if !exits(t, s.tidf) {
			t.Fatal("the goroutine's thread did not end")
		}
		res, err := s.sh.Run(context.Background(), "echo alive", time.Minute)
		if err != nil || res.Output != "alive\n" {
			t.Fatalf("the shell after its starting thread ended: %q, %v", res.Output, err)
		}
		return
	}
	t.Skip("every goroutine ran on the main thread")
}
