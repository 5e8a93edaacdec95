package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// bodyDeadline gives a request with a body until d to send all of it,
// then lifts the deadline once the body is read. http.Server's ReadTimeout
// would do the first part for every request, event streams included: its
// deadline also ends the server's background read of a connection whose
// handler still runs, which cancels the stream's context. A slow body
// (one byte now and then) is cut at d and its connection closed; a GET
// with no body, an event stream above all, gets no deadline.
func bodyDeadline(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(d)); err != nil {
			// A writer that cannot (a test recorder): no deadline.
			next.ServeHTTP(w, r)
			return
		}
		r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the read deadline when the body has been read, so a
// handler that then runs long (an upload's processing) is not cut.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// Said as what happened, for the handler's 400 and the log.
		return n, fmt.Errorf("%w: %w", errSlowBody, err)
	}
	return n, err
}

var errSlowBody = errors.New("the request body did not arrive in time")
