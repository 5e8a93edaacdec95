package textcut_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"myco/internal/textcut"
)

func TestCuts(t *testing.T) {
	const mixed = "añ€😀z" // 1, 2, 3, 4 and 1 bytes
	tests := []struct {
		name string
		cut  func(string, int) string
		in   string
		n    int
		want string
	}{
		{"bytes: short enough", textcut.Bytes, "abc", 3, "abc"},
		{"bytes: ascii", textcut.Bytes, "abcdef", 4, "abcd"},
		{"bytes: inside ñ", textcut.Bytes, mixed, 2, "a"},
		{"bytes: after ñ", textcut.Bytes, mixed, 3, "añ"},
		{"bytes: inside €", textcut.Bytes, mixed, 5, "añ"},
		{"bytes: inside 😀", textcut.Bytes, mixed, 9, "añ€"},
		{"bytes: zero", textcut.Bytes, mixed, 0, ""},
		{"bytes: negative", textcut.Bytes, mixed, -1, ""},
		{"tail bytes: short enough", textcut.TailBytes, "abc", 5, "abc"},
		{"tail bytes: inside 😀", textcut.TailBytes, mixed, 3, "z"},
		{"tail bytes: whole 😀", textcut.TailBytes, mixed, 5, "😀z"},
		{"tail bytes: inside €", textcut.TailBytes, mixed, 7, "😀z"},
		{"tail bytes: zero", textcut.TailBytes, mixed, 0, ""},
		{"runes: three", textcut.Runes, mixed, 3, "añ€"},
		{"runes: all", textcut.Runes, mixed, 5, mixed},
		{"runes: more than all", textcut.Runes, mixed, 50, mixed},
		{"runes: zero", textcut.Runes, mixed, 0, ""},
		{"tail runes: two", textcut.TailRunes, mixed, 2, "😀z"},
		{"tail runes: all", textcut.TailRunes, mixed, 9, mixed},
		{"tail runes: zero", textcut.TailRunes, mixed, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cut(tt.in, tt.n); got != tt.want {
				t.Errorf("cut(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}

// FuzzBytes: whatever the cut, what comes out is valid UTF-8 when what
// went in was, no longer than asked, and a prefix (or suffix) of it.
func FuzzBytes(f *testing.F) {
	f.Add("añ€😀z", 5)
	f.Add(strings.Repeat("€", 100), 151)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if !utf8.ValidString(s) {
			return
		}
		for _, c := range []struct {
			got  string
			fits bool // a head or a tail of s
		}{
			{textcut.Bytes(s, n), strings.HasPrefix(s, textcut.Bytes(s, n))},
			{textcut.TailBytes(s, n), strings.HasSuffix(s, textcut.TailBytes(s, n))},
		} {
			if !utf8.ValidString(c.got) {
				t.Fatalf("cut of %q at %d is not UTF-8: %q", s, n, c.got)
			}
			if len(c.got) > max(n, 0) {
				t.Fatalf("cut of %q at %d is %d bytes", s, n, len(c.got))
			}
			if !c.fits {
				t.Fatalf("cut of %q at %d is not its head or tail: %q", s, n, c.got)
			}
		}
	})
}
