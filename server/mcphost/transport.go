package mcphost

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"myco/internal/textcut"
	"myco/profiles"
)

// transport is how cfg's server is reached: its program over stdio
// (whose stderr's tail is kept for the failure reason) or its URL.
func (s *server) transport(cfg profiles.MCPServer) (mcp.Transport, *tail, error) {
	if cfg.URL != "" {
		headers := make(http.Header, len(cfg.Headers))
		for k, v := range cfg.Headers {
			headers.Set(k, s.expand(v))
		}
		client := &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: headers}}
		return &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxRetries: 2, OAuthHandler: s.oauthFor(cfg, &http.Client{Timeout: 30 * time.Second})}, nil, nil
	}
	path, err := exec.LookPath(cfg.Command)
	if err != nil {
		// The short reason ("no such file or directory"), not exec's
		// repetition of the path.
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err
		} else if ee := (*exec.Error)(nil); errors.As(err, &ee) {
			err = ee.Err
		}
		return nil, nil, fmt.Errorf("could not start %s: %w", cfg.Command, err)
	}
	cmd := exec.Command(path, cfg.Args...)
	if s.h.opts.Environ != nil {
		cmd.Env = s.h.opts.Environ()
	}
	for k, v := range cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+s.expand(v))
	}
	stderr := &tail{}
	cmd.Stderr = stderr
	// Its own process group, and a child that dies with myco: a server
	// is not left behind by a crash of myco.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, stderr, nil
}

// envRef is a reference to one of myco's environment variables.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expand replaces ${NAME} in v with myco's environment variable NAME
// (nothing else: a lone $ stays as written).
func (s *server) expand(v string) string {
	if s.h.opts.Getenv == nil {
		return v
	}
	return envRef.ReplaceAllStringFunc(v, func(ref string) string {
		return s.h.opts.Getenv(ref[2 : len(ref)-1])
	})
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header[k] = v
	}
	return t.base.RoundTrip(r)
}

// maxStderr is how much of a server's stderr is kept: its last words,
// which say why it failed; a server that floods stderr costs no memory.
const maxStderr = 2 << 10

// tail keeps the last maxStderr bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - maxStderr; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String is the kept tail as one line of valid text, its last 300 bytes.
func (t *tail) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(t.buf), "")), " ")
	return textcut.TailBytes(s, 300)
}
