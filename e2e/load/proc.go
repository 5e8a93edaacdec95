package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// startupTimeout bounds the wait for myco's URL line.
const startupTimeout = 2 * time.Minute

// stopTimeout bounds the wait for myco to exit after SIGTERM; myco itself
// gives its shutdown 5 s.
const stopTimeout = 15 * time.Second

// urlLine finds the link in "myco is serving profile "p" at URL?token=T".
var urlLine = regexp.MustCompile(`serving profile .* at (http://127\.0\.0\.1:\d+\S*)`)

// myco is a running myco server.
type myco struct {
	cmd     *exec.Cmd
	home    string
	profile string
	base    string // http://127.0.0.1:PORT
	token   string
	startup time.Duration // from exec to the URL line
	stderr  *tail
	exited  chan struct{}
	waitErr error
}

// startMyco runs bin --profile p with MYCO_HOME=home and waits for the line
// that carries its URL and token.
func startMyco(ctx context.Context, bin, home, p, dir string) (*myco, error) {
	cmd := exec.Command(bin, "--profile", p, "--no-open", "--addr", "127.0.0.1:0")
	cmd.Dir = dir
	cmd.Env = childEnv(home)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	m := &myco{cmd: cmd, home: home, profile: p, stderr: &tail{max: 8 << 10}, exited: make(chan struct{})}
	cmd.Stderr = m.stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	lines := make(chan string, 1)
	go scanURL(stdout, lines)
	go func() { m.waitErr = cmd.Wait(); close(m.exited) }()
	select {
	case line, ok := <-lines:
		if !ok {
			<-m.exited
			return nil, fmt.Errorf("myco printed no URL and exited (%v); stderr:\n%s", m.waitErr, m.stderr)
		}
		m.startup = time.Since(start)
		if err := m.parseURL(line); err != nil {
			m.kill()
			return nil, err
		}
		return m, nil
	case <-m.exited:
		return nil, fmt.Errorf("myco exited before printing its URL (%v); stderr:\n%s", m.waitErr, m.stderr)
	case <-time.After(startupTimeout):
		m.kill()
		return nil, fmt.Errorf("myco printed no URL within %s; stderr:\n%s", startupTimeout, m.stderr)
	case <-ctx.Done():
		m.kill()
		return nil, ctx.Err()
	}
}

// childEnv is this process's environment for myco, minus the variables
// that would override settings.json, plus the fake provider's key.
func childEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "MYCO_HOME", "MYCO_MODEL", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", apiKeyEnv:
			continue
		}
		env = append(env, kv)
	}
	return append(env, "MYCO_HOME="+home, apiKeyEnv+"=load-test-key")
}

// scanURL sends the first URL line, then drains stdout so myco never
// blocks writing to it.
func scanURL(r io.Reader, lines chan<- string) {
	sc := bufio.NewScanner(r)
	sent := false
	for sc.Scan() {
		if m := urlLine.FindStringSubmatch(sc.Text()); m != nil && !sent {
			lines <- m[1]
			sent = true
		}
	}
	if !sent {
		close(lines)
	}
}

func (m *myco) parseURL(link string) error {
	u, err := url.Parse(link)
	if err != nil {
		return fmt.Errorf("myco printed a bad URL %q: %w", link, err)
	}
	m.token = u.Query().Get("token")
	if m.token == "" {
		return fmt.Errorf("myco's URL %q carries no token", link)
	}
	m.base = u.Scheme + "://" + u.Host
	return nil
}

func (m *myco) pid() int { return m.cmd.Process.Pid }

func (m *myco) serverJSON() string {
	return filepath.Join(m.home, "profiles", m.profile, "server.json")
}

// stop sends SIGTERM and checks that myco exits 0 and removes server.json.
func (m *myco) stop() (time.Duration, error) {
	if _, err := os.Stat(m.serverJSON()); err != nil {
		return 0, fmt.Errorf("server.json missing while myco runs: %w", err)
	}
	start := time.Now()
	if err := m.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return 0, fmt.Errorf("SIGTERM: %w", err)
	}
	select {
	case <-m.exited:
	case <-time.After(stopTimeout):
		m.kill()
		return time.Since(start), fmt.Errorf("myco did not exit within %s of SIGTERM; killed", stopTimeout)
	}
	took := time.Since(start)
	if m.waitErr != nil {
		return took, fmt.Errorf("myco exited with %v after SIGTERM; stderr:\n%s", m.waitErr, m.stderr)
	}
	if _, err := os.Stat(m.serverJSON()); !errors.Is(err, os.ErrNotExist) {
		return took, fmt.Errorf("server.json still there after exit (stat: %v)", err)
	}
	return took, nil
}

// kill ends a myco that is not answering, and waits for it.
func (m *myco) kill() {
	_ = m.cmd.Process.Kill()
	<-m.exited
}

// procStatus is what /proc/PID says about the process's resources.
type procStatus struct {
	hwm, rss int64 // bytes: peak and current resident set
	threads  int
	fds      int
}

func readProc(pid int) (procStatus, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procStatus{}, err
	}
	var st procStatus
	for line := range strings.Lines(string(data)) {
		name, value, _ := strings.Cut(line, ":")
		fields := strings.Fields(value)
		if len(fields) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		switch name {
		case "VmHWM":
			st.hwm = n << 10
		case "VmRSS":
			st.rss = n << 10
		case "Threads":
			st.threads = int(n)
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return st, err
	}
	st.fds = len(fds)
	return st, nil
}

// tail keeps the last max bytes written to it: myco's log, for errors.
// It counts the warnings and errors myco logged (slog writes a line a call).
type tail struct {
	mu          sync.Mutex
	max         int
	buf         []byte
	warns, errs int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.warns += bytes.Count(p, []byte("level=WARN"))
	t.errs += bytes.Count(p, []byte("level=ERROR"))
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

// counts returns the number of warnings and errors logged so far.
func (t *tail) counts() (warns, errs int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.warns, t.errs
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}

// clockTick is USER_HZ, 100 on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// cpuTime is the CPU time (user + system) the process has used so far.
func cpuTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces and parentheses: fields start
	// after the last ')'. utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(data, ')')
	fields := strings.Fields(string(data[i+1:]))
	if i < 0 || len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return time.Duration(utime+stime) * clockTick, nil
}
