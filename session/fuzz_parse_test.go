package session_test

import (
	"path/filepath"
	"strings"
	"testing"

	"myco/session"
)

// FuzzValidateID: an ID that ValidateID accepts is one plain file name
// (no separator, no dot, no NUL), so it can never name a path outside the
// session folder, and it is 1 to 128 bytes.
func FuzzValidateID(f *testing.F) {
	for _, s := range []string{"", "0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90", "../x", "a/b", ".", "..", "-x", "_x", "a\x00", strings.Repeat("a", 129), "é", "A_b-9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if session.ValidateID(id) != nil {
			return
		}
		if len(id) == 0 || len(id) > 128 || strings.ContainsAny(id, "/\\.\x00") || filepath.Base(id) != id || id[0] == '-' {
			t.Fatalf("ValidateID accepted %q", id)
		}
	})
}

// FuzzValidSHA256: a blob name accepted is exactly 64 lowercase hex
// digits, so Images.Path never leaves the store.
func FuzzValidSHA256(f *testing.F) {
	for _, s := range []string{"", strings.Repeat("a", 64), strings.Repeat("A", 64), strings.Repeat("g", 64), strings.Repeat("a", 63), "../" + strings.Repeat("a", 61)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !session.ValidSHA256(s) {
			return
		}
		if len(s) != 64 || strings.Trim(s, "0123456789abcdef") != "" {
			t.Fatalf("ValidSHA256 accepted %q", s)
		}
	})
}
