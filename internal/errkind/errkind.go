// Package errkind gives errors a kind: what went wrong, from the point of
// view of whoever asked (bad input, nothing there, a conflict with the state
// of things, a lock someone else holds, damaged data…). Domain packages
// make their sentinel errors with New, so the kind travels with the error
// through every %w; the server maps a kind to an HTTP status in one table
// (server/errors.go), and nothing else needs to know which package's
// sentinel it was.
package errkind

import (
	"errors"
	"fmt"
)

// Kind is what kind of failure an error is. The zero value, Internal, is
// every error that says nothing of itself: a fault of the program or of the
// machine, not of the request.
type Kind uint8

const (
	Internal    Kind = iota // a fault of the program or the machine
	Invalid                 // the request is malformed or asks for the impossible
	NotFound                // what the request names does not exist
	Conflict                // the request is sound but the state of things refuses it now
	Locked                  // another process holds the writer lock
	Damaged                 // data on disk cannot be read as what it should be
	TooLarge                // the request or what it names is over a limit
	Forbidden               // a rule denies it (a denied path, a folder outside the session's)
	Unavailable             // the server is shutting down
	Upstream                // a model provider failed
)

var names = [...]string{"internal", "invalid", "not found", "conflict", "locked", "damaged", "too large", "forbidden", "unavailable", "upstream"}

func (k Kind) String() string {
	if int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// kinded is implemented by every error that knows its kind: those New and
// Errorf make, and the domain's typed errors (session.LockedError…).
type kinded interface {
	error
	Kind() Kind
}

// Of returns the kind of the outermost error in err's chain that has one,
// Internal when none does.
func Of(err error) Kind {
	var k kinded
	if errors.As(err, &k) {
		return k.Kind()
	}
	return Internal
}

// New returns an error of kind k with the text msg. Each call makes a
// distinct error, so a package's sentinel is still found with errors.Is.
func New(k Kind, msg string) error {
	return &kindError{kind: k, err: errors.New(msg)}
}

// Errorf formats like fmt.Errorf (%w included) and gives the result kind k.
func Errorf(k Kind, format string, a ...any) error {
	return &kindError{kind: k, err: fmt.Errorf(format, a...)}
}

type kindError struct {
	kind Kind
	err  error
}

func (e *kindError) Error() string { return e.err.Error() }
func (e *kindError) Kind() Kind    { return e.kind }
func (e *kindError) Unwrap() error { return e.err }
