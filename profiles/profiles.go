// Package profiles knows where a profile lives on disk, which names a profile
// may have, and the two files it keeps beside its sessions: settings.json and
// server.json. It knows nothing of HTTP or of the session format.
package profiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// DefaultName is the profile used when none is named.
const DefaultName = "default"

// Folders are private to the user: sessions hold conversations, file contents
// and tool output.
const dirMode = 0o700

var (
	// ErrInvalidName is wrapped by ValidateName with the name and the reason.
	ErrInvalidName = errors.New("invalid profile name")
	// ErrNotFound is wrapped by Lookup when the profile's folder is absent.
	ErrNotFound = errors.New("profile not found")
)

// Profile is a named folder under <home>/profiles.
type Profile struct {
	Name string
	Dir  string
}

// Open returns the profile called name under home, creating its folders
// (mode 0700) if they are missing. Existing folders keep their mode: they
// belong to the user.
func Open(home, name string) (*Profile, error) {
	p, err := newProfile(home, name)
	if err != nil {
		return nil, err
	}
	dirs := []string{p.Dir, p.SessionDir(), filepath.Join(p.SessionDir(), "archived"), p.ImagesDir()}
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, dirMode); err != nil {
			return nil, fmt.Errorf("open profile %q: %w", name, err)
		}
	}
	return p, nil
}

// Lookup returns the profile called name under home without creating
// anything; the error wraps ErrNotFound when its folder does not exist.
func Lookup(home, name string) (*Profile, error) {
	p, err := newProfile(home, name)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(p.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %q in %s", ErrNotFound, name, profilesDir(home))
	}
	if err != nil {
		return nil, fmt.Errorf("look up profile %q: %w", name, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("look up profile %q: %s is not a folder", name, p.Dir)
	}
	return p, nil
}

// List returns the names of the profiles under home, sorted. Entries that are
// not folders or whose names ValidateName refuses are skipped: they are not
// profiles this package could open. No profiles folder means no profiles.
func List(home string) ([]string, error) {
	dir := profilesDir(home)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list profiles: %w", err)
	}
	names := []string{}
	for _, e := range entries {
		if ValidateName(e.Name()) == nil && isDir(filepath.Join(dir, e.Name())) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// SessionDir returns the folder of the profile's session documents.
func (p *Profile) SessionDir() string { return filepath.Join(p.Dir, "session") }

// ImagesDir returns the folder of the profile's image blobs.
func (p *Profile) ImagesDir() string { return filepath.Join(p.Dir, "images") }

// SettingsPath returns the path of the profile's settings.json.
func (p *Profile) SettingsPath() string { return filepath.Join(p.Dir, "settings.json") }

// ServerPath returns the path of the profile's server.json.
func (p *Profile) ServerPath() string { return filepath.Join(p.Dir, "server.json") }

func newProfile(home, name string) (*Profile, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	// An empty home would silently put profiles under the working folder.
	if home == "" {
		return nil, fmt.Errorf("profile %q: no data folder given", name)
	}
	return &Profile{Name: name, Dir: filepath.Join(profilesDir(home), name)}, nil
}

func profilesDir(home string) string { return filepath.Join(home, "profiles") }

// isDir follows symlinks, so a profile folder linked from elsewhere counts.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
