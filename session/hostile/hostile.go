// Package hostile builds the hostile session corpus: a session folder of
// entries named like documents that are damaged, or are not what they
// seem (a FIFO, a link to /dev/zero, a folder, a 100 MB string…). FIFOs,
// sockets and links to devices cannot be committed, so the corpus is made
// by Build in a test's own folder rather than kept under testdata/.
//
// Each Entry says what a reader must make of it: read correctly, or listed
// and loaded as damaged with a reason containing a given text. The tests
// of session (every read path) and of the server (a page still answers
// after each entry) share it.
package hostile

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Entry is one hostile entry of the corpus.
type Entry struct {
	Name string // what it is, for test names
	ID   string // the session ID its file name carries
	// ListReason is a text the listing's Damaged must contain; "" when
	// the listing must show it readable (its journal may still be bad).
	ListReason string
	// LoadReason is a text the error of Load must contain; "" when Load
	// must succeed.
	LoadReason string
	// Check, when set, checks a successful Load's document (as JSON
	// encodable value: the caller passes the title and message count).
	Title    string
	Messages int
	// Paths are the entry's files, whose fingerprints must not change.
	Paths []string
}

// Readable reports whether the entry must load.
func (e Entry) Readable() bool { return e.LoadReason == "" }

const header = `"schema": 1, "created_at": "2026-11-01T09:00:00Z", "updated_at": "2026-11-01T09:00:00Z"`

// doc is a well-formed document of id with the given messages (JSON).
func doc(id, title string, messages ...string) string {
	return fmt.Sprintf(`{%s, "id": %s, "title": %s, "threads": [{"created_at": "2026-11-01T09:00:00Z", "messages": [%s]}]}`,
		header, str(id), str(title), strings.Join(messages, ", "))
}

// str is s as a JSON string.
func str(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a string always encodes
	}
	return string(b)
}

func user(n int, text string) string {
	return fmt.Sprintf(`{"id": "u%d", "role": "user", "at": "2026-11-01T09:00:00Z", "human": true, "content": [{"type": "text", "text": %s}]}`, n, str(text))
}

