package profiles

import (
	"errors"
	"path/filepath"
)

// Home returns the data folder that holds every profile: $MYCO_HOME, else
// $XDG_DATA_HOME/myco, else $HOME/.local/share/myco. getenv is passed in so
// that callers and tests choose the environment.
func Home(getenv func(string) string) (string, error) {
	if dir := getenv("MYCO_HOME"); dir != "" {
		return filepath.Clean(dir), nil
	}
	// The XDG Base Directory spec says a relative XDG_DATA_HOME is invalid
	// and must be ignored.
	if dir := getenv("XDG_DATA_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "myco"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("find data folder: set MYCO_HOME, XDG_DATA_HOME or HOME")
	}
	return filepath.Join(home, ".local", "share", "myco"), nil
}

// PersonalInstructions is the person's own instruction file, read into
// every session's system prompt before the project's:
// $XDG_CONFIG_HOME/myco/AGENTS.md, else $HOME/.config/myco/AGENTS.md; ""
// when neither is set.
func PersonalInstructions(getenv func(string) string) string {
	if dir := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "myco", "AGENTS.md")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", "myco", "AGENTS.md")
	}
	return ""
}
