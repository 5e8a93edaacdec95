package session_test

import (
	"strings"
	"testing"

	"myco/internal/redact"
	"myco/session"
)

// TestRedacted: the copy an export takes has every secret replaced, in the
// person's text and the document's header alike, and the document it was
// made from (a live session's, which the running turn uses) keeps the real
// text. Without a redactor the document comes back as it is.
func TestRedacted(t *testing.T) {
	tests := []struct {
		name      string
		redactor  *redact.Redactor
		wantFound bool // the secret is still in the copy
	}{
		{"redaction on", redact.New(nil), false},
		{"redaction off", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openStore(t, session.Options{Redactor: tt.redactor})
			doc := newDoc(healthyID, t0, 1, 0)
			doc.Scratchpad = "key " + anthropicKey
			doc.Threads[0].Messages = append(doc.Threads[0].Messages, textMessage("u", "user", "use "+anthropicKey+" please"))

			got, err := s.Redacted(doc)
			if err != nil {
				t.Fatal(err)
			}
			text := got.Threads[0].Messages[0].Content[0].Text + " " + got.Scratchpad
			if found := strings.Contains(text, anthropicKey); found != tt.wantFound {
				t.Errorf("secret in the copy: %v, want %v (%q)", found, tt.wantFound, text)
			}
			if !tt.wantFound && !strings.Contains(text, redact.Marker("anthropic-key")) {
				t.Errorf("no marker in %q", text)
			}
			if !strings.Contains(doc.Threads[0].Messages[0].Content[0].Text, anthropicKey) {
				t.Error("the original document lost its text")
			}
			if got.ID != doc.ID || len(got.Threads) != len(doc.Threads) {
				t.Errorf("copy is %s with %d threads, want %s with %d", got.ID, len(got.Threads), doc.ID, len(doc.Threads))
			}
		})
	}
}
