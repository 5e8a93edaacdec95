package profiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"myco/internal/atomicfile"
)

// SettingsDoc is settings.json parsed as written, for an edit that must
// keep every key it does not change: keys myco does not show on the
// Settings page (models' prices, denied_paths, the shell_env lists), and
// keys of a newer myco. Numbers stay as written (json.Number).
type SettingsDoc map[string]any

// Set sets the value at path (object keys, outermost first), making the
// objects on the way.
func (d SettingsDoc) Set(value any, path ...string) {
	obj := map[string]any(d)
	for _, key := range path[:len(path)-1] {
		next, ok := obj[key].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[key] = next
		}
		obj = next
	}
	obj[path[len(path)-1]] = value
}

// Delete removes the value at path, and the objects on the way that it
// leaves empty; a path that is not there is no change.
func (d SettingsDoc) Delete(path ...string) {
	deleteIn(map[string]any(d), path)
}

func deleteIn(obj map[string]any, path []string) {
	if len(path) == 1 {
		delete(obj, path[0])
		return
	}
	next, ok := obj[path[0]].(map[string]any)
	if !ok {
		return
	}
	deleteIn(next, path[1:])
	if len(next) == 0 {
		delete(obj, path[0])
	}
}

// EditSettings changes the settings file at path as edit says, over the
// file as written (an absent file is an empty one), and writes it
// atomically with mode 0600 when the result is valid. It returns the new
// settings. A file that does not load now is not replaced (it holds the
// person's edits: *SettingsError); a result that would not load is not
// written, and the error names the field (ErrorField). Another writer of
// the file between the read and the write loses its change: the person
// edits one place at a time.
func EditSettings(path string, edit func(SettingsDoc) error) (Settings, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Settings{}, fmt.Errorf("edit settings: %w", err)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if _, _, err := parseSettings(data); err != nil {
		return Settings{}, newSettingsError(path, data, err)
	}
	doc := SettingsDoc{}
	if len(bytes.TrimSpace(data)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return Settings{}, fmt.Errorf("edit settings: %w", err)
		}
	}
	if err := edit(doc); err != nil {
		return Settings{}, err
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return Settings{}, fmt.Errorf("edit settings: %w", err)
	}
	out = append(out, '\n')
	s, _, err := parseSettings(out)
	if err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			_, err = typeError(out, te) // named by its path, as a field
		}
		return Settings{}, err
	}
	if err := atomicfile.Write(path, out, atomicfile.Options{Perm: fileMode}); err != nil {
		return Settings{}, fmt.Errorf("save settings %s: %w", path, err)
	}
	return s, nil
}

// ErrorField returns the key an error of Validate or EditSettings is
// about, as the file spells it (approvals.bash,
// models["openai/gpt-4.1"].context_window), and what is wrong with it.
func ErrorField(err error) (path, msg string, ok bool) {
	var fe *fieldError
	if !errors.As(err, &fe) {
		return "", "", false
	}
	return fe.path, fe.msg, true
}

// KeyPath names key inside parent the way ErrorField does.
func KeyPath(parent, key string) string { return keyPath(parent, key) }
