// Package importer brings other agents' stored sessions into myco: Claude
// Code's JSON-lines transcripts, Codex's rollouts and opencode's database
// (or its JSON storage before 1.2). Each source session becomes one myco
// session, made whole in one atomic save or not at all, under an ID derived from the source's own
// (SessionID), so importing the same source again finds it and makes
// nothing. Sources are only ever opened for reading.
//
// The formats are the tools' internal ones and change between releases
// (/work/shared/PEER-FORMATS.md): readers are lenient, skip and count what
// they cannot parse, and keep as text what has no myco equivalent.
package importer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"myco/internal/errkind"
	"myco/session"
)

// The tools an import reads.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	OpenCode   = "opencode"
)

// Tools lists the tools in the order the CLI and the page show them.
var Tools = []string{ClaudeCode, Codex, OpenCode}

var (
	// ErrUnknownTool is a tool name import does not know.
	ErrUnknownTool = errkind.New(errkind.Invalid, "unknown tool")
	// ErrNotSession is a file that holds no session of the tool.
	ErrNotSession = errkind.New(errkind.Invalid, "not a session")
	// ErrTooLarge is a source file larger than MaxSourceSize.
	ErrTooLarge = errkind.New(errkind.TooLarge, "too large")
)

// MaxLine bounds one line of a JSON-lines source: a longer line (a runaway
// tool output, a damaged file) is skipped and counted, never held whole.
// Claude Code keeps images inline as base64, so a line of a few MiB is
// normal.
const MaxLine = 32 << 20

// MaxSourceSize bounds what one source session may hold, as
// session.MaxDocumentSize bounds a document.
const MaxSourceSize = session.MaxDocumentSize

// MaxWalk bounds the files and folders an import looks through under one
// path: a path named by mistake (/, a home folder) is refused rather than
// searched for hours.
const MaxWalk = 1_000_000

// Candidate is one source session found under a path: the file (or, for
// opencode, the session's info file) and the tool's ID for it.
type Candidate struct {
	Tool string
	ID   string
	Path string
}

// SessionID is the myco session ID an import of the tool's session id
// gets: a name-based UUID (version 5), so the same source always maps to
// the same session and a second import finds the first.
func SessionID(tool, id string) string {
	return uuid.NewSHA1(namespace, []byte(tool+"\x00"+id)).String()
}

// namespace is the UUID namespace of imported sessions' IDs.
var namespace = uuid.MustParse("6d79636f-696d-5000-8000-706f72747321")

// Conversation is a source session read and converted, not yet stored.
type Conversation struct {
	Source   session.Source
	Title    string
	Cwd      string
	Model    string
	Created  time.Time
	Updated  time.Time
	Messages []session.Message
	// Images are the images' bytes by the SHA-256 the messages name,
	// stored before the document that refers to them.
	Images map[string][]byte
	// Skipped counts the lines (or files) that could not be parsed.
	Skipped int
	// Notes say what was kept as text or left out, for the report.
	Notes []string
	// Archived: the tool had archived the session, and it lands in
	// myco's archived sessions.
	Archived bool
}

// note records something the conversion could not map, once per kind
// with a count.
type notes struct{ counts map[string]int }

func (n *notes) add(what string) {
	if n.counts == nil {
		n.counts = map[string]int{}
	}
	n.counts[what]++
}

func (n *notes) list() []string {
	out := make([]string, 0, len(n.counts))
	for what, c := range n.counts {
		if c == 1 {
			out = append(out, what)
		} else {
			out = append(out, fmt.Sprintf("%s (×%d)", what, c))
		}
	}
	sort.Strings(out)
	return out
}

// reader is one tool's format: where its sessions are and how to read one.
type reader interface {
	// find lists the sessions under path (a file or a folder).
	find(path string) ([]Candidate, error)
	// read converts one.
	read(c Candidate) (*Conversation, error)
}

// closer is a reader that holds something open for the import's length
// (opencode's database).
type closer interface{ close() }

func readerFor(tool string) (reader, error) {
	switch tool {
	case ClaudeCode:
		return claudeCode{}, nil
	case Codex:
		return codex{}, nil
	case OpenCode:
		return &opencode{}, nil
	}
	return nil, fmt.Errorf("%w %q: one of %s", ErrUnknownTool, tool, strings.Join(Tools, ", "))
}

// DefaultPath is where the tool keeps its sessions for the person whose
// environment getenv reads.
func DefaultPath(tool string, getenv func(string) string) (string, error) {
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the home folder: %w", err)
		}
		home = h
	}
	switch tool {
	case ClaudeCode:
		if dir := getenv("CLAUDE_CONFIG_DIR"); dir != "" {
			return filepath.Join(dir, "projects"), nil
		}
		return filepath.Join(home, ".claude", "projects"), nil
	case Codex:
		if dir := getenv("CODEX_HOME"); dir != "" {
			return filepath.Join(dir, "sessions"), nil
		}
		return filepath.Join(home, ".codex", "sessions"), nil
	case OpenCode:
		data := getenv("XDG_DATA_HOME")
		if data == "" {
			data = filepath.Join(home, ".local", "share")
		}
		// opencode.db, or storage/ before 1.2: the reader finds either.
		return filepath.Join(data, "opencode"), nil
	}
	return "", fmt.Errorf("%w %q: one of %s", ErrUnknownTool, tool, strings.Join(Tools, ", "))
}

// Problem is a path that was not imported, and why.
type Problem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// errNotFolder is returned by walk for a path that is neither a file nor
// a folder.
var errNotFolder = errors.New("not a file or a folder")

// walk lists the regular files under root that keep says are sessions,
// without following links (a link could lead anywhere); root itself may
// be a link the person gave.
func walk(root string, keep func(path string, d os.DirEntry) bool) ([]string, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if info.Mode().IsRegular() {
		return []string{root}, nil
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s: %w", root, errNotFolder)
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	var out []string
	seen := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			return nil // an unreadable folder below: skip it
		}
		if seen++; seen > MaxWalk {
			return fmt.Errorf("%w: more than %d files and folders under %s: name the tool's folder", ErrTooLarge, MaxWalk, root)
		}
		if d.Type().IsRegular() && keep(path, d) {
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// plural is "1 message", "2 messages".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
