package mycotest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// StartupTimeout bounds the wait for myco's URL line.
const StartupTimeout = 2 * time.Minute

// StopTimeout bounds the wait for myco to exit after SIGTERM; myco itself
// gives its shutdown 5 s.
const StopTimeout = 15 * time.Second

// urlLine finds the link in "myco is serving profile "p" at URL?token=T".
var urlLine = regexp.MustCompile(`serving profile .* at (http://127\.0\.0\.1:\d+\S*)`)

// Config says how to start myco.
type Config struct {
	Bin     string // a built myco binary
	Home    string // MYCO_HOME
	Profile string // --profile; "" for the default
	Dir     string // the working folder: the agent's cwd for new sessions
	// Env holds NAME=value pairs for myco; they replace the same names
	// inherited from this process.
	Env []string
}

// Server is a running myco process.
type Server struct {
	Config
	Base    string        // http://127.0.0.1:PORT
	Token   string        // the profile's token
	Startup time.Duration // from exec to the URL line
	Log     *Log          // the end of myco's stderr

	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
}

// Start runs myco --no-open --addr 127.0.0.1:0 and waits for the line that
// carries its URL and token.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	args := []string{"--no-open", "--addr", "127.0.0.1:0"}
	if cfg.Profile != "" {
		args = append([]string{"--profile", cfg.Profile}, args...)
	}
	cmd := exec.Command(cfg.Bin, args...)
	cmd.Dir = cfg.Dir
	cmd.Env = childEnv(cfg.Home, cfg.Env)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &Server{Config: cfg, cmd: cmd, Log: &Log{max: 8 << 10}, exited: make(chan struct{})}
	cmd.Stderr = s.Log
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cfg.Bin, err)
	}
	lines := make(chan string, 1)
	go scanURL(stdout, lines)
	go func() { s.waitErr = cmd.Wait(); close(s.exited) }()
	timer := time.NewTimer(StartupTimeout)
	defer timer.Stop()
	select {
	case line, ok := <-lines:
		if !ok {
			<-s.exited
			return nil, fmt.Errorf("myco printed no URL and exited (%v); stderr:\n%s", s.waitErr, s.Log)
		}
		s.Startup = time.Since(start)
		if err := s.parseURL(line); err != nil {
			s.Kill()
			return nil, err
		}
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("myco exited before printing its URL (%v); stderr:\n%s", s.waitErr, s.Log)
	case <-timer.C:
		s.Kill()
		return nil, fmt.Errorf("myco printed no URL within %s; stderr:\n%s", StartupTimeout, s.Log)
	case <-ctx.Done():
		s.Kill()
		return nil, ctx.Err()
	}
}

// overridden are the variables that would override settings.json; a
// caller sets them through Config.Env when it means to.
var overridden = []string{"MYCO_HOME", "MYCO_MODEL", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"}

// childEnv is this process's environment for myco, minus the variables
// that would override settings.json and those extra sets, plus extra.
func childEnv(home string, extra []string) []string {
	drop := map[string]bool{}
	for _, name := range overridden {
		drop[name] = true
	}
	for _, kv := range extra {
		name, _, _ := strings.Cut(kv, "=")
		drop[name] = true
	}
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !drop[name] {
			env = append(env, kv)
		}
	}
	return append(append(env, "MYCO_HOME="+home), extra...)
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

func (s *Server) parseURL(link string) error {
	u, err := url.Parse(link)
	if err != nil {
		return fmt.Errorf("myco printed a bad URL %q: %w", link, err)
	}
	s.Token = u.Query().Get("token")
	if s.Token == "" {
		return fmt.Errorf("myco's URL %q carries no token", link)
	}
	s.Base = u.Scheme + "://" + u.Host
	return nil
}

// PID is the process's ID.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// ProfileDir is the folder of the server's profile.
func (s *Server) ProfileDir() string {
	p := s.Profile
	if p == "" {
		p = "default"
	}
	return filepath.Join(s.Home, "profiles", p)
}

// ServerJSON is the path of the profile's server.json.
func (s *Server) ServerJSON() string { return filepath.Join(s.ProfileDir(), "server.json") }

// Exited is closed once the process has exited and been waited for.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// Stop sends SIGTERM and checks that myco exits 0 and removes server.json.
func (s *Server) Stop() (time.Duration, error) {
	if _, err := os.Stat(s.ServerJSON()); err != nil {
		return 0, fmt.Errorf("server.json missing while myco runs: %w", err)
	}
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return 0, fmt.Errorf("SIGTERM: %w", err)
	}
	timer := time.NewTimer(StopTimeout)
	defer timer.Stop()
	select {
	case <-s.exited:
	case <-timer.C:
		s.Kill()
		return time.Since(start), fmt.Errorf("myco did not exit within %s of SIGTERM; killed", StopTimeout)
	}
	took := time.Since(start)
	if s.waitErr != nil {
		return took, fmt.Errorf("myco exited with %v after SIGTERM; stderr:\n%s", s.waitErr, s.Log)
	}
	if _, err := os.Stat(s.ServerJSON()); !errors.Is(err, os.ErrNotExist) {
		return took, fmt.Errorf("server.json still there after exit (stat: %v)", err)
	}
	return took, nil
}

// Kill sends SIGKILL, which nothing can catch, and waits for the process
// to be gone. Killing a process that has exited already does nothing.
func (s *Server) Kill() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// Client is a client for this server's API.
func (s *Server) Client() *Client { return NewClient(s.Base, s.Token) }
