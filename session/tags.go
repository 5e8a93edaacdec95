package session

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"myco/internal/errkind"
)

// A session's tags are the person's own labels (Document.Tags), beside the
// grouping by working folder: free text, a few words each, shown as chips
// on the listing's rows and filtered on. They are kept small because every
// listing carries them for every session.
const (
	// TagMax is the longest tag, in characters.
	TagMax = 32
	// TagsMax is how many tags a session may have.
	TagsMax = 10
)

// ErrInvalidTag means a list of tags was refused, saying why; nothing of
// it was kept.
var ErrInvalidTag = errkind.New(errkind.Invalid, "invalid tags")

// CleanTags returns tags as a session keeps them: each trimmed, every run
// of spaces inside one made a single space, and a repeat (ignoring case)
// dropped, the first spelling kept, in the order given. It refuses an
// empty tag, one longer than TagMax characters, one with a comma (the
// page's editor separates tags by commas), a control character or invalid
// UTF-8, and more than TagsMax tags, with an error
// that names the tag. An empty list is no tags (nil).
func CleanTags(tags []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, raw := range tags {
		t, err := cleanTag(raw)
		if err != nil {
			return nil, err
		}
		key := strings.ToLower(t)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, t)
	}
	if len(out) > TagsMax {
		return nil, fmt.Errorf("%w: a session has at most %d tags, not %d", ErrInvalidTag, TagsMax, len(out))
	}
	return out, nil
}

func cleanTag(raw string) (string, error) {
	if !utf8.ValidString(raw) {
		return "", fmt.Errorf("%w: a tag is not valid UTF-8", ErrInvalidTag)
	}
	if strings.Contains(raw, ",") {
		return "", fmt.Errorf("%w: tag %q holds a comma; commas separate tags", ErrInvalidTag, raw)
	}
	for _, r := range raw {
		if unicode.IsControl(r) && !unicode.IsSpace(r) || r == '\u2028' || r == '\u2029' {
			return "", fmt.Errorf("%w: tag %q holds a control character", ErrInvalidTag, raw)
		}
	}
	t := strings.Join(strings.Fields(raw), " ")
	switch n := utf8.RuneCountInString(t); {
	case n == 0:
		return "", fmt.Errorf("%w: a tag cannot be empty", ErrInvalidTag)
	case n > TagMax:
		return "", fmt.Errorf("%w: tag %q is %d characters long; the most is %d", ErrInvalidTag, t, n, TagMax)
	}
	return t, nil
}

// HasTag reports whether tags hold tag, ignoring case and the spaces a
// tag is cleaned of.
func HasTag(tags []string, tag string) bool {
	want := strings.ToLower(strings.Join(strings.Fields(tag), " "))
	for _, t := range tags {
		if strings.ToLower(t) == want {
			return true
		}
	}
	return false
}
