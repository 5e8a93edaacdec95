package server

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"

	"myco/internal/errkind"
	"myco/server/live"
	"myco/server/llm"
	"myco/server/tools"
	"myco/session"
	"myco/snapshot"
)

// TestStatusOf checks the one place where errors become statuses: a
// request that lost a race with the session (closed, its thread replaced,
// its writer let go) is a 409 that says why, never a 500.
func TestStatusOf(t *testing.T) {
	t.Parallel()
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
		{"bad input", fmt.Errorf("%w: folder /x does not exist", errBadInput), http.StatusBadRequest,
			apiError{Error: "bad input: folder /x does not exist"}},
		{"a model the person picked", &modelError{"no such model"}, http.StatusBadRequest, apiError{Error: "no such model"}},
		{"denied path", wrapped(&tools.DeniedError{Path: "/e", Rule: "r"}), http.StatusForbidden,
			apiError{Error: "send message: " + (&tools.DeniedError{Path: "/e", Rule: "r"}).Error()}},
		{"outside the folder", live.ErrOutsideFolder, http.StatusForbidden, apiError{Error: live.ErrOutsideFolder.Error()}},
		{"no such file", tools.ErrNoFile, http.StatusNotFound, apiError{Error: tools.ErrNoFile.Error()}},
		{"file too large to attach", tools.ErrTooLarge, http.StatusBadRequest, apiError{Error: tools.ErrTooLarge.Error()}},
		{"no goal", live.ErrNoGoal, http.StatusNotFound, apiError{Error: live.ErrNoGoal.Error()}},
		{"goal over", live.ErrGoalOver, http.StatusConflict, apiError{Error: live.ErrGoalOver.Error()}},
		{"goal bad move", live.ErrGoalBadMove, http.StatusBadRequest, apiError{Error: live.ErrGoalBadMove.Error()}},
		{"bad mode", live.ErrBadMode, http.StatusBadRequest, apiError{Error: live.ErrBadMode.Error()}},
		{"queued gone", live.ErrQueuedGone, http.StatusConflict, apiError{Error: live.ErrQueuedGone.Error()}},
		{"nothing to undo", live.ErrNothingToUndo, http.StatusNotFound, apiError{Error: live.ErrNothingToUndo.Error()}},
		{"folder too large to snapshot", snapshot.ErrTooLarge, http.StatusConflict, apiError{Error: snapshot.ErrTooLarge.Error()}},
		{"damaged document", &session.DamagedError{Path: "p", Reason: "r"}, http.StatusConflict, apiError{Error: "damaged document p: r"}},
		{"damaged image", &session.ImageError{SHA256: "ab", Err: session.ErrImageCorrupt}, http.StatusConflict,
			apiError{Error: (&session.ImageError{SHA256: "ab", Err: session.ErrImageCorrupt}).Error()}},
		{"ambiguous prefix", &session.AmbiguousError{Prefix: "a", Matches: []string{"ab", "ac"}}, http.StatusConflict,
			apiError{Error: `session id "a" is ambiguous: matches ab, ac`}},
		{"image too large", session.ErrImageTooLarge, http.StatusRequestEntityTooLarge, apiError{Error: "image too large"}},
		{"model call failed", &llm.Error{Provider: "anthropic", Status: 529, Err: errors.New("overloaded")}, http.StatusBadGateway,
			apiError{Error: "model call failed: anthropic: status 529: overloaded"}},
		{"kinded, outermost wins", errkind.Errorf(errkind.Invalid, "bad: %w", session.ErrNotFound), http.StatusBadRequest,
			apiError{Error: "bad: session not found"}},
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

// TestEveryKindHasAStatus keeps the table whole: a kind added to errkind
// without a status would answer 500 and hide its message.
func TestEveryKindHasAStatus(t *testing.T) {
	t.Parallel()
	for k := errkind.Internal + 1; k <= errkind.Upstream; k++ {
		if _, ok := statuses[k]; !ok {
			t.Errorf("kind %v has no status in statuses", k)
		}
	}
	if _, ok := statuses[errkind.Internal]; ok {
		t.Error("errkind.Internal has a status: it must stay the 500 whose message is kept in the log")
	}
}
