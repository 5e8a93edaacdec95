package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// ErrSilent is a model that stopped answering: no byte, headers included,
// for the client's idle timeout. It is a broken stream (retried), told
// apart from the person's stop, which cancels the same request.
var ErrSilent = errors.New("the model stopped answering")

// SilentError is ErrSilent with the timeout that noticed it.
type SilentError struct{ Idle time.Duration }

func (e *SilentError) Error() string        { return fmt.Sprintf("no byte for %s: %v", e.Idle, ErrSilent) }
func (e *SilentError) Is(target error) bool { return target == ErrSilent }

// DefaultStreamIdle is the idle timeout of a client whose config names
// none (settings stream_idle_timeout).
const DefaultStreamIdle = 120 * time.Second

// watchdog cancels a request's context with ErrSilent when no byte
// arrived for idle. The transport kicks it when headers come and on every
// read of the body that returns bytes, so a long answer that keeps coming
// is never cut, and a server that never sends headers is.
type watchdog struct {
	idle  time.Duration
	timer *time.Timer
	mu    sync.Mutex
	done  bool
}

type watchdogKey struct{}

// watch returns ctx with a watchdog that cancels it after idle without a
// byte, and the function that ends the watch (call it when the stream is
// read). idle <= 0 watches nothing.
func watch(ctx context.Context, idle time.Duration) (context.Context, func()) {
	if idle <= 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{idle: idle}
	w.timer = time.AfterFunc(idle, func() { cancel(&SilentError{Idle: idle}) })
	return context.WithValue(ctx, watchdogKey{}, w), func() {
		w.mu.Lock()
		w.done = true
		w.timer.Stop()
		w.mu.Unlock()
		cancel(context.Canceled)
	}
}

// kick restarts the wait: a byte arrived.
func (w *watchdog) kick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.timer.Reset(w.idle)
	}
}

// silent reports whether the watchdog, not the caller, ended ctx. The
// caller's own stop is checked first: a stop is never retried.
func silent(parent, ctx context.Context) bool {
	return parent.Err() == nil && errors.Is(context.Cause(ctx), ErrSilent)
}

// silentError is the *Error of a request the watchdog ended: retryable,
// as any broken stream.
func silentError(provider string, ctx context.Context) *Error {
	return &Error{Provider: provider, Retryable: true, Err: context.Cause(ctx)}
}

// idleTransport kicks the watchdog of a request's context, if it has one,
// when the response's headers arrive and on every byte of its body.
type idleTransport struct{ base http.RoundTripper }

func (t idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	w, _ := req.Context().Value(watchdogKey{}).(*watchdog)
	if err != nil || w == nil {
		return resp, err
	}
	w.kick()
	resp.Body = &kickingBody{ReadCloser: resp.Body, w: w}
	return resp, nil
}

type kickingBody struct {
	io.ReadCloser
	w *watchdog
}

func (b *kickingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.kick()
	}
	return n, err
}

func streamIdle(cfg ProviderConfig) time.Duration {
	if cfg.StreamIdle == 0 {
		return DefaultStreamIdle
	}
	return cfg.StreamIdle
}
