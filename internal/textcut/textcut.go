// Package textcut shortens text, never inside a UTF-8 sequence: the one
// rule for every place that cuts a string for the page, the model or a
// terminal. A cut in the middle of a character shows as U+FFFD in a tab,
// prints invalid UTF-8 in a terminal, and is refused by JSON encoders
// that check, so no caller slices a string by bytes itself.
//
// Lengths are in bytes where a size is bounded (what is stored, sent or
// kept in memory) and in characters where people read the length (a
// title, a preview). Callers add their own mark of the cut: each says it
// differently ("…", "[… 12 more bytes]").
package textcut

import "unicode/utf8"

// Bytes is the head of s of at most n bytes, ending on a character
// boundary (so it may be up to 3 bytes shorter than n).
func Bytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// TailBytes is the end of s of at most n bytes, starting on a character
// boundary.
func TailBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - max(n, 0)
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// Runes is the first n characters of s.
func Runes(s string, n int) string {
	n = max(n, 0)
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// TailRunes is the last n characters of s.
func TailRunes(s string, n int) string {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}
