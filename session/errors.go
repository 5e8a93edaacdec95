package session

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, checked with errors.Is.
var (
	ErrNotFound        = errors.New("session not found")
	ErrAmbiguous       = errors.New("ambiguous session id")
	ErrLocked          = errors.New("session locked")
	ErrDamaged         = errors.New("session document damaged")
	ErrInvalidID       = errors.New("invalid session id")
	ErrAlreadyArchived = errors.New("session already archived")
	ErrNotArchived     = errors.New("session not archived")
	ErrConflict        = errors.New("file already exists at destination")
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
