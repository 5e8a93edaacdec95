package tools

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
)

// proc is one shell process and the goroutines around it.
type proc struct {
	cmd    *exec.Cmd
	guard  *guard // kills the shell's group if myco dies
	stdin  io.WriteCloser
	out    chan []byte   // merged stdout and stderr; closed at EOF or stop
	exited chan struct{} // closed once the shell has been waited for
	quit   chan struct{} // closed by stop
	pipe   *os.File      // read end of the output pipe
	once   sync.Once
}

func startProc(shell program, dir string, env []string) (*proc, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(shell.argv[0], shell.argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, w, w
	// Its own group, so that one signal reaches every process it starts;
	// and it dies with myco, even on SIGKILL.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = startLocked(cmd)
	}
	w.Close() // the shell holds the write end now
	if err != nil {
		r.Close()
		return nil, err
	}
	// Pdeathsig reaches the shell alone: a job it started (`sleep 1000 &`)
	// would outlive myco. The guard kills the whole group then.
	g, err := startGuard(cmd.Process.Pid)
	if err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		r.Close()
		return nil, fmt.Errorf("guard shell: %w", err)
	}
	// Set before any command can time out. It fits the empty pipe, so
	// writing does not wait for the shell, and no later write overtakes it.
	if _, err := io.WriteString(stdin, shell.prologue); err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		g.stop()
		_ = cmd.Wait()
		r.Close()
		return nil, fmt.Errorf("set up shell: %w", err)
	}
	p := &proc{
		cmd: cmd, guard: g, stdin: stdin, pipe: r,
		out: make(chan []byte), exited: make(chan struct{}), quit: make(chan struct{}),
	}
	go p.read()
	go func() {
		_ = cmd.Wait() // the exit status is read from ProcessState
		close(p.exited)
	}()
	return p, nil
}

// read hands output over in chunks as it arrives. Nothing is buffered
// beyond one chunk: between commands a chatty background job blocks on
// the full pipe rather than growing memory.
func (p *proc) read() {
	defer close(p.out)
	for {
		buf := make([]byte, 32<<10)
		n, err := p.pipe.Read(buf)
		if n > 0 {
			select {
			case p.out <- buf[:n]:
			case <-p.quit:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// stop kills the whole group and closes the pipe (which a background job
// that escaped the group may still hold), then reports the shell's exit
// status, -1 when it was killed by a signal.
func (p *proc) stop() int {
	p.once.Do(func() {
		// The guard first: once the group is gone its number may be
		// another's.
		p.guard.stop()
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		close(p.quit)
		p.pipe.Close()
	})
	<-p.exited
	return p.cmd.ProcessState.ExitCode()
}

// killChildren kills every process in the shell's group except the shell.
func (p *proc) killChildren() error {
	shell := p.cmd.Process.Pid
	pids, err := groupMembers(shell)
	if err != nil {
		return err
	}
	for _, pid := range pids {
		if pid != shell {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return nil
}

// groupMembers lists the processes in process group pgid from /proc.
// Killing them one by one, rather than the group, spares the shell that
// leads it: signalling the group would take the shell's cd and exports
// with it. Elsewhere than Linux it fails, and the caller kills the group.
func groupMembers(pgid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list process group: %w", err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, ok := processGroup(pid); ok && g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// processGroup reads the pgrp field of /proc/<pid>/stat: the fifth, the
// third after the command name, which is in parentheses and may itself
// hold spaces and parentheses.
func processGroup(pid int) (int, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false // gone meanwhile
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 3 {
		return 0, false
	}
	g, err := strconv.Atoi(string(fields[2]))
	return g, err == nil
}

// startLocked starts cmd from the one goroutine that owns its OS thread
// for as long as myco runs. Pdeathsig fires when the thread that started
// the child ends, not the process (go.dev/issue/27505): Go ends a thread
// when a goroutine locked to it returns, so a child started from such a
// goroutine would be killed early. This thread never ends.
func startLocked(cmd *exec.Cmd) error {
	spawner.once.Do(func() {
		spawner.reqs = make(chan spawnReq)
		go spawnLoop(spawner.reqs)
	})
	done := make(chan error, 1)
	spawner.reqs <- spawnReq{cmd: cmd, done: done}
	return <-done
}

type spawnReq struct {
	cmd  *exec.Cmd
	done chan<- error
}

// spawner is process-wide on purpose: Pdeathsig ties a child to a
// thread, and one thread for the whole process is what makes it safe.
var spawner struct {
	once sync.Once
	reqs chan spawnReq
}

func spawnLoop(reqs <-chan spawnReq) {
	runtime.LockOSThread() // and never unlocked: see startLocked
	for r := range reqs {
		r.done <- r.cmd.Start()
	}
}

// guardScript waits for end of file on its stdin, whose only writer is
// myco: the kernel closes it however myco ends, SIGKILL included. Then it
// kills process group $1. It refuses a group number below 2: kill -- -1
// would signal every process there is.
const guardScript = `[ "$1" -gt 1 ] 2>/dev/null || exit 2
read _ || :
kill -s KILL -- "-$1"`

// guard is a small sh that kills a shell's process group when myco dies.
// It lives in its own group, so neither a stop of the shell's commands
// nor a Ctrl-C at myco's terminal ends it.
type guard struct {
	cmd  *exec.Cmd
	w    *os.File // myco's end of the guard's stdin; never written
	once sync.Once
}

func startGuard(pgid int) (*guard, error) {
	if pgid < 2 {
		return nil, fmt.Errorf("no process group to guard (%d)", pgid)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(sh, "-c", guardScript, "myco-guard", strconv.Itoa(pgid))
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil, err
	}
	return &guard{cmd: cmd, w: w}, nil
}

// stop ends the guard without letting it act: killed before its stdin
// closes, it never reaches kill.
func (g *guard) stop() {
	g.once.Do(func() {
		_ = g.cmd.Process.Kill()
		_ = g.cmd.Wait()
		g.w.Close()
	})
}
