package errkind_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"myco/internal/errkind"
)

var errGone = errkind.New(errkind.NotFound, "gone")

// lockedError stands for a domain's typed error that knows its kind.
type lockedError struct{ pid int }

func (e *lockedError) Error() string      { return fmt.Sprintf("locked by pid %d", e.pid) }
func (e *lockedError) Kind() errkind.Kind { return errkind.Locked }

func TestOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want errkind.Kind
	}{
		{"nil", nil, errkind.Internal},
		{"plain", errors.New("disk full"), errkind.Internal},
		{"sentinel", errGone, errkind.NotFound},
		{"wrapped", fmt.Errorf("load x: %w", errGone), errkind.NotFound},
		{"typed", fmt.Errorf("open: %w", &lockedError{7}), errkind.Locked},
		{"outermost wins", errkind.Errorf(errkind.Invalid, "bad: %w", errGone), errkind.Invalid},
		{"joined, first wins", errors.Join(errors.New("x"), errGone), errkind.NotFound},
		{"stdlib not exist", fs.ErrNotExist, errkind.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errkind.Of(tt.err); got != tt.want {
				t.Errorf("Of(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestErrorfKeepsTheChain(t *testing.T) {
	err := errkind.Errorf(errkind.Conflict, "save: %w", errGone)
	if !errors.Is(err, errGone) {
		t.Errorf("errors.Is(%v, errGone) = false, want true", err)
	}
	if got, want := err.Error(), "save: gone"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if errors.Is(errkind.New(errkind.NotFound, "gone"), errGone) {
		t.Error("two errors New made with the same text are the same, want distinct")
	}
}

func TestString(t *testing.T) {
	for k := errkind.Internal; k <= errkind.Upstream; k++ {
		if s := k.String(); s == "" || s[0] == 'K' {
			t.Errorf("Kind(%d) has no name: %q", k, s)
		}
	}
}

func TestErrorfWithTwoCauses(t *testing.T) {
	other := errors.New("other")
	err := errkind.Errorf(errkind.Invalid, "%w: %w", errGone, other)
	if !errors.Is(err, errGone) || !errors.Is(err, other) {
		t.Errorf("%v does not hold both its causes", err)
	}
}
