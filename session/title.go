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
	if title == doc.Title && doc.TitleFrom == "" {
		return false, nil
	}
	doc.Title, doc.TitleFrom = title, ""
	return true, nil
}

// TitleFromWords marks a title that is only the start of the session's
// first message (Document.TitleFrom): it names the session until the
// automatic title does, which replaces it; any other title stays.
const TitleFromWords = "first_words"

// firstWordsMax bounds a title made of a message's first words, in
// characters: a listing's row, not the whole question.
const firstWordsMax = 60

// SetTitleFromWords names an untitled session by the start of text (its
// first message), marked TitleFromWords; it reports whether it did. A
// session with a title, an archived one, or a text with no words is left
// as it is.
func SetTitleFromWords(doc *Document, text string) bool {
	if doc.Title != "" || doc.Archived {
		return false
	}
	title := FirstWords(text)
	if title == "" {
		return false
	}
	doc.Title, doc.TitleFrom = title, TitleFromWords
	return true
}

// FirstWords is the start of text as a title: cleaned (CleanTitle), cut
// at the last word that fits firstWordsMax characters, with "…" when cut.
func FirstWords(text string) string {
	s := CleanTitle(text)
	if utf8.RuneCountInString(s) <= firstWordsMax {
		return s
	}
	cut, n := 0, 0
	for i, r := range s {
		if n == firstWordsMax {
			break
		}
		if r == ' ' {
			cut = i
		}
		n++
	}
	if cut == 0 { // one long word: cut inside it
		cut = len(string([]rune(s)[:firstWordsMax]))
	}
	return strings.TrimRight(s[:cut], " ,;:.-") + "…"
}

// Provisional reports whether the session's title is only its first
// words, for the automatic title to replace.
func (d *Document) Provisional() bool { return d.TitleFrom == TitleFromWords }
