package session

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"myco/internal/errkind"
)

// TitleMax is the longest title, in characters: a title is a heading, a
// browser tab's name and a column of a listing, not a place for prose. It
// is also the cap on a link's title.
const TitleMax = 120

var (
	// ErrEmptyTitle means a title holds nothing once cleaned. A session is
	// renamed to something or left as it is: an untitled session is one
	// that was never named (the automatic title names it then).
	ErrEmptyTitle = errkind.New(errkind.Invalid, "title is empty")
	// ErrArchived means a change was refused because the session is
	// archived: it is read-only until it is restored.
	ErrArchived = errkind.New(errkind.Conflict, "session is archived")
)

// CleanTitle returns s as a title: valid UTF-8 (a broken byte becomes
// U+FFFD), on one line (every run of spaces, line breaks and control
// characters becomes one space: a title must not break a heading, a
// terminal or a listing's row), trimmed, and cut to TitleMax characters,
// never inside one. It returns "" when nothing is left.
func CleanTitle(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
	if utf8.RuneCountInString(s) <= TitleMax {
		return s
	}
	n := 0
	for i := range s {
		if n == TitleMax {
			return strings.TrimRight(s[:i], " ")
		}
		n++
	}
	return s
}

// SetTitle gives doc the title s once cleaned (CleanTitle), reporting
// whether it changed. It refuses a title that cleans to nothing
// (ErrEmptyTitle) and any title of a session marked archived (ErrArchived).
// It is the one title rule: the page, the CLI, the agent and the automatic
// title all rename through it.
func SetTitle(doc *Document, s string) (changed bool, err error) {
	if doc.Archived {
		return false, fmt.Errorf("%w: restore it before renaming it", ErrArchived)
	}
	title := CleanTitle(s)
	if title == "" {
		return false, ErrEmptyTitle
	}
	if title == doc.Title {
		return false, nil
	}
	doc.Title = title
	return true, nil
}
