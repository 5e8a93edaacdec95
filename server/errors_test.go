package server

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"

	"myco/server/live"
	"myco/server/llm"
	"myco/session"
)

// TestStatusOf checks the one place where errors become statuses: a
// request that lost a race with the session (closed, its thread replaced,
// its writer let go) is a 409 that says why, never a 500.
func TestStatusOf(t *testing.T) {
	wrapped := func(err error) error { return fmt.Errorf("send message: %w", err) }
	internal := apiError{Error: "internal error (details in the server log)"}
	tests := []struct {
		name       string
		err        error
		wantStatus int
		want       apiError
	}{
		{"live session closed", wrapped(live.ErrSessionClosed), http.StatusConflict,
			apiError{Error: "send message: the live session is closed"}},
		{"thread changed under a write (a compaction)", wrapped(session.ErrThreadChanged), http.StatusConflict,
			apiError{Error: "send message: the thread changed"}},
		{"writer released", wrapped(session.ErrWriterClosed), http.StatusConflict,
			apiError{Error: "send message: the session's writer is closed"}},
		{"archived", wrapped(session.ErrArchived), http.StatusConflict,
			apiError{Error: "send message: session is archived"}},
		{"empty title", wrapped(session.ErrEmptyTitle), http.StatusBadRequest,
			apiError{Error: "send message: title is empty"}},
		{"process closing", live.ErrClosed, http.StatusServiceUnavailable, apiError{Error: live.ErrClosed.Error()}},
		{"turn running", live.ErrTurnRunning, http.StatusConflict, apiError{Error: live.ErrTurnRunning.Error()}},
		{"locked elsewhere", &session.LockedError{ID: "s", Owner: session.Owner{PID: 7, URL: "http://127.0.0.1:1"}},
			http.StatusConflict, apiError{Error: "session s is locked by pid 7 (http://127.0.0.1:1)", PID: 7, URL: "http://127.0.0.1:1"}},
		{"not found", session.ErrNotFound, http.StatusNotFound, apiError{Error: "session not found"}},
		{"echo error", echo.NewHTTPError(http.StatusRequestEntityTooLarge, "too big"),
			http.StatusRequestEntityTooLarge, apiError{Error: "too big"}},
		{"no provider", llm.ErrNoProvider, http.StatusConflict, apiError{Error: llm.ErrNoProvider.Error()}},
		{"anything else", errors.New("disk on fire"), http.StatusInternalServerError, internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := statusOf(tt.err)
			if status != tt.wantStatus || body != tt.want {
				t.Errorf("statusOf(%v) = %d %+v, want %d %+v", tt.err, status, body, tt.wantStatus, tt.want)
			}
		})
	}
}
