package profiles_test

import (
	"errors"
	"strings"
	"testing"

	"myco/profiles"
)

func TestValidateNameAccepts(t *testing.T) {
	for _, name := range []string{
		"default", "work", "a", "Work-2", "a_b", "v1.2", "trailing.", "a..b", strings.Repeat("x", 64),
	} {
		t.Run(name, func(t *testing.T) {
			if err := profiles.ValidateName(name); err != nil {
				t.Errorf("ValidateName(%q) = %v, want nil", name, err)
			}
		})
	}
}

func TestValidateNameRefuses(t *testing.T) {
	const rule = "; use 1 to 64 letters, digits, '-', '_' or '.', not starting with '.'"
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "empty", in: "", want: `invalid profile name "": it is empty` + rule},
		{name: "dot", in: ".", want: `invalid profile name ".": it starts with '.'` + rule},
		{name: "dot dot", in: "..", want: `invalid profile name "..": it starts with '.'` + rule},
		{name: "climbs out", in: "../x", want: `invalid profile name "../x": it starts with '.'` + rule},
		{name: "hidden", in: ".work", want: `invalid profile name ".work": it starts with '.'` + rule},
		{name: "slash", in: "a/b", want: `invalid profile name "a/b": it contains '/'` + rule},
		{name: "backslash", in: `a\b`, want: `invalid profile name "a\\b": it contains '\\'` + rule},
		{name: "space", in: "my work", want: `invalid profile name "my work": it contains ' '` + rule},
		{name: "NUL", in: "a\x00b", want: `invalid profile name "a\x00b": it contains '\x00'` + rule},
		{name: "newline", in: "a\nb", want: `invalid profile name "a\nb": it contains '\n'` + rule},
		{name: "colon", in: "a:b", want: `invalid profile name "a:b": it contains ':'` + rule},
		{name: "non-ASCII letter", in: "café", want: `invalid profile name "café": it contains 'é'` + rule},
		{
			name: "too long",
			in:   strings.Repeat("x", 65),
			want: `invalid profile name "` + strings.Repeat("x", 65) + `": it is 65 characters long` + rule,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := profiles.ValidateName(tt.in)
			if !errors.Is(err, profiles.ErrInvalidName) {
				t.Fatalf("ValidateName(%q) = %v, want ErrInvalidName", tt.in, err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("ValidateName(%q) error:\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}
