package custom

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

const (
	// maxCommandFile bounds a command's file: its text is a message.
	maxCommandFile = 64 << 10
	// maxSkillFile bounds what is read of a SKILL.md; a longer one is cut
	// with a note when the agent loads it.
	maxSkillFile = 64 << 10
	// maxSkillBody is what the agent is given of a skill's body.
	maxSkillBody = 32 << 10
	// maxDescription bounds a description (the Agent Skills limit): each
	// skill's costs the prompt a line.
	maxDescription = 1024
	// maxPerFolder bounds the files looked at in one folder, and
	// maxDepth how deep commands' subfolders go.
	maxPerFolder = 500
	maxDepth     = 3
	// maxSkillFiles bounds the list of a skill's files the agent is given.
	maxSkillFiles = 200
)

// namePart is one part of a command's name, or a skill's name: what the
// composer lets a person type.
var namePart = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// Allow says whether a file may be read: nil, or why not (settings'
// denied paths, myco's own data).
type Allow func(path string) error

// Loader reads commands and skills, keeping what it parsed by path, size
// and modification time. It is safe for concurrent use.
type Loader struct {
	allow    Allow
	builtins map[string]bool

	mu    sync.Mutex
	files map[string]parsed
}

// parsed is a file as last read.
type parsed struct {
	size int64
	mod  time.Time
	fm   frontmatter
	body string
	err  string // why it cannot be used
}

// NewLoader returns a Loader. allow may be nil; builtins are the
// composer's own command names, which a custom command never replaces.
func NewLoader(allow Allow, builtins []string) *Loader {
	b := make(map[string]bool, len(builtins))
	for _, n := range builtins {
		b[strings.ToLower(n)] = true
	}
	return &Loader{allow: allow, builtins: b, files: map[string]parsed{}}
}

// read parses the file at path, or gives the copy parsed when it had this
// size and time. limit bounds what is read; over it, cut says what to do:
// false refuses the file, true keeps its head.
func (l *Loader) read(path string, info fs.FileInfo, limit int64, cut bool) parsed {
	// Denial is asked each time: the settings may have changed since.
	if err := l.allowed(path); err != nil {
		return parsed{err: err.Error()}
	}
	l.mu.Lock()
	p, ok := l.files[path]
	l.mu.Unlock()
	if ok && p.size == info.Size() && p.mod.Equal(info.ModTime()) {
		return p
	}
	p = parsed{size: info.Size(), mod: info.ModTime()}
	text, err := l.readText(path, info, limit, cut)
	if err != nil {
		p.err = err.Error()
	} else {
		fm, body, err := splitFrontmatter(text)
		p.fm, p.body = fm, body
		if err != nil {
			p.err = err.Error()
		}
	}
	l.mu.Lock()
	if len(l.files) > 4*maxPerFolder {
		clear(l.files) // a bound, not an eviction policy: files are cheap to read again
	}
	l.files[path] = p
	l.mu.Unlock()
	return p
}

func (l *Loader) readText(path string, info fs.FileInfo, limit int64, cut bool) (string, error) {
	if !info.Mode().IsRegular() {
		return "", errors.New("not a regular file")
	}
	if err := l.allowed(path); err != nil {
		return "", err
	}
	if info.Size() > limit && !cut {
		return "", fmt.Errorf("too large: %d KB, at most %d KB", info.Size()>>10, limit>>10)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("not readable: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return "", fmt.Errorf("not readable: %w", err)
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return "", errors.New("not a text file")
	}
	if !utf8.Valid(b) {
		// Cut inside a character, or not UTF-8: keep what is.
		b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	return string(b), nil
}

func (l *Loader) allowed(path string) error {
	if l.allow == nil {
		return nil
	}
	if err := l.allow(path); err != nil {
		return fmt.Errorf("not read: %w", err)
	}
	return nil
}

// readDir lists dir's entries, nil when it is not there.
func readDir(path string) ([]os.DirEntry, error) {
	ents, err := os.ReadDir(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return nil, nil
	}
	return ents, err
}

// oneLine is s on one line, at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n-len("…")], "") + "…"
	}
	return s
}

// firstLine is the first non-empty line of body, for a file without a
// description (Claude Code does the same).
func firstLine(body string) string {
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line != "" {
			return line
		}
	}
	return ""
}

// origin is how a folder is named to people: ".claude/commands" in the
// session's folder, "../.claude/commands" in one above it,
// "~/.claude/commands" in home.
func origin(d dir, p Places) string {
	if d.scope == ScopeProject && p.Folder != "" {
		if rel, err := filepath.Rel(filepath.Clean(p.Folder), d.path); err == nil {
			return rel // the session's folder or one above it, always
		}
	}
	if p.Home != "" {
		if rel, err := filepath.Rel(filepath.Clean(p.Home), d.path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return d.path
}
