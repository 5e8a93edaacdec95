package snapshot

import (
	"regexp"
	"strings"
	"testing"
)

// TestPlainName checks the loop against the expression it replaced.
func TestPlainName(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9._-]{1,200}$`)
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"empty", "", false},
		{"a uuid", "0b6c3e1e-8a34-4b47-9d1e-3f0f2a6d9c11", true},
		{"turn name", "turn-0012.pre", true},
		{"underscore", "a_b", true},
		{"200 bytes", strings.Repeat("a", 200), true},
		{"201 bytes", strings.Repeat("a", 201), false},
		{"slash", "a/b", false},
		{"backslash", `a\b`, false},
		{"space", "a b", false},
		{"newline at the end", "ab\n", false},
		{"non-ASCII letter", "é", false},
		{"dot dot passes the pattern", "..", true},
		{"colon", "a:b", false},
		{"NUL", "a\x00", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := plainName(tt.in); got != tt.want {
				t.Errorf("plainName(%q) = %v, want %v", tt.in, got, tt.want)
			}
			if got := re.MatchString(tt.in); got != tt.want {
				t.Errorf("the old expression says %v for %q: the table is wrong", got, tt.in)
			}
		})
	}
}

func TestCheckNameRefusesDots(t *testing.T) {
	for _, name := range []string{".", "..", "", "a/b"} {
		if err := checkName("ok", name); err == nil {
			t.Errorf("checkName(%q) = nil, want an error", name)
		}
	}
	if err := checkName("0b6c3e1e", "turn-1"); err != nil {
		t.Errorf("checkName of plain names: %v", err)
	}
}
