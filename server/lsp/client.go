package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// Timeouts of a server's answers. A server that misses one gets a clear
// error, never a turn blocked for good.
const (
	// StartTimeout bounds starting a server and its initialize answer.
	StartTimeout = 30 * time.Second
	// DiagnosticsTimeout bounds the wait for a file's diagnostics.
	DiagnosticsTimeout = 30 * time.Second
	// settleDefault is how long no new diagnostics for the file must
	// follow the first ones before they are taken as final: servers
	// publish in stages (gopls: type errors, then its analyzers).
	settleDefault = 700 * time.Millisecond
	// maxFileBytes bounds the file sent to a server.
	maxFileBytes = 4 << 20
	// maxStderr is how much of a server's error output is kept, for the
	// error that says why it died.
	maxStderr = 4 << 10
)

// client is one running language server for one root.
type client struct {
	kind   Kind
	root   string
	cmd    *exec.Cmd
	conn   *jsonrpc2.Conn
	exited chan struct{} // closed when the process has ended
	stderr *tailBuffer
	settle time.Duration

	mu      sync.Mutex
	waitErr error
	docs    map[string]*openDoc // by URI
	diags   map[string]published
	changed chan struct{} // closed and replaced at each publish
	checked time.Time     // when files were last looked at for changes
}

type openDoc struct {
	path    string
	version int
	text    string
}

type published struct {
	seq     int
	version *int
	diags   []Diagnostic
}

// startClient starts found's server in root with env and initializes it.
func startClient(ctx context.Context, found Found, root string, env []string, settle time.Duration) (*client, error) {
	ctx, cancel := context.WithTimeout(ctx, StartTimeout)
	defer cancel()
	cmd := exec.Command(found.Path, found.Args...)
	cmd.Dir = root
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", found.Name, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", found.Name, err)
	}
	c := &client{
		kind: found.Kind, root: root, cmd: cmd, exited: make(chan struct{}), stderr: &tailBuffer{max: maxStderr},
		settle: settle, docs: map[string]*openDoc{}, diags: map[string]published{}, changed: make(chan struct{}),
	}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", found.Name, err)
	}
	go func() {
		err := cmd.Wait()
		c.mu.Lock()
		c.waitErr = err
		c.mu.Unlock()
		close(c.exited)
	}()
	stream := jsonrpc2.NewBufferedStream(pipe{stdout, stdin}, jsonrpc2.VSCodeObjectCodec{})
	c.conn = jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(c.handle).SuppressErrClosed())
	params := initializeParams{
		ProcessID: os.Getpid(), RootURI: fileURI(root),
		WorkspaceFolders: []workspaceFolder{{URI: fileURI(root), Name: filepath.Base(root)}},
		Capabilities:     clientCapabilities,
		ClientInfo:       map[string]string{"name": "myco"},
	}
	var result json.RawMessage
	if err := c.call(ctx, "initialize", params, &result); err != nil {
		c.kill() // it never answered: asking it to shut down would wait for nothing
		return nil, fmt.Errorf("%s did not initialize: %w", found.Name, err)
	}
	if err := c.conn.Notify(ctx, "initialized", struct{}{}); err != nil {
		c.kill()
		return nil, fmt.Errorf("%s did not initialize: %w", found.Name, err)
	}
	return c, nil
}

// call makes a request, giving up when ctx ends or the process exits.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	done := make(chan error, 1)
	go func() { done <- c.conn.Call(ctx, method, params, result) }()
	select {
	case err := <-done:
		if err != nil && c.exitedSoon() {
			return c.exitError()
		}
		return err
	case <-c.exited:
		return c.exitError()
	case <-ctx.Done():
		return timeoutError(ctx, method)
	}
}

func timeoutError(ctx context.Context, what string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer to %s in time: %w", what, ctx.Err())
	}
	return ctx.Err()
}

// handle answers the server's requests and keeps its diagnostics.
func (c *client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "textDocument/publishDiagnostics":
		var p publishDiagnosticsParams
		if req.Params == nil || json.Unmarshal(*req.Params, &p) != nil {
			return nil, nil
		}
		c.mu.Lock()
		prev := c.diags[p.URI]
		c.diags[p.URI] = published{seq: prev.seq + 1, version: p.Version, diags: p.Diagnostics}
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
		return nil, nil
	case "workspace/configuration":
		// No settings of myco's own: the server's defaults, one per item.
		var p configurationParams
		if req.Params != nil {
			_ = json.Unmarshal(*req.Params, &p)
		}
		return make([]any, len(p.Items)), nil
	case "workspace/workspaceFolders":
		return []workspaceFolder{{URI: fileURI(c.root), Name: filepath.Base(c.root)}}, nil
	case "client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create", "window/showMessageRequest":
		return nil, nil
	}
	if req.Notif {
		return nil, nil // logs, progress, telemetry: not needed
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "myco does not handle " + req.Method}
}

// diagnostics opens path in the server (or sends its text anew) and
// waits for the diagnostics it publishes for that text.
func (c *client) diagnostics(ctx context.Context, path string) ([]Diagnostic, error) {
	data, err := readText(path)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, DiagnosticsTimeout)
	defer cancel()
	if err := c.syncFiles(ctx, path); err != nil {
		return nil, err
	}
	uri := fileURI(path)
	c.mu.Lock()
	before := c.diags[uri].seq
	d := c.docs[uri]
	if d == nil {
		d = &openDoc{path: path, version: 1, text: data}
		c.docs[uri] = d
	} else {
		d.version++
		d.text = data
	}
	version := d.version
	c.mu.Unlock()
	if version == 1 {
		err = c.conn.Notify(ctx, "textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{
			URI: uri, LanguageID: languageID(c.kind, path), Version: 1, Text: data}})
	} else {
		// The whole text again, even unchanged, so the server checks it
		// anew: another file it depends on may have changed.
		err = c.conn.Notify(ctx, "textDocument/didChange", didChangeParams{
			TextDocument: versionedDocument{URI: uri, Version: version}, ContentChanges: []contentChange{{Text: data}}})
	}
	if err != nil {
		return nil, c.failure(err)
	}
	return c.await(ctx, uri, before, version)
}

