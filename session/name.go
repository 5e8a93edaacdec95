package session

import (
	"fmt"

	"myco/internal/errkind"
)

// ErrInvalidName is a session name that cannot be one.
var ErrInvalidName = errkind.New(errkind.Invalid, "invalid session name")

// MaxNameLength bounds a session name, in bytes.
const MaxNameLength = 64

// ValidateName says why name cannot name a session: a name is a letter
// then letters, digits, '.', '_' or '-', at most MaxNameLength bytes, and
// never something that could be the start of a session ID (only hex digits
// and '-', as "cafe" or "0193c7b2" are), so a name and an ID prefix never
// mean two sessions. "" (no name) is valid.
func ValidateName(name string) error {
	if name == "" {
		return nil
	}
	if len(name) > MaxNameLength {
		return fmt.Errorf("%w: %q is longer than %d bytes", ErrInvalidName, name, MaxNameLength)
	}
	if c := name[0]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		return fmt.Errorf("%w: %q must start with a letter", ErrInvalidName, name)
	}
	idLike := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("%w: %q may hold only letters, digits, '.', '_' and '-'", ErrInvalidName, name)
		}
		if !isHex(c) && c != '-' {
			idLike = false
		}
	}
	if idLike {
		return fmt.Errorf("%w: %q could be the start of a session ID (hex digits and '-' only); add another letter", ErrInvalidName, name)
	}
	return nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Named returns the sessions that hold name, active ones first and then
// archived ones, each newest first. Names are unique in a profile, so it
// is one session at most, unless a copy of a document was made by hand
// (or a move of the name was cut short): then the first is the one the
// name means.
func (s *Store) Named(name string) ([]string, error) {
	if name == "" || ValidateName(name) != nil {
		return nil, nil
	}
	var ids []string
	for _, archived := range []bool{false, true} {
		sums, err := s.List(ListOptions{Archived: archived})
		if err != nil {
			return nil, err
		}
		for i := range sums {
			if sums[i].Name == name && sums[i].Damaged == "" {
				ids = append(ids, sums[i].ID)
			}
		}
	}
	return ids, nil
}
