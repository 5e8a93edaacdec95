package web_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"myco/session"
	"myco/web"
)

// TestFileChip: a file block on a person's message is a chip that links
// to GET /files/{sha256} with its name, shows name, size and type icon,
// and escapes a hostile name.
func TestFileChip(t *testing.T) {
	sha := strings.Repeat("ab", 32)
	tests := []struct {
		name, media, icon, href string
	}{
		{"report.pdf", session.MediaPDF, "pdf", "/files/" + sha + "?name=report.pdf"},
		{"main.go", session.MediaText, "code", "/files/" + sha + "?name=main.go"},
		{"notes.txt", session.MediaText, "text", "/files/" + sha + "?name=notes.txt"},
		{`<img src=x onerror=alert(1)>.md`, session.MediaText, "text", "/files/" + sha + "?name=%3Cimg+src%3Dx+onerror%3Dalert%281%29%3E.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := session.FileRef{SHA256: sha, Name: tt.name, MediaType: tt.media, Size: 2048}
			doc := &session.Document{ID: "s", Threads: []session.Thread{{Messages: []session.Message{{ID: "m", Role: "user", Human: true,
				Content: []session.Block{ref.Block(), {Type: session.BlockText, Text: "see"}}}}}}}
			f, err := web.MessagesFragment(doc, 0, -1, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			html := render(t, web.Messages(f))
			d, err := goquery.NewDocumentFromReader(strings.NewReader(html))
			if err != nil {
				t.Fatal(err)
			}
			chip := byTestID(d, "file-chip")
			href, _ := chip.Attr("href")
			icon, _ := chip.Attr("data-icon")
			if chip.Length() != 1 || href != tt.href || icon != tt.icon || chip.Find(".file-chip-name").Text() != tt.name ||
				chip.Find(".file-chip-size").Text() != "2.0 KB" {
				t.Errorf("chip %d, href %q, icon %q, name %q", chip.Length(), href, icon, chip.Find(".file-chip-name").Text())
			}
			if d.Find("img").Length() != 0 {
				t.Error("a hostile name made an element")
			}
		})
	}
}
