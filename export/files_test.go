package export_test

import (
	"strings"
	"testing"

	"myco/export"
	"myco/session"
)

// TestFileReferences: every format names an attached file by its name,
// type, size and SHA-256 (the bytes stay in the store).
func TestFileReferences(t *testing.T) {
	doc, im := fixture(t)
	ref := session.FileRef{SHA256: strings.Repeat("ab", 32), Name: "main.go", MediaType: session.MediaText, Size: 1234}
	th := &doc.Threads[len(doc.Threads)-1]
	th.Messages = append(th.Messages, session.Message{ID: "with-file", Role: "user", Human: true,
		Content: []session.Block{ref.Block(), {Type: session.BlockText, Text: "look at this"}}})
	tests := []struct {
		format export.Format
		want   []string
	}{
		{export.Markdown, []string{"*[file main.go text/plain 1234 bytes sha256:" + ref.SHA256 + "]*"}},
		{export.HTML, []string{`data-testid="export-file"`, "<strong>main.go</strong> (1.2 KB, text/plain)", "sha256:" + ref.SHA256}},
		{export.JSON, []string{`"type": "file"`, `"name": "main.go"`, `"size": 1234`, `"sha256": "` + ref.SHA256 + `"`}},
	}
	for _, tt := range tests {
		out, err := export.Render(doc, tt.format, im)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("format %v lacks %q", tt.format, w)
			}
		}
	}
}
