package session_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myco/internal/redact"
	"myco/session"
)

// holdTexts are what the child of TestHoldSurvivesSIGKILL streams before it
// stops: text the hold keeps back, each time for a different reason.
var holdTexts = map[string]string{
	// A private key not yet ended: held to its END line, which never comes.
	"private key": "Here it is:\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + strings.Join(holdKeyLines, "\n") + "\n",
	// Output without whitespace: one word that never ends.
	"dots": "collected 3000 items\n\n" + strings.Repeat(".", 3000),
	// A certificate is no secret: not held at all.
	"certificate": "The chain:\n-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n",
}

var holdKeyLines = []string{
	"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
	"QyNTUxOQAAACCaBaq4m8eXWCaH0yoGpjCfSRSEBU7jAyg8AdP6VMggAAAIjpsmgG6bJo",
}

// childHold streams holdTexts[MYCO_TEST_PART] into an answer, 16 bytes a
// delta, with redaction on, says so, and waits to be killed.
func childHold() int {
	s, err := session.Open(os.Getenv("MYCO_TEST_DIR"), session.Options{Redactor: redact.New(nil)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	w, err := s.OpenWriter(journalID, session.Owner{PID: os.Getpid()})
	if err == nil {
		err = w.StartPartial(session.Message{ID: "a", Role: "assistant", At: t0, Model: "m"})
	}
	for _, piece := range split(holdTexts[os.Getenv("MYCO_TEST_PART")], 16) {
		if err == nil {
			err = w.Delta("a", piece)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("streamed")
	select {}
}

// TestHoldSurvivesSIGKILL kills a process whose last text is held (a
// private key not yet ended, output without whitespace, a certificate) at
// a random moment between 1.2 and 1.7 s after it streamed it: the answer
// recovered holds everything streamed (the hold lasts at most a second),
// with a private key's place marked and no line of the key.
func TestHoldSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes")
	}
	tests := []struct {
		part string
		want string // the answer recovered
	}{
		{"private key", "Here it is:\n" + redact.HeldMarker},
		{"dots", holdTexts["dots"]},
		{"certificate", holdTexts["certificate"]},
	}
	for _, tt := range tests {
		t.Run(tt.part, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "session")
			s := mustOpen(t, dir, session.Options{Redactor: redact.New(nil)})
			if err := s.Save(newDoc(journalID, t0, 1, 0)); err != nil {
				t.Fatal(err)
			}
			c := startChild(t, "hold", "MYCO_TEST_DIR="+dir, "MYCO_TEST_PART="+tt.part)
			c.waitLine(t, "streamed")
			// The moment of the kill is random on purpose: after the
			// bound, with a margin for the flush ticker on a loaded machine.
			time.Sleep(time.Duration(1200+rand.IntN(500)) * time.Millisecond)
			c.kill()

			w := openWriter(t, s, journalID)
			var got string
			w.View(func(d *session.Document) {
				msgs := d.Threads[len(d.Threads)-1].Messages
				if len(msgs) > 0 && len(msgs[len(msgs)-1].Content) > 0 {
					got = msgs[len(msgs)-1].Content[0].Text
				}
			})
			if got != tt.want {
				t.Errorf("recovered %q, want %q", tail(got), tail(tt.want))
			}
			file := string(readFile(t, filepath.Join(dir, journalID+".json")))
			for _, line := range holdKeyLines {
				if strings.Contains(file, line) {
					t.Errorf("a line of the key is on disk: %q", line)
				}
			}
		})
	}
}