// await waits for a publish for uri after seq before, of version (when
// the server says which), then for the server to settle.
func (c *client) await(ctx context.Context, uri string, before, version int) ([]Diagnostic, error) {
	var settled <-chan time.Time
	for {
		c.mu.Lock()
		p, changed := c.diags[uri], c.changed
		c.mu.Unlock()
		fresh := p.seq > before && (p.version == nil || *p.version >= version)
		if fresh && settled == nil {
			t := time.NewTimer(c.settle)
			defer t.Stop()
			settled = t.C
		}
		select {
		case <-changed:
			c.mu.Lock()
			again := c.diags[uri].seq != p.seq
			c.mu.Unlock()
			if again && fresh {
				settled = nil // a later publish: settle from it
			}
		case <-settled:
			return p.diags, nil
		case <-c.exited:
			return nil, c.exitError()
		case <-ctx.Done():
			if fresh {
				return p.diags, nil // still publishing at the deadline: the latest
			}
			return nil, timeoutError(ctx, c.kind.Name+"'s diagnostics for "+uri)
		}
	}
}

// syncFiles tells the server of what changed on disk since it last
// looked: the open files' new text (an open file's text is the one the
// server uses), and the files of the language beside path that changed.
func (c *client) syncFiles(ctx context.Context, path string) error {
	c.mu.Lock()
	since := c.checked
	c.checked = time.Now()
	type change struct {
		uri  string
		doc  *openDoc
		text string
		gone bool
	}
	var changes []change
	for uri, d := range c.docs {
		if d.path == path {
			continue
		}
		text, err := readText(d.path)
		switch {
		case err != nil:
			changes = append(changes, change{uri: uri, gone: true})
			delete(c.docs, uri)
		case text != d.text:
			d.version++
			d.text = text
			changes = append(changes, change{uri: uri, doc: d, text: text})
		}
	}
	c.mu.Unlock()
	for _, ch := range changes {
		var err error
		if ch.gone {
			err = c.conn.Notify(ctx, "textDocument/didClose", didCloseParams{TextDocument: documentID{URI: ch.uri}})
		} else {
			err = c.conn.Notify(ctx, "textDocument/didChange", didChangeParams{
				TextDocument: versionedDocument{URI: ch.uri, Version: ch.doc.version}, ContentChanges: []contentChange{{Text: ch.text}}})
		}
		if err != nil {
			return c.failure(err)
		}
	}
	if since.IsZero() {
		return nil
	}
	var events []fileEvent
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if _, ok := c.kind.Exts[strings.ToLower(filepath.Ext(e.Name()))]; !ok || e.IsDir() {
			continue
		}
		if info, err := e.Info(); err == nil && !info.ModTime().Before(since) {
			events = append(events, fileEvent{URI: fileURI(filepath.Join(filepath.Dir(path), e.Name())), Type: 2})
		}
	}
	if len(events) > 0 {
		if err := c.conn.Notify(ctx, "workspace/didChangeWatchedFiles", didChangeWatchedFilesParams{Changes: events}); err != nil {
			return c.failure(err)
		}
	}
	return nil
}

func (c *client) failure(err error) error {
	if c.exitedSoon() {
		return c.exitError()
	}
	return fmt.Errorf("%s: %w", c.kind.Name, err)
}

func (c *client) hasExited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// exitedSoon reports whether the process ends within a moment: a
// closed connection is most often a server that is dying.
func (c *client) exitedSoon() bool {
	select {
	case <-c.exited:
		return true
	case <-time.After(time.Second):
		return false
	}
}

// exitError says that the server ended, with the end of its error output.
func (c *client) exitError() error {
	c.mu.Lock()
	err := c.waitErr
	c.mu.Unlock()
	msg := fmt.Sprintf("%s exited", c.kind.Name)
	if err != nil {
		msg += " (" + err.Error() + ")"
	}
	if tail := strings.TrimSpace(c.stderr.String()); tail != "" {
		msg += ": " + tail
	}
	return errors.New(msg)
}

// close asks the server to shut down, then kills it if it has not ended
// within a moment.
func (c *client) close() {
	if !c.hasExited() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = c.call(ctx, "shutdown", nil, nil)
		_ = c.conn.Notify(ctx, "exit", nil)
		cancel()
		select {
		case <-c.exited:
		case <-time.After(2 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
	}
	_ = c.conn.Close()
}

// kill ends the server at once.
func (c *client) kill() {
	if !c.hasExited() {
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
	_ = c.conn.Close()
}

func languageID(k Kind, path string) string {
	return k.Exts[strings.ToLower(filepath.Ext(path))]
}

func readText(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a file", path)
	}
	if info.Size() > maxFileBytes {
		return "", fmt.Errorf("%s is larger than %d MiB", path, maxFileBytes>>20)
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

// pipe joins a server's stdout and stdin into the connection's stream.
type pipe struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipe) Write(b []byte) (int, error) { return p.w.Write(b) }

func (p pipe) Close() error {
	err := p.w.Close()
	return errors.Join(err, p.ReadCloser.Close())
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if extra := t.buf.Len() - t.max; extra > 0 {
		t.buf.Next(extra)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}
