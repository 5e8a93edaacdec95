package llm

import (
	"os"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"myco/session"
)

// TestOpenAIFilePart: api.openai.com reads PDFs, so it gets a file part
// holding the PDF as a data URL, with the file's name.
func TestOpenAIFilePart(t *testing.T) {
	store, err := session.OpenImages(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../testdata/documents/hello.pdf")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := store.PutFile("hello.pdf", raw)
	if err != nil {
		t.Fatal(err)
	}
	l := newImageLoader(store)
	part, err := openaiFile(ref.Block(), l, true)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(part)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"type":"file"`) || !strings.Contains(string(got), `"file_data":"data:application/pdf;base64,JVBERi0x`) ||
		!strings.Contains(string(got), `"filename":"hello.pdf"`) {
		t.Errorf("part = %.300s", got)
	}
}

// TestExtractPDFText: the text of the test PDF, the same on every call;
// bytes that are no PDF give a note, not a panic.
func TestExtractPDFText(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/documents/hello.pdf")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"the test pdf", raw, "Hello from a myco test PDF"},
		{"a broken pdf", []byte("%PDF-1.4\nnothing else"), "[myco could not"},
		{"a cut pdf", raw[:len(raw)/2], "[myco could not"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := extractPDFText(tt.in)
			if !strings.Contains(got, tt.want) {
				t.Errorf("extractPDFText = %q, want it to hold %q", got, tt.want)
			}
			if again := newPDFTexts().text("x", tt.in); again != got {
				t.Errorf("a second extraction differs: %q", again)
			}
		})
	}
}
