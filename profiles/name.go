package profiles

import "fmt"

const (
	maxNameLen = 64
	nameRule   = "use 1 to 64 letters, digits, '-', '_' or '.', not starting with '.'"
)

// ValidateName reports whether name can be a profile name. The name becomes a
// folder name, so anything that could climb out of the profiles folder or
// hide there (a separator, "..", a leading dot) is refused. The error wraps
// ErrInvalidName and says which name, why, and what is allowed.
func ValidateName(name string) error {
	if why := nameProblem(name); why != "" {
		return fmt.Errorf("%w %q: %s; %s", ErrInvalidName, name, why, nameRule)
	}
	return nil
}

func nameProblem(name string) string {
	if name == "" {
		return "it is empty"
	}
	if name[0] == '.' {
		return "it starts with '.'"
	}
	for _, r := range name {
		if !isNameChar(r) {
			return fmt.Sprintf("it contains %q", r)
		}
	}
	// Checked after the characters, which are all one byte, so len counts them.
	if len(name) > maxNameLen {
		return fmt.Sprintf("it is %d characters long", len(name))
	}
	return ""
}

// isNameChar allows ASCII only: the same name must mean the same folder on
// every file system a profile may be copied to.
func isNameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == '-' || r == '_' || r == '.'
}
