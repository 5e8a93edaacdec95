package profiles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// keyError is a key of settings.json that cannot be used, at its offset.
type keyError struct {
	off int64
	msg string
}

func (e *keyError) Error() string { return e.msg }

// keyNote is a key myco ignores (or reads under another spelling), at its
// offset: a warning, not an error, so that a file written for a newer myco
// still loads.
type keyNote struct {
	off int64
	msg string
}

// checkKeys walks data, valid JSON of the shape of fileSettings, key by
// key. A key set twice in one object is an error: the decoder keeps the
// last, a person reading the file sees the first, and which one was meant
// is unclear. A key myco does not know is a note, with the known key it is
// closest to when there is one.
func checkKeys(data []byte) ([]keyNote, error) {
	w := keyWalker{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	if err := w.value(reflect.TypeFor[fileSettings](), ""); err != nil {
		return nil, err
	}
	if w.err != nil {
		return nil, w.err
	}
	return w.notes, nil
}

type keyWalker struct {
	data  []byte
	dec   *json.Decoder
	notes []keyNote
	err   *keyError // the first duplicate
}

// value walks the value that comes next, expected to be of type t; nil
// means a value myco ignores (under an unknown key), walked unchecked.
func (w *keyWalker) value(t reflect.Type, path string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	delim, ok := tok.(json.Delim)
	switch {
	case !ok:
		return nil
	case delim == '[':
		var elem reflect.Type
		if t != nil && t.Kind() == reflect.Slice {
			elem = t.Elem()
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.value(elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	default:
		if err := w.object(t, path); err != nil {
			return err
		}
	}
	_, err = w.dec.Token() // the closing delimiter
	return err
}

// object walks the members of an object of type t.
func (w *keyWalker) object(t reflect.Type, path string) error {
	seen := map[string]int64{} // key as the decoder matches it → offset
	for w.dec.More() {
		off := skipToValue(w.data, w.dec.InputOffset())
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		child := keyPath(path, key)
		// match is the key as the decoder matches it ("": ignored, so a
		// second one changes nothing).
		var elem reflect.Type
		match := ""
		switch {
		case t == nil:
		case t.Kind() == reflect.Map:
			elem, match = t.Elem(), key
		case t.Kind() == reflect.Struct:
			elem, match = fieldOf(t, key)
			w.noteUnknown(t, path, key, match, off)
		}
		if first, dup := seen[match]; dup && match != "" && w.err == nil {
			line, _ := position(w.data, first)
			w.err = &keyError{off: off, msg: fmt.Sprintf("%s is set twice (first on line %d): keep one, since which one counts is unclear", keyPath(path, match), line)}
		}
		seen[match] = off
		if err := w.value(elem, child); err != nil {
			return err
		}
	}
	return nil
}

// noteUnknown notes key of an object of struct type t unless it is one of
// t's keys as spelled (name is the key the decoder took it for, if any).
func (w *keyWalker) noteUnknown(t reflect.Type, path, key, name string, off int64) {
	switch {
	case name == key:
	case name != "":
		// encoding/json matches keys ignoring case: it is read, under a
		// spelling that another tool may not accept.
		w.notes = append(w.notes, keyNote{off, fmt.Sprintf("%s is read as %s: spell it so", keyPath(path, key), keyPath(path, name))})
	default:
		msg := "unknown key " + keyPath(path, key) + " is ignored"
		if near := nearest(key, jsonNames(t)); near != "" {
			msg += " (did you mean " + keyPath(path, near) + "?)"
		}
		w.notes = append(w.notes, keyNote{off, msg})
	}
}

// fieldOf finds the field of struct type t that encoding/json decodes key
// into (an exact name first, else one equal ignoring case), with its name.
func fieldOf(t reflect.Type, key string) (reflect.Type, string) {
	var folded reflect.Type
	foldedName := ""
	for i := range t.NumField() {
		f := t.Field(i)
		name := jsonName(f)
		switch {
		case name == "":
		case name == key:
			return f.Type, name
		case folded == nil && strings.EqualFold(name, key):
			folded, foldedName = f.Type, name
		}
	}
	return folded, foldedName
}

// jsonNames lists the keys of struct type t.
func jsonNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		if name := jsonName(t.Field(i)); name != "" {
			names = append(names, name)
		}
	}
	return names
}

func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

// nearest returns the name closest to key when it is close enough to be a
// slip of the fingers (at most a third of its letters different, two at
// least), or "".
func nearest(key string, names []string) string {
	best, bestDist := "", -1
	for _, name := range names {
		d := editDistance(strings.ToLower(key), name)
		if d <= max(2, len(name)/3) && (bestDist < 0 || d < bestDist) {
			best, bestDist = name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes (keys
// are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
