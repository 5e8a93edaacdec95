package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"myco/server/llm"
	"myco/session"
)

// apiError is the JSON body of every error answer.
type apiError struct {
	Error string `json:"error"`
	PID   int    `json:"pid,omitempty"`
	URL   string `json:"url,omitempty"`
}

// statusOf maps domain errors to HTTP statuses in one place. The message of
// a 500 stays in the log; the person sees a safe one.
func statusOf(err error) (int, apiError) {
	var he *echo.HTTPError
	var le *session.LockedError
	if status, ok := chatStatus(err); ok {
		return status, apiError{Error: err.Error()}
	}
	switch {
	case errors.As(err, &he):
		msg, ok := he.Message.(string)
		if !ok {
			msg = http.StatusText(he.Code)
		}
		return he.Code, apiError{Error: msg}
	case errors.As(err, &le):
		return http.StatusConflict, apiError{Error: le.Error(), PID: le.Owner.PID, URL: le.Owner.URL}
	case errors.Is(err, session.ErrImageCorrupt):
		return http.StatusInternalServerError, apiError{Error: err.Error()}
	case errors.As(err, new(*llm.Error)):
		return http.StatusBadGateway, apiError{Error: "model call failed: " + err.Error()}
	case errors.Is(err, llm.ErrNoProvider):
		return http.StatusConflict, apiError{Error: err.Error()}
	case errors.Is(err, session.ErrNotFound), errors.Is(err, session.ErrImageMissing):
		return http.StatusNotFound, apiError{Error: err.Error()}
	case errors.Is(err, session.ErrInvalidID), errors.Is(err, session.ErrInvalidSHA),
		errors.Is(err, session.ErrNotImage), errors.Is(err, session.ErrEmptyTitle), errors.Is(err, errBadInput),
		errors.Is(err, session.ErrForkPoint):
		return http.StatusBadRequest, apiError{Error: err.Error()}
	case errors.Is(err, session.ErrImageTooLarge):
		return http.StatusRequestEntityTooLarge, apiError{Error: err.Error()}
	case errors.Is(err, session.ErrDamaged), errors.Is(err, session.ErrAmbiguous),
		errors.Is(err, session.ErrAlreadyArchived), errors.Is(err, session.ErrNotArchived),
		errors.Is(err, session.ErrConflict), errors.Is(err, session.ErrArchived), errors.Is(err, errReadOnly),
		// A write through a writer let go (its live session closed under
		// the request), or meant for a thread that is no longer the latest.
		errors.Is(err, session.ErrWriterClosed), errors.Is(err, session.ErrThreadChanged):
		return http.StatusConflict, apiError{Error: err.Error()}
	default:
		return http.StatusInternalServerError, apiError{Error: "internal error (details in the server log)"}
	}
}

var (
	errBadInput = errors.New("bad input")
	errReadOnly = errors.New("session is read-only")
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
