package web_test

import (
	"strings"
	"testing"
	"time"

	"myco/session"
	"myco/web"
)

// A reloaded page shows what the live tab showed of the notes waiting for
// the next message: a card for a note from elsewhere and for a command's
// outcome at the end of the conversation, a chip above the composer for
// an attachment; a delivered note shows neither.
func TestSessionPageShowsWaitingNotes(t *testing.T) {
	exit := 2
	at := time.Date(2026, 11, 30, 9, 5, 0, 0, time.UTC)
	d0 := doc(session.Thread{Messages: chat(2)})
	d0.Notes = []session.Note{
		{ID: "n-sent", Kind: session.NoteText, From: "cron", Text: "already went", At: at, DeliveredIn: "m1"},
		{ID: "n-text", Kind: session.NoteText, From: "nightly build", Text: "tests failed <b>x</b>", At: at},
		{ID: "n-cmd", Kind: session.NoteCommand, Command: "make test", Text: "FAIL pkg/x\n[exit status 2]", Exit: &exit, At: at},
		{ID: "n-file", Kind: session.NoteFile, Path: "go.mod", Text: "module myco", At: at},
	}
	d := parseHTML(t, render(t, web.SessionPage(web.NewSessionView(d0, web.SessionViewOptions{}))))
	cards := d.Find(`#messages [data-note-id]`)
	if cards.Length() != 2 {
		t.Fatalf("%d note cards in the conversation, want the note and the command", cards.Length())
	}
	card := d.Find(`#messages [data-testid="note-card"]`)
	if !strings.HasPrefix(card.Find(".note-head").Text(), "Note from nightly build, ") || card.Find(".note-text").Text() != "tests failed <b>x</b>" {
		t.Errorf("note card %q", card.Text())
	}
	cmd := d.Find(`#messages [data-tool-use-id="n-cmd"]`)
	if !strings.Contains(cmd.Find(`[data-testid="command-head"]`).Text(), "make test") || !strings.Contains(cmd.Find(`[data-testid="command-output"]`).Text(), "FAIL pkg/x") {
		t.Errorf("command card %q", cmd.Text())
	}
	chip := d.Find(`#composer [data-testid="mention-chips"] [data-testid="attachment-chip"]`)
	if chip.Length() != 1 || !strings.Contains(chip.Text(), "@go.mod") || chip.Find(`[data-remove-note="n-file"]`).Length() != 1 {
		t.Errorf("attachment chips: %d, %q", chip.Length(), chip.Text())
	}
	if d.Find(`[data-note-id="n-sent"]`).Length() != 0 {
		t.Error("a delivered note is shown as waiting")
	}
}

// The note event carries the same markup: a command still running has no
// output yet, and an attachment is a chip.
func TestNoteHTML(t *testing.T) {
	for _, tt := range []struct {
		name string
		note session.Note
		want []string
		not  string
	}{
		{"running command", session.Note{ID: "c", Kind: session.NoteCommand, Command: "sleep 9"}, []string{`data-tool-use-id="c"`, "sleep 9", "data-running"}, "command-output"},
		{"attachment", session.Note{ID: "f", Kind: session.NoteFile, Path: "a.go"}, []string{`data-testid="attachment-chip"`, "@a.go"}, "note-card"},
		{"from elsewhere", session.Note{ID: "t", Kind: session.NoteText, Text: "hi"}, []string{"Note from elsewhere:", "hi"}, "command"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			html, err := web.NoteHTML(tt.note)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(html, w) {
					t.Errorf("%s lacks %q", html, w)
				}
			}
			if strings.Contains(html, tt.not) {
				t.Errorf("%s has %q", html, tt.not)
			}
		})
	}
}