// Build makes the corpus in dir (a store's session folder, which must
// exist) and returns its entries. Entries the system cannot make (a
// device node needs root, a socket a short path) are left out; skipped
// names why.
func Build(dir string) (entries []Entry, skipped []string, err error) {
	n := 0
	next := func() string { n++; return fmt.Sprintf("0193c7b2-0000-7000-8000-000000000e%02x", n) }
	docPath := func(id string) string { return filepath.Join(dir, id+".json") }
	file := func(name, content, listReason, loadReason string) {
		if err != nil {
			return
		}
		id := next()
		content = strings.ReplaceAll(content, "$ID", id)
		err = os.WriteFile(docPath(id), []byte(content), 0o600)
		entries = append(entries, Entry{Name: name, ID: id, ListReason: listReason, LoadReason: loadReason, Paths: []string{docPath(id)}})
	}
	readable := func(name, content, title string, messages int) {
		file(name, content, "", "")
		if err == nil {
			entries[len(entries)-1].Title, entries[len(entries)-1].Messages = title, messages
		}
	}
	special := func(name, reason string, make func(path string) error) {
		if err != nil {
			return
		}
		id := next()
		if merr := make(docPath(id)); merr != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", name, merr))
			return
		}
		entries = append(entries, Entry{Name: name, ID: id, ListReason: reason, LoadReason: reason, Paths: []string{docPath(id)}})
	}
	// A valid document with a hostile journal: listed fine (a listing
	// reads the document only), refused when loaded.
	journal := func(name, reason string, make func(path string) error) {
		if err != nil {
			return
		}
		id := next()
		if err = os.WriteFile(docPath(id), []byte(doc(id, name)), 0o600); err != nil {
			return
		}
		jp := filepath.Join(dir, id+".journal")
		if merr := make(jp); merr != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", name, merr))
			os.Remove(docPath(id))
			return
		}
		entries = append(entries, Entry{Name: name, ID: id, LoadReason: reason, Paths: []string{docPath(id), jp}})
	}
	link := func(target string) func(string) error {
		return func(p string) error { return os.Symlink(target, p) }
	}

	// Not files.
	special("FIFO", "named pipe", func(p string) error { return syscall.Mkfifo(p, 0o600) })
	special("link to /dev/zero", "a link, not a file", link("/dev/zero"))
	special("link to /etc/passwd", "a link, not a file", link("/etc/passwd"))
	special("link to /dev/stdin", "a link, not a file", link("/dev/stdin"))
	special("dangling link", "a link, not a file", link(filepath.Join(dir, "nowhere.json")))
	special("link loop", "a link, not a file", func(p string) error { return os.Symlink(p, p) })
	special("folder", "a folder, not a file", func(p string) error { return os.Mkdir(p, 0o700) })
	special("folder holding a document", "a folder, not a file", func(p string) error {
		if err := os.Mkdir(p, 0o700); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(p, "x.json"), []byte("{}"), 0o600)
	})
	special("unix socket", "not a file", func(p string) error {
		l, err := net.Listen("unix", p)
		if err != nil {
			return err
		}
		// Closing a listener removes its file; keep the file, drop the fd.
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		return l.Close()
	})
	special("character device", "a device, not a file", func(p string) error {
		return syscall.Mknod(p, syscall.S_IFCHR|0o600, int(1<<8|5)) // like /dev/zero: 1,5
	})
	// A link to a readable document of this same folder is still a link.
	if err == nil {
		target := next()
		if err = os.WriteFile(docPath(target), []byte(doc(target, "link target")), 0o600); err == nil {
			entries = append(entries, Entry{Name: "link target", ID: target, Title: "link target", Paths: []string{docPath(target)}})
			special("link to a document inside the profile", "a link, not a file", link(docPath(target)))
		}
	}
	// Sizes.
	special("sparse file past the maximum", "larger than the maximum", func(p string) error {
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Truncate(257 << 20)
	})
	big := strings.Repeat("x", 100<<20)
	readable("a 100 MB string", doc("$ID", "big", user(1, big)), "big", 1)

	// JSON that is not a document.
	file("empty file", "", "truncated", "truncated")
	file("NUL bytes", "\x00\x00\x00\x00", "invalid character", "invalid character")
	file("null", "null", "no schema", "no schema")
	file("an array", "[1, 2, 3]", "array", "array")
	file("a string", `"hello"`, "string", "string")
	file("byte order mark", "\ufeff"+doc("$ID", "bom"), "invalid character", "invalid character")
	file("duplicate keys", `{"schema": 1, "id": "$ID", "title": "a", "title": "b", "threads": []}`, "duplicate", "duplicate")
	file("duplicate id key", `{"schema": 1, "id": "$ID", "id": "other", "threads": []}`, "duplicate", "duplicate")
	file("schema as a string", `{"schema": "1", "id": "$ID"}`, "schema", "schema")
	file("schema 1e400", `{"schema": 1e400, "id": "$ID"}`, "schema", "schema")
	file("lone surrogate in the title", `{`+header+`, "id": "$ID", "title": "\ud800", "threads": []}`, "surrogate", "surrogate")
	file("date that is not a date", `{"schema": 1, "id": "$ID", "created_at": "yesterday", "threads": []}`, "created_at", "created_at")
	file("id of another path", `{"schema": 1, "id": "../../etc/passwd", "threads": []}`, "does not match", "does not match")
	file("NULs after the document", doc("$ID", "x")+"\x00\x00", "after top-level value", "after top-level value")
	file("nested ten thousand deep", `{"schema": 1, "id": "$ID", "extra": `+strings.Repeat("[", 10001)+strings.Repeat("]", 10001)+`}`, "depth", "depth")
	file("message content is an object", doc("$ID", "x", `{"id": "m", "role": "user", "content": {"type": "text"}}`), "content", "content")

	// Odd but readable.
	readable("tool_use without its result", doc("$ID", "orphan tool", user(1, "go"),
		`{"id": "a1", "role": "assistant", "at": "2026-11-01T09:00:01Z", "content": [{"type": "tool_use", "id": "toolu_X", "name": "bash", "input": {"command": "ls"}}]}`),
		"orphan tool", 2)
	readable("tool_result without its tool_use", doc("$ID", "orphan result",
		`{"id": "u1", "role": "user", "at": "2026-11-01T09:00:00Z", "content": [{"type": "tool_result", "tool_use_id": "toolu_nowhere", "content": "ok"}]}`),
		"orphan result", 1)
	notImage := base64.StdEncoding.EncodeToString([]byte("#!/bin/sh\nrm -rf /\n"))
	readable("inline image that is not an image", doc("$ID", "not an image",
		`{"id": "u1", "role": "user", "at": "2026-11-01T09:00:00Z", "human": true, "content": [{"type": "image", "media_type": "image/png", "data": "`+notImage+`"}]}`),
		"not an image", 1)
	readable("image naming a blob that is not there", doc("$ID", "missing blob",
		`{"id": "u1", "role": "user", "at": "2026-11-01T09:00:00Z", "human": true, "content": [{"type": "image", "media_type": "image/png", "sha256": "`+strings.Repeat("ab", 32)+`"}]}`),
		"missing blob", 1)
	readable("unknown block type", doc("$ID", "unknown block",
		`{"id": "u1", "role": "user", "at": "2026-11-01T09:00:00Z", "content": [{"type": "hologram", "beam": 3}]}`),
		"unknown block", 1)
	readable("HTML and script in the title", doc("$ID", `<script>alert(1)</script><img src=x onerror=alert(2)>`, user(1, `<iframe src="javascript:alert(3)">`)),
		`<script>alert(1)</script><img src=x onerror=alert(2)>`, 1)
	readable("control characters in the title", doc("$ID", "a\u0000b\u001bc\u202ed"), "a\u0000b\u001bc\u202ed", 0)
	readable("ten thousand messages", doc("$ID", "many", manyUsers(10000)...), "many", 10000)
	readable("whitespace megabytes before the document", strings.Repeat(" \n", 4<<20)+doc("$ID", "padded"), "padded", 0)
	// A hard link to another document of the folder: the same, readable file.
	if err == nil {
		id := next()
		src := docPath(id) + ".src"
		if err = os.WriteFile(src, []byte(doc(id, "hard link")), 0o600); err == nil {
			if err = os.Link(src, docPath(id)); err == nil {
				err = os.Remove(src)
			}
			entries = append(entries, Entry{Name: "hard link", ID: id, Title: "hard link", Paths: []string{docPath(id)}})
		}
	}

	// Hostile journals.
	journal("journal is a FIFO", "named pipe", func(p string) error { return syscall.Mkfifo(p, 0o600) })
	journal("journal links to /dev/zero", "a link, not a file", link("/dev/zero"))
	journal("journal is a folder", "a folder, not a file", func(p string) error { return os.Mkdir(p, 0o700) })
	journal("journal line is garbage", "journal line 1", func(p string) error { return os.WriteFile(p, []byte("{{{\n"), 0o600) })
	return entries, skipped, err
}

func manyUsers(n int) []string {
	ms := make([]string, n)
	for i := range ms {
		ms[i] = user(i, "hi")
	}
	return ms
}

// Fingerprint describes the file at path without following a link: its
// kind and mode, a link's target, a regular file's size and SHA-256. Two
// equal fingerprints are the same entry, byte for byte.
func Fingerprint(path string) (string, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	fp := info.Mode().String()
	switch {
	case info.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		return fp + " -> " + target, nil
	case info.Mode().IsRegular():
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return "", err
		}
		return fmt.Sprintf("%s %d %s", fp, info.Size(), hex.EncodeToString(h.Sum(nil))), nil
	case info.IsDir():
		names, err := os.ReadDir(path)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s %d entries", fp, len(names)), nil
	}
	return fp, nil
}
