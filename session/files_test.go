package session_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"myco/session"
)

func TestSniffFile(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		want    string
		wantErr error
		says    string
	}{
		{"go source", []byte("package main\n"), session.MediaText, nil, ""},
		{"utf-8 with a BOM", []byte("\xef\xbb\xbfhé\r\n\tok"), session.MediaText, nil, ""},
		{"a pdf", []byte("%PDF-1.4\n%…"), session.MediaPDF, nil, ""},
		{"html is text", []byte("<html><script>x</script></html>"), session.MediaText, nil, ""},
		{"empty", nil, "", session.ErrFileType, "x is empty"},
		{"a NUL", []byte("abc\x00def"), "", session.ErrFileType, "x is binary data"},
		{"latin-1", []byte("caf\xe9"), "", session.ErrFileType, "x is"},
		{"a png", []byte("\x89PNG\r\n\x1a\nrest"), "", session.ErrFileType, "x is"},
		{"a zip", []byte("PK\x03\x04\x00\x00"), "", session.ErrFileType, "x is a zip archive"},
		{"text over the limit", bytes.Repeat([]byte("a"), session.MaxTextFileSize+1), "", session.ErrFileTooLarge, "text files may be up to 1.0 MB"},
		{"text at the limit", bytes.Repeat([]byte("a"), session.MaxTextFileSize), session.MediaText, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := session.SniffFile("x", tt.data)
			if got != tt.want || !errors.Is(err, tt.wantErr) || (err != nil && !strings.Contains(err.Error(), tt.says)) {
				t.Errorf("SniffFile = %q, %v; want %q, %v saying %q", got, err, tt.want, tt.wantErr, tt.says)
			}
		})
	}
}

func TestCleanFileName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"main.go", "main.go"},
		{"../../etc/passwd", "passwd"},
		{`C:\Users\me\notes.txt`, "notes.txt"},
		{"a\x00b\nc.txt", "abc.txt"},
		{"", "file"},
		{"..", "file"},
		{strings.Repeat("é", 200), strings.Repeat("é", 127)},
	}
	for _, tt := range tests {
		if got := session.CleanFileName(tt.in); got != tt.want {
			t.Errorf("CleanFileName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestPutFileOnceAndKeptByGC: the same bytes are one blob whatever their
// name, and a document's file block keeps the blob from the collector.
func TestPutFileOnceAndKeptByGC(t *testing.T) {
	im, err := session.OpenImages(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, err := im.PutFile("a.txt", []byte("same\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := im.PutFile("b.md", []byte("same\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a.SHA256 != b.SHA256 || a.Name != "a.txt" || b.Name != "b.md" {
		t.Fatalf("refs %+v and %+v", a, b)
	}
	doc := &session.Document{Threads: []session.Thread{{Messages: []session.Message{{ID: "m", Role: "user", Content: []session.Block{a.Block()}}}}}}
	refs := map[string]bool{}
	doc.ImageRefs(func(sha string) { refs[sha] = true })
	if _, err := im.Collect(refs, false, nil); err != nil {
		t.Fatal(err)
	}
	if !im.Has(a.SHA256) {
		t.Error("the collector removed a file a document refers to")
	}
	im2Data, ref, err := im.ReadFile(strings.Repeat("ef", 32), "gone.pdf")
	if !errors.Is(err, session.ErrFileMissing) || !strings.Contains(err.Error(), "gone.pdf") || im2Data != nil || ref.SHA256 != "" {
		t.Errorf("ReadFile of a missing blob: %v", err)
	}
}
