package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
)

// errIncomplete is a stream that ended cleanly before the provider said the
// message was complete: a proxy or server that gave up mid-answer.
var errIncomplete = errors.New("stream ended before the message was complete")

// retryableStatus reports whether an HTTP status is transient: timeouts,
// conflicts, rate limits, server errors and Anthropic's 529 (overloaded).
func retryableStatus(status int) bool {
	return status == 408 || status == 409 || status == 429 || status >= 500
}

// classify turns a failed call into an *Error. status is the HTTP status
// the provider's SDK reported, 0 when there is none; started says whether
// any event of the stream arrived.
func classify(ctx context.Context, provider string, err error, status int, started bool) *Error {
	switch {
	case ctx.Err() != nil:
		// Stopped by the caller (the tab's stop, a deadline): never retried.
		return &Error{Provider: provider, Err: fmt.Errorf("request stopped: %w", ctx.Err())}
	case status != 0:
		return &Error{Provider: provider, Status: status, Retryable: retryableStatus(status), Err: err}
	case isDecodeError(err):
		// A server that sends garbage will most likely send it again.
		return &Error{Provider: provider, Err: fmt.Errorf("malformed stream: %w", err)}
	case started || brokenConnection(err):
		return &Error{Provider: provider, Retryable: true, Err: fmt.Errorf("stream broken: %w", err)}
	}
	return &Error{Provider: provider, Err: err}
}

// brokenConnection reports whether err is a connection that dropped or
// timed out, as opposed to one that could not be opened at all (a refused
// connection means nothing listens there, and retrying will not change it).
func brokenConnection(err error) bool {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func isDecodeError(err error) bool {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	return errors.As(err, &syntax) || errors.As(err, &typ)
}
