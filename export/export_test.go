package export_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"myco/export"
	"myco/internal/redact"
	"myco/session"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Facts about testdata/session.json.
const (
	docID     = "0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90"
	secret    = "sk-ant-api03-Xq9vTz3LmN8pQ2rS5tU7wY0aB4cD6eF8gH1iJ3kL5mN7oP9q"
	pixelSHA  = "86be52bdb7547413cafb3ed175a806a798c65de98b40849e0b974c47d187de65"
	absentSHA = "0000000000000000000000000000000000000000000000000000000000000000"
)

// fixture is the test document as an export gets it: read, then redacted
// by a store with redaction on, with an image store holding its one
// present image.
func fixture(t *testing.T) (*session.Document, *session.Images) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "session.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := session.Decode(data, "session.json", docID)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, err := session.Open(filepath.Join(dir, "session"), session.Options{Redactor: redact.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if doc, err = st.Redacted(doc); err != nil {
		t.Fatal(err)
	}
	im, err := session.OpenImages(filepath.Join(dir, "images"))
	if err != nil {
		t.Fatal(err)
	}
	pixel, err := os.ReadFile(filepath.Join("testdata", "pixel.webp"))
	if err != nil {
		t.Fatal(err)
	}
	if ref, err := im.Put(pixel); err != nil || ref.SHA256 != pixelSHA {
		t.Fatalf("put pixel: %v %v", ref, err)
	}
	return doc, im
}

func render(t *testing.T, f export.Format) []byte {
	t.Helper()
	doc, im := fixture(t)
	out, err := export.Render(doc, f, im)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// golden compares got with testdata/name, which -update rewrites.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file (go test ./export -update, then read the diff):\n%s", name, got)
	}
}

func TestGolden(t *testing.T) {
	tests := []struct {
		format export.Format
		file   string
	}{
		{export.Markdown, "session.golden.md"},
		{export.HTML, "session.golden.html"},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			golden(t, tt.file, render(t, tt.format))
		})
	}
}

// TestEveryFormatRedacted: no format carries the secret, every one the
// marker.
func TestEveryFormatRedacted(t *testing.T) {
	for _, f := range export.Formats {
		t.Run(string(f), func(t *testing.T) {
			out := string(render(t, f))
			if strings.Contains(out, secret) {
				t.Error("the secret is in the export")
			}
			if !strings.Contains(out, redact.Marker("anthropic-key")) {
				t.Error("no redaction marker in the export")
			}
		})
	}
}

