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
