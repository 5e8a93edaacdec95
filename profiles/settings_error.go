package profiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unicode/utf8"
)

// SettingsError is a settings file that cannot be used, with the place in it
// to fix. It reads like a compiler's error so that editors can jump there.
type SettingsError struct {
	Path   string
	Line   int // 1-based; 0 when the place is unknown
	Column int // 1-based, in characters
	Err    error
}

func (e *SettingsError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("settings %s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("settings %s:%d:%d: %v", e.Path, e.Line, e.Column, e.Err)
}

func (e *SettingsError) Unwrap() error { return e.Err }

// SettingsWarning is a key of a settings file that myco ignores or reads
// otherwise than written, with its place; the file is still used.
type SettingsWarning struct {
	Path   string
	Line   int // 1-based
	Column int // 1-based, in characters
	Msg    string
}

func (w SettingsWarning) String() string {
	return fmt.Sprintf("settings %s:%d:%d: %s", w.Path, w.Line, w.Column, w.Msg)
}

func newSettingsWarnings(path string, data []byte, notes []keyNote) []SettingsWarning {
	var out []SettingsWarning
	for _, n := range notes {
		line, col := position(data, n.off)
		out = append(out, SettingsWarning{Path: path, Line: line, Column: col, Msg: n.msg})
	}
	return out
}

func newSettingsError(path string, data []byte, err error) *SettingsError {
	off, err := locate(data, err)
	e := &SettingsError{Path: path, Err: err}
	if off >= 0 {
		e.Line, e.Column = position(data, off)
	}
	return e
}

// locate returns the offset of the byte err is about, or -1, and err in the
// words of the file.
func locate(data []byte, err error) (int64, error) {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var field *fieldError
	var key *keyError
	switch {
	case errors.As(err, &key):
		return key.off, err
	case errors.As(err, &syn):
		// Offset counts the bytes read, the last of which was refused.
		return syn.Offset - 1, err
	case errors.As(err, &typ):
		return typeError(data, typ)
	case errors.As(err, &field):
		return valueStart(data, field.path), err
	}
	return -1, err
}

// typeError names the value by its full path and points at its start: the
// decoder's Field leaves out map keys and array indexes, and its Offset is
// the end of a literal but the inside of an object or array.
func typeError(data []byte, e *json.UnmarshalTypeError) (int64, error) {
	msg := "must be " + describe(e.Type)
	for _, v := range values(data) {
		if (!v.container && v.end == e.Offset) || (v.container && v.start+1 == e.Offset) {
			return v.start, &fieldError{path: v.path, msg: msg, err: e}
		}
	}
	return e.Offset, &fieldError{path: e.Field, msg: msg, err: e}
}

func describe(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return describe(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a " + t.String()
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, column int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[lineStart:]) + 1
}

// valueStart returns where the value at path starts, or -1. When a key
// repeats, the decoder keeps the last one, and so does this.
func valueStart(data []byte, path string) int64 {
	start := int64(-1)
	for _, v := range values(data) {
		if v.path == path {
			start = v.start
		}
	}
	return start
}

// jsonValue is one value of a JSON document and where it lies.
type jsonValue struct {
	path       string
	start, end int64
	container  bool
}

// values lists every value of data, which must be valid JSON.
func values(data []byte) []jsonValue {
	var out []jsonValue
	walkValue(json.NewDecoder(bytes.NewReader(data)), data, "", &out)
	return out
}

func walkValue(dec *json.Decoder, data []byte, path string, out *[]jsonValue) error {
	start := skipToValue(data, dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	delim, container := tok.(json.Delim)
	if container {
		if err := walkChildren(dec, data, path, delim, out); err != nil {
			return err
		}
	}
	*out = append(*out, jsonValue{path: path, start: start, end: dec.InputOffset(), container: container})
	return nil
}

func walkChildren(dec *json.Decoder, data []byte, path string, delim json.Delim, out *[]jsonValue) error {
	for i := 0; dec.More(); i++ {
		child := fmt.Sprintf("%s[%d]", path, i)
		if delim == '{' {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			child = keyPath(path, key)
		}
		if err := walkValue(dec, data, child, out); err != nil {
			return err
		}
	}
	_, err := dec.Token() // the closing delimiter
	return err
}

// skipToValue steps over what the decoder skips before a value.
func skipToValue(data []byte, off int64) int64 {
	for off < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n,:"), data[off]) >= 0 {
		off++
	}
	return off
}
