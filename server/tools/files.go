package tools

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"myco/internal/errkind"
)

// Limits of the file tools.
const (
	ReadLinesDefault = 2000      // lines read_file shows when no limit is given
	ReadMaxBytes     = 100 << 10 // numbered text one read_file answer holds
	LineMaxChars     = 2000      // longer lines are cut in read_file's answer
	ImageMaxBytes    = 3_750_000 // 5 MB once base64-encoded: the providers' limit per image
	ChangeMaxBytes   = 16 << 20  // largest file edit_file and write_file change
)

// Errors of the file tools. Each error they return wraps one of these, so
// the caller can tell the agent's mistakes from the file system's refusals.
var (
	ErrFileInput = errkind.New(errkind.Invalid, "invalid file tool input")
	ErrNotRead   = errors.New("file not read in this session")
	ErrStale     = errors.New("file changed since it was read")
	ErrDenied    = errkind.New(errkind.Forbidden, "path denied")
	ErrNotText   = errkind.New(errkind.Invalid, "not a text file")
	ErrNoFile    = errkind.New(errkind.NotFound, "no such file")
	ErrNotFile   = errkind.New(errkind.Invalid, "not a regular file")
	ErrTooLarge  = errkind.New(errkind.Invalid, "file too large")
	ErrEdit      = errors.New("edit cannot be applied")
)

// fileError is a refusal the agent reads as it is; its kind, one of the
// sentinels above, is for callers.
type fileError struct {
	kind error
	msg  string
}

func (e *fileError) Error() string { return e.msg }
func (e *fileError) Unwrap() error { return e.kind }

func fail(kind error, format string, args ...any) error {
	return &fileError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// ReadInput is the input of the read_file tool.
type ReadInput struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"` // first line shown, 1-based; 0 means 1
	Limit  int    `json:"limit,omitempty"`  // lines shown; 0 means ReadLinesDefault
}

// Range is the lines asked for, with the defaults filled in.
func (in ReadInput) Range() (offset, limit int) {
	offset, limit = max(in.Offset, 1), in.Limit
	if limit <= 0 {
		limit = ReadLinesDefault
	}
	return offset, limit
}

// WriteInput is the input of the write_file tool.
type WriteInput struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// EditInput is the input of the edit_file tool.
type EditInput struct {
	Path  string `json:"path"`
	Edits []Edit `json:"edits"`
}

// Edit replaces OldText, which must occur exactly once, by NewText.
type Edit struct {
	OldText string `json:"old_text"`
	NewText string `json:"new_text"`
}

// ReadFileDescription tells the model what read_file does.
const ReadFileDescription = "Read a text file or an image. path is relative to your shell's current folder, or absolute. " +
	"Text comes back as numbered lines, like cat -n (the numbers and the tab after them are not part of the file): " +
	"from line offset (1-based, default 1), at most limit lines (default 2000) and at most 100 KB; " +
	"a note at the end says what was left out and how to read on. Lines longer than 2000 characters are cut. " +
	"PNG, JPEG, GIF and WebP files come back as images; other binary files are refused. " +
	"A read records the file as seen: write_file and edit_file change an existing file only after you read it, " +
	"and only while it is unchanged since. Reading an unchanged file again with the same range is answered " +
	"with a note instead of its content. Some paths are denied by settings (secrets, myco's own files)."

// WriteFileDescription tells the model what write_file does.
const WriteFileDescription = "Write a whole file: create it (and its folders), or replace an existing file " +
	"that you have read with read_file and that has not changed since. To change part of a file use edit_file. " +
	"The person approves the change, shown as a diff, unless their settings allow edits. " +
	"The write is atomic and keeps the file's mode."

// EditFileDescription tells the model what edit_file does.
const EditFileDescription = "Change an existing file by replacing exact text. Read the file with read_file first; " +
	"the edit is refused if it changed since. Each edit replaces old_text, which must occur exactly once in the file, " +
	"by new_text: copy old_text exactly (indentation, tabs, trailing spaces) without read_file's line numbers, " +
	"and include enough surrounding lines to make it unique. Edits apply in order, each to the result of the ones " +
	"before; if one fails, none is applied. The person approves the change, shown as a diff, " +
	"unless their settings allow edits."

// ReadFileSchema is the JSON schema of ReadInput.
var ReadFileSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"path":   map[string]any{"type": "string", "description": "The file: relative to your shell's current folder, or absolute."},
		"offset": map[string]any{"type": "integer", "minimum": 1, "description": "First line to show, 1-based (default 1)."},
		"limit":  map[string]any{"type": "integer", "minimum": 1, "description": "How many lines to show (default 2000)."},
	},
	"required":             []string{"path"},
	"additionalProperties": false,
}

// WriteFileSchema is the JSON schema of WriteInput.
var WriteFileSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"path":    map[string]any{"type": "string", "description": "The file: relative to your shell's current folder, or absolute."},
		"content": map[string]any{"type": "string", "description": "The whole new content of the file."},
	},
	"required":             []string{"path", "content"},
	"additionalProperties": false,
}

// EditFileSchema is the JSON schema of EditInput.
var EditFileSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"path": map[string]any{"type": "string", "description": "The file: relative to your shell's current folder, or absolute."},
		"edits": map[string]any{
			"type":     "array",
			"minItems": 1,
			"items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"old_text": map[string]any{"type": "string", "description": "Text to replace: exact, occurring once in the file."},
					"new_text": map[string]any{"type": "string", "description": "What replaces it (empty to delete it)."},
				},
				"required":             []string{"old_text", "new_text"},
				"additionalProperties": false,
			},
			"description": "Replacements, applied in order, all or none.",
		},
	},
	"required":             []string{"path", "edits"},
	"additionalProperties": false,
}

// Target is a file a tool acts on: Path as the agent named it (made
// absolute), Real where it is once links are followed. Tools read and
// write Real and speak of Path.
type Target struct {
	Path string
	Real string
	// denied, when Resolve made the target, checks the opened file's
	// identity: a hard link to a denied file (files_identity.go).
	denied *Denied
}

// AbsPath makes p absolute: relative to cwd, or to home after "~/".
func AbsPath(cwd, home, p string) (string, error) {
	switch {
	case strings.TrimSpace(p) == "":
		return "", fail(ErrFileInput, "path is empty")
	case strings.ContainsRune(p, 0):
		return "", fail(ErrFileInput, "path contains a NUL byte")
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return "", fail(ErrFileInput, "%s: the home folder is unknown", p)
		}
		p = filepath.Join(home, p[1:])
	case !filepath.IsAbs(p):
		if cwd == "" {
			return "", fail(ErrFileInput, "%q is relative, and there is no folder to take it from: give an absolute path (or one starting with ~/)", p)
		}
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p), nil
}
