package profiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"myco/internal/atomicfile"
)

// A provider's key may be kept in the profile instead of the environment:
// keys/<provider>.key, mode 0600 in a 0700 folder, written by the Settings
// page and never shown back. It lives in the profile folder, which the
// agent's file tools refuse and plan mode's sandbox hides.

// keysDir is the profile's folder of stored keys.
func keysDir(profileDir string) string { return filepath.Join(profileDir, "keys") }

// KeyFilePath returns where provider's stored key lives in the profile.
func KeyFilePath(profileDir, provider string) (string, error) {
	if provider == "" || strings.ContainsAny(provider, `/\`) || provider == "." || provider == ".." {
		return "", fmt.Errorf("provider %q cannot have a stored key", provider)
	}
	return filepath.Join(keysDir(profileDir), provider+".key"), nil
}

// SaveKey stores provider's key in the profile, replacing any stored one
// atomically; the file is created 0600, so the key is never readable by
// others, even for a moment.
func SaveKey(profileDir, provider, key string) error {
	key = strings.TrimSpace(key)
	if key == "" || strings.ContainsAny(key, "\r\n") {
		return errors.New("a key must be one line and not empty")
	}
	path, err := KeyFilePath(profileDir, provider)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(keysDir(profileDir), 0o700); err != nil {
		return fmt.Errorf("save key: %w", err)
	}
	if err := atomicfile.Write(path, []byte(key+"\n"), atomicfile.Options{Perm: fileMode}); err != nil {
		return fmt.Errorf("save key for %s: %w", provider, err)
	}
	return nil
}

// RemoveKey removes provider's stored key; none stored is not an error.
func RemoveKey(profileDir, provider string) error {
	path, err := KeyFilePath(profileDir, provider)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove key for %s: %w", provider, err)
	}
	return nil
}

// ReadKey returns provider's stored key, "" when none is stored (or
// profileDir is "").
func ReadKey(profileDir, provider string) (string, error) {
	if profileDir == "" {
		return "", nil
	}
	path, err := KeyFilePath(profileDir, provider)
	if err != nil {
		return "", nil // such a provider has no stored key
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read key for %s: %w", provider, err)
	}
	return strings.TrimSpace(string(data)), nil
}
