package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// States of a server, as /lsp shows them.
const (
	StateNotStarted = "not started"
	StateStarting   = "starting"
	StateRunning    = "running"
	StateFailed     = "failed"
)

// DefaultIdle is how long a server runs unused before it is stopped.
const DefaultIdle = 10 * time.Minute

// ErrClosed means the pool's session closed.
var ErrClosed = errors.New("the session's language servers are stopped: the session closed")

// Pool is one session's language servers: those found when it opened,
// started on first use, one per server and project root, stopped when
// idle and when the session closes.
type Pool struct {
	folder string
	env    []string
	found  []Found
	idle   time.Duration
	settle time.Duration

	mu      sync.Mutex
	closed  bool
	servers map[key]*entry
}

type key struct{ name, root string }

type entry struct {
	found Found
	root  string
	// run serialises starting and using this server.
	run    sync.Mutex
	client *client // guarded by Pool.mu
	state  string  // guarded by Pool.mu
	err    error   // guarded by Pool.mu
	timer  *time.Timer
}

// PoolOptions configure a Pool.
type PoolOptions struct {
	// Folder is the session's folder: the root when no marker is found,
	// and the limit of the search for one.
	Folder string
	// Env is the servers' environment: the shell's, secrets dropped.
	Env []string
	// Found are the installed servers (Finder.Find), fixed for the pool.
	Found []Found
	// Idle stops a server unused this long (DefaultIdle when 0).
	Idle time.Duration
	// Settle is the quiet after the first diagnostics (700 ms when 0).
	Settle time.Duration
}

// NewPool makes a session's pool; nothing starts until first use.
func NewPool(o PoolOptions) *Pool {
	if o.Idle == 0 {
		o.Idle = DefaultIdle
	}
	if o.Settle == 0 {
		o.Settle = settleDefault
	}
	return &Pool{folder: o.Folder, env: o.Env, found: o.Found, idle: o.Idle, settle: o.Settle, servers: map[key]*entry{}}
}

// Folder is the session's folder the pool was made for.
func (p *Pool) Folder() string { return p.folder }

// Found are the servers the pool may start.
func (p *Pool) Found() []Found { return p.found }

// Target is the server and root that would check a file.
type Target struct {
	Found   Found
	Root    string
	Running bool
}

// Target finds the server for path (absolute) and its root, and whether
// it runs now; an error when no installed server checks that language.
func (p *Pool) Target(path string) (Target, error) {
	k, ok := KindFor(path)
	if !ok {
		return Target{}, fmt.Errorf("no language server myco knows checks %s files (it knows Go, TypeScript/JavaScript, Python and Rust)", extOf(path))
	}
	var f *Found
	for i := range p.found {
		if p.found[i].Name == k.Name {
			f = &p.found[i]
		}
	}
	if f == nil {
		return Target{}, fmt.Errorf("%s checks %s files, and it was not found on this machine when the session opened (PATH%s)",
			k.Name, extOf(path), map[bool]string{true: " and ~/go/bin", false: ""}[k.Name == "gopls"])
	}
	// Outside the session's folder (an absolute path), the root is
	// looked for no higher than the file's own folder.
	top := p.folder
	if !within(path, p.folder) {
		top = filepath.Dir(path)
	}
	root := Root(path, top, k)
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.servers[key{k.Name, root}]
	return Target{Found: *f, Root: root, Running: e != nil && e.state == StateRunning}, nil
}

func extOf(path string) string {
	if ext := filepath.Ext(path); ext != "" {
		return ext
	}
	return "extension-less"
}

// Diagnostics gives path's diagnostics from its server for t.Root,
// starting it when it is not running. ctx ends the wait (a stop).
func (p *Pool) Diagnostics(ctx context.Context, t Target, path string) ([]Diagnostic, error) {
	e, err := p.entry(t)
	if err != nil {
		return nil, err
	}
	e.run.Lock()
	defer e.run.Unlock()
	c, err := p.ensure(ctx, e)
	if err != nil {
		return nil, err
	}
	diags, err := c.diagnostics(ctx, path)
	if err != nil && c.hasExited() {
		p.fail(e, c, err)
	}
	p.touch(e)
	return diags, err
}

func (p *Pool) entry(t Target) (*entry, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	k := key{t.Found.Name, t.Root}
	e := p.servers[k]
	if e == nil {
		e = &entry{found: t.Found, root: t.Root, state: StateNotStarted}
		p.servers[k] = e
	}
	return e, nil
}

