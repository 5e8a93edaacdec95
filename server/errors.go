package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"myco/internal/errkind"
	"myco/session"
)

// apiError is the JSON body of every error answer.
type apiError struct {
	Error string `json:"error"`
	PID   int    `json:"pid,omitempty"`
	URL   string `json:"url,omitempty"`
}

// statuses is the one table from an error's kind to the status of its
// answer (docs/API.md lists them). A locked session is a conflict whose
// body names the process holding it; a damaged document or image is one
// too: the request was sound, the data is not, and myco never rewrites it.
var statuses = map[errkind.Kind]int{
	errkind.Invalid:     http.StatusBadRequest,
	errkind.Forbidden:   http.StatusForbidden,
	errkind.NotFound:    http.StatusNotFound,
	errkind.Conflict:    http.StatusConflict,
	errkind.Locked:      http.StatusConflict,
	errkind.Damaged:     http.StatusConflict,
	errkind.TooLarge:    http.StatusRequestEntityTooLarge,
	errkind.Upstream:    http.StatusBadGateway,
	errkind.Unavailable: http.StatusServiceUnavailable,
}

// statusOf turns an error into an answer: its status by its kind, its body
// its message. An error of no kind is a 500 whose message stays in the log;
// the person sees a safe one. echo's own errors (and the security
// middleware's) carry their status.
func statusOf(err error) (int, apiError) {
	if he := (*echo.HTTPError)(nil); errors.As(err, &he) {
		msg, ok := he.Message.(string)
		if !ok {
			msg = http.StatusText(he.Code)
		}
		return he.Code, apiError{Error: msg}
	}
	k := errkind.Of(err)
	status, ok := statuses[k]
	if !ok {
		return http.StatusInternalServerError, apiError{Error: "internal error (details in the server log)"}
	}
	body := apiError{Error: err.Error()}
	switch le := (*session.LockedError)(nil); {
	case k == errkind.Locked && errors.As(err, &le):
		body.PID, body.URL = le.Owner.PID, le.Owner.URL
	case k == errkind.Upstream:
		body.Error = "model call failed: " + body.Error
	}
	return status, body
}

var (
	errBadInput = errkind.New(errkind.Invalid, "bad input")
	errReadOnly = errkind.New(errkind.Conflict, "session is read-only")
)

// handleError answers with JSON for the API and event streams and with an
// error page for pages.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, body := statusOf(err)
	if status == http.StatusInternalServerError {
		s.log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "err", err)
	}
	if wantsHTML(c.Request()) {
		if rerr := s.renderError(c, status, body.Error); rerr == nil {
			return
		}
	}
	if err := c.JSON(status, body); err != nil {
		s.log.Warn("error answer failed", "err", err)
	}
}

func wantsHTML(r *http.Request) bool {
	p := r.URL.Path
	if strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/images/") || strings.HasPrefix(p, "/static/") {
		return false
	}
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}
