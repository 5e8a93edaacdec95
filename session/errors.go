package session

import (
	"fmt"
	"strings"

	"myco/internal/errkind"
)

// Sentinel errors, checked with errors.Is.
var (
	ErrNotFound        = errkind.New(errkind.NotFound, "session not found")
	ErrAmbiguous       = errkind.New(errkind.Conflict, "ambiguous session id")
	ErrLocked          = errkind.New(errkind.Locked, "session locked")
	ErrDamaged         = errkind.New(errkind.Damaged, "session document damaged")
	ErrInvalidID       = errkind.New(errkind.Invalid, "invalid session id")
	ErrAlreadyArchived = errkind.New(errkind.Conflict, "session already archived")
	ErrNotArchived     = errkind.New(errkind.Conflict, "session not archived")
	ErrConflict        = errkind.New(errkind.Conflict, "file already exists at destination")
)

// DamagedError says why a document cannot be read. The file is left as it
// is: no operation overwrites, moves or deletes a damaged document.
type DamagedError struct {
	Path   string
	Reason string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("damaged document %s: %s", e.Path, e.Reason)
}

// Is makes errors.Is(err, ErrDamaged) hold.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// Kind is ErrDamaged's: errkind.Of does not follow Is.
func (e *DamagedError) Kind() errkind.Kind { return errkind.Damaged }

// LockedError names the process that holds a session's writer lock, as far
// as the hint in the lock file tells (PID 0 when it does not).
type LockedError struct {
	ID    string
	Owner Owner
}

func (e *LockedError) Error() string {
	switch {
	case e.Owner.PID == 0:
		return fmt.Sprintf("session %s is locked by another process", e.ID)
	case e.Owner.URL == "":
		return fmt.Sprintf("session %s is locked by pid %d", e.ID, e.Owner.PID)
	default:
		return fmt.Sprintf("session %s is locked by pid %d (%s)", e.ID, e.Owner.PID, e.Owner.URL)
	}
}

// Is makes errors.Is(err, ErrLocked) hold.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Kind is ErrLocked's.
func (e *LockedError) Kind() errkind.Kind { return errkind.Locked }

// AmbiguousError lists the sessions an ID prefix matches.
type AmbiguousError struct {
	Prefix  string
	Matches []string
}

func (e *AmbiguousError) Error() string {
	shown := e.Matches
	if len(shown) > 5 {
		shown = shown[:5]
	}
	more := ""
	if len(e.Matches) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(e.Matches)-len(shown))
	}
	return fmt.Sprintf("session id %q is ambiguous: matches %s%s", e.Prefix, strings.Join(shown, ", "), more)
}

// Is makes errors.Is(err, ErrAmbiguous) hold.
func (e *AmbiguousError) Is(target error) bool { return target == ErrAmbiguous }

// Kind is ErrAmbiguous's.
func (e *AmbiguousError) Kind() errkind.Kind { return errkind.Conflict }