// ensure starts e's server unless it runs; e.run is held.
func (p *Pool) ensure(ctx context.Context, e *entry) (*client, error) {
	p.mu.Lock()
	c := e.client
	if c != nil && !c.hasExited() {
		p.mu.Unlock()
		return c, nil
	}
	e.state, e.err = StateStarting, nil
	p.mu.Unlock()
	c, err := startClient(ctx, e.found, e.root, p.env, p.settle)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		e.state, e.err, e.client = StateFailed, err, nil
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			e.state, e.err = StateNotStarted, nil // stopped by the person: not the server's failure
		}
		return nil, err
	}
	if p.closed {
		go c.close()
		return nil, ErrClosed
	}
	e.client, e.state = c, StateRunning
	return c, nil
}

func (p *Pool) fail(e *entry, c *client, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.client == c {
		e.client, e.state, e.err = nil, StateFailed, err
	}
}

// touch (re)starts e's idle timer.
func (p *Pool) touch(e *entry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.timer != nil {
		e.timer.Stop()
	}
	e.timer = time.AfterFunc(p.idle, func() { p.stopIdle(e) })
}

// stopIdle stops e's server, unless it is in use (it is touched again
// after).
func (p *Pool) stopIdle(e *entry) {
	if !e.run.TryLock() {
		return
	}
	defer e.run.Unlock()
	p.mu.Lock()
	c := e.client
	e.client = nil
	if e.state == StateRunning {
		e.state = StateNotStarted
	}
	p.mu.Unlock()
	if c != nil {
		c.close()
	}
}

// Close stops every server; the pool starts none after.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	var clients []*client
	for _, e := range p.servers {
		if e.timer != nil {
			e.timer.Stop()
		}
		if e.client != nil {
			clients = append(clients, e.client)
			e.client = nil
			e.state = StateNotStarted
		}
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(c.close)
	}
	wg.Wait()
}

// Status is an installed server as /lsp lists it.
type Status struct {
	Name     string `json:"name"`
	Language string `json:"language"`
	Path     string `json:"path"`
	// HasFiles: the session's folder has files of its language.
	HasFiles bool `json:"has_files"`
	// State is not started, starting, running or failed (with Error),
	// over its roots: running when one runs.
	State string `json:"state"`
	Error string `json:"error,omitempty"`
	// Roots are the project roots it runs (or ran) in.
	Roots []string `json:"roots"`
}

// Known is a server myco knows that is not installed, for /lsp.
type Known struct {
	Name     string `json:"name"`
	Language string `json:"language"`
	Command  string `json:"command"`
}

// Statuses lists the installed servers with their states, and the known
// ones not installed.
func (p *Pool) Statuses() ([]Status, []Known) {
	out := make([]Status, 0, len(p.found))
	for _, f := range p.found {
		out = append(out, Status{Name: f.Name, Language: f.Language, Path: f.Path, HasFiles: HasFiles(p.folder, f.Kind), State: StateNotStarted, Roots: []string{}})
	}
	p.mu.Lock()
	for _, e := range p.servers {
		for i := range out {
			if out[i].Name != e.found.Name {
				continue
			}
			s := &out[i]
			if e.state != StateNotStarted || e.client != nil {
				s.Roots = append(s.Roots, e.root)
			}
			switch {
			case e.state == StateRunning || s.State == StateRunning:
				s.State, s.Error = StateRunning, ""
			case e.state == StateStarting:
				s.State, s.Error = StateStarting, ""
			case e.state == StateFailed && s.State == StateNotStarted:
				s.State, s.Error = StateFailed, e.err.Error()
			}
		}
	}
	p.mu.Unlock()
	for i := range out {
		sort.Strings(out[i].Roots)
	}
	return out, p.Known()
}

// Known are the servers myco knows that were not found.
func (p *Pool) Known() []Known {
	missing := []Known{}
	for _, k := range Kinds {
		installed := false
		for _, f := range p.found {
			installed = installed || f.Name == k.Name
		}
		if !installed {
			missing = append(missing, Known{Name: k.Name, Language: k.Language, Command: strings.TrimSpace(k.Command + " " + strings.Join(k.Args, " "))})
		}
	}
	return missing
}