// TestMarkdown checks what the golden file shows: both threads, the
// earlier one marked compacted, the tool call with its input, the output
// whole in a fence its backticks cannot close, images by hash.
func TestMarkdown(t *testing.T) {
	md := string(render(t, export.Markdown))
	for _, want := range []string{
		"# Fix the flaky test: port 8080!\n",
		"## Compacted thread 1\n\n> This thread was compacted",
		"## Thread 2 (latest)\n",
		"### You · 2026-11-29 18:05:12 UTC",
		"**Tool call** `bash` (`toolu_01A`)\n\n```json\n{\n  \"command\": \"go test -run TestServe -count=20 ./server/\"\n}\n```",
		"**Result** of `bash` (`toolu_01A`): error, 26.4s\n\n`````text\n--- FAIL",
		"four backticks\nFAIL\n`````",
		"*[image sha256:" + pixelSHA + " image/webp]*",
		"> *Interrupted.*",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

// TestHTMLSelfContained: the page runs no script and asks for nothing:
// no <script>, a CSP that forbids scripts and requests, every image a
// data: URI, the missing one said in words, and nothing that loads from
// elsewhere (src or stylesheet links), so it reads the same offline.
func TestHTMLSelfContained(t *testing.T) {
	out := render(t, export.HTML)
	if bytes.Contains(bytes.ToLower(out), []byte("<script")) {
		t.Error("the page has a <script")
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if csp, _ := doc.Find(`meta[http-equiv="Content-Security-Policy"]`).Attr("content"); csp != "default-src 'none'; img-src data:; style-src 'unsafe-inline'" {
		t.Errorf("CSP %q", csp)
	}
	if n := doc.Find("link, iframe, object, embed").Length(); n != 0 {
		t.Errorf("%d elements that load from elsewhere", n)
	}
	imgs := doc.Find("img")
	if imgs.Length() != 2 { // the image block, and the same image referred to from Markdown
		t.Errorf("%d images, want 2", imgs.Length())
	}
	imgs.Each(func(_ int, s *goquery.Selection) {
		if src, _ := s.Attr("src"); !strings.HasPrefix(src, "data:image/webp;base64,") {
			t.Errorf("image src %.40q is not a data: URI", src)
		}
	})
	if got := doc.Find(`[data-testid="export-image-missing"]`).Text(); got != "image "+absentSHA+" missing" {
		t.Errorf("missing image says %q", got)
	}
	if got := doc.Find(`[data-testid="export-thread"] > h2`).Map(func(_ int, s *goquery.Selection) string { return s.Text() }); strings.Join(got, "|") != "Compacted thread 1|Thread 2 (latest)" {
		t.Errorf("thread headings %q", got)
	}
	if n := doc.Find(`[data-testid="export-message"]`).Length(); n != 7 {
		t.Errorf("%d messages, want 7", n)
	}
}

// TestMissingImagesNeverFail: with no image store at all, the page is
// made, every image said missing.
func TestMissingImagesNeverFail(t *testing.T) {
	doc, _ := fixture(t)
	out, err := export.Render(doc, export.HTML, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("image "+pixelSHA+" missing")) {
		t.Error("the absent image is not said missing")
	}
}

func TestJSONIsTheDocument(t *testing.T) {
	doc, im := fixture(t)
	out, err := export.Render(doc, export.JSON, im)
	if err != nil {
		t.Fatal(err)
	}
	back, err := session.Decode(out, "export.json", docID)
	if err != nil {
		t.Fatal(err)
	}
	if back.MessageCount() != doc.MessageCount() || back.Title != doc.Title {
		t.Errorf("decoded %d messages titled %q, want %d titled %q", back.MessageCount(), back.Title, doc.MessageCount(), doc.Title)
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		name string
		want export.Format
		err  bool
	}{
		{"md", export.Markdown, false},
		{"json", export.JSON, false},
		{"html", export.HTML, false},
		{"pdf", "", true},
		{"", "", true},
		{"HTML", "", true},
	}
	for _, tt := range tests {
		got, err := export.ParseFormat(tt.name)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("ParseFormat(%q) = %q, %v", tt.name, got, err)
		}
		if err != nil && (!errors.Is(err, export.ErrFormat) || !strings.Contains(err.Error(), "md, json, html")) {
			t.Errorf("ParseFormat(%q) error %q does not list the formats", tt.name, err)
		}
	}
}

func TestFileName(t *testing.T) {
	tests := []struct {
		name, title, id string
		f               export.Format
		want            string
	}{
		{"title", "Fix the flaky test: port 8080!", docID, export.HTML, "fix-the-flaky-test-port-8080-0193c7b2.html"},
		{"no title", "", docID, export.Markdown, "session-0193c7b2.md"},
		{"only symbols", "«»—", docID, export.JSON, "session-0193c7b2.json"},
		{"quotes and slashes", `a "b"/../c`, "abc", export.Markdown, "a-b-c-abc.md"},
		{"long", strings.Repeat("word ", 40), docID, export.Markdown, strings.TrimSuffix(strings.Repeat("word-", 9), "-") + "-0193c7b2.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := export.FileName(&session.Document{ID: tt.id, Title: tt.title}, tt.f)
			if got != tt.want {
				t.Errorf("FileName = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestUnclosedFence: an answer cut off inside a code block is closed, so
// the rest of the file is not code.
func TestUnclosedFence(t *testing.T) {
	doc := &session.Document{Schema: session.Schema, ID: docID, Threads: []session.Thread{{Messages: []session.Message{
		{ID: "a", Role: "assistant", StopReason: session.StopInterrupted, Content: []session.Block{{Type: session.BlockText, Text: "Here:\n\n````go\nfunc f() {\n```\nstill code"}}},
		{ID: "b", Role: "assistant", Content: []session.Block{{Type: session.BlockText, Text: "```\nclosed\n```\n\n~~~\nx\n~~~~"}}},
		{ID: "c", Role: "user", Human: true, Content: []session.Block{{Type: session.BlockText, Text: "after"}}},
	}}}}
	out, err := export.Render(doc, export.Markdown, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"still code\n````\n\n> *Interrupted.*", "~~~\nx\n~~~~\n\n### You"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}
