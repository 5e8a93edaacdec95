package session_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"myco/internal/redact"
	"myco/session"
)

// lockedClock is a clock the test moves while the writer's flush ticker
// reads it.
type lockedClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *lockedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *lockedClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// The bound the writer promises on held text (see session.Writer): a
// second, and this many bytes.
const (
	holdBound      = time.Second
	holdBoundBytes = 4 << 10
)

// TestHoldIsBounded streams text that redaction holds (a PEM block, output
// without whitespace) a piece at a time, the clock moving between pieces,
// and reads the journal after each piece and flush: the text there never
// lags what was received by more than a second or 4 KiB, and never holds a
// secret, whole or in part. Held too long, text no secret can start in
// (dots, a certificate's lines) is written as it is; a span that may be a
// secret is written as a marker.
func TestHoldIsBounded(t *testing.T) {
	keyLines := []string{
		"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
		"QyNTUxOQAAACCaBaq4m8eXWCaH0yoGpjCfSRSEBU7jAyg8AdP6VMggAAAIjpsmgG6bJo",
		"BgAAAAtzc2gtZWQyNTUxOQAAACCaBaq4m8eXWCaH0yoGpjCfSRSEBU7jAyg8AdP6VMgg",
		"AAAEBhX9c2Qk8vR3mN1pL5tZ7wY0aB4cD6eF8gH1iJ3kL5mJoFqrqbx5dYJofTKgamMJ",
	}
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + strings.Join(keyLines, "\n") + "\n-----END OPENSSH PRIVATE KEY-----\n"
	cert := "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n" +
		"RTESMBAGA1UEChMJQmFsdGltb3JlMRMwEQYDVQQLEwpDeWJlclRydXN0MSIwIAYD\n-----END CERTIFICATE-----\n"
	dots := strings.Repeat(".", 20<<10)
	tests := []struct {
		name    string
		output  bool     // a command's output, not an answer's text
		pieces  []string // streamed in this order
		every   time.Duration
		secrets []string // never in the journal
		marker  bool     // the journal ends up with redact.HeldMarker
	}{
		{name: "private key streamed slowly", pieces: split("Here it is:\n"+key+"Keep it safe.\n", 16), every: 300 * time.Millisecond, secrets: keyLines, marker: true},
		{name: "private key streamed fast", pieces: split("Here it is:\n"+key+"Keep it safe.\n", 16), every: 10 * time.Millisecond, secrets: keyLines},
		{name: "certificate streamed slowly", pieces: split("The chain:\n"+cert+"That is all.\n", 16), every: 300 * time.Millisecond},
		{name: "20 KiB of dots", output: true, pieces: split("collected 20480 items\n\n"+dots+"\n20480 passed in 9.1s\n", 100), every: 50 * time.Millisecond},
		{name: "20 KiB of dots, fast", output: true, pieces: split("collected 20480 items\n\n"+dots+"\n20480 passed in 0.2s\n", 1000), every: 10 * time.Millisecond},
		{name: "a key among the dots", output: true, pieces: split(dots[:3000]+anthropicKey+dots[:3000]+"\nok\n", 64), every: 50 * time.Millisecond, secrets: []string{anthropicKey[len(anthropicKey)-24:]}, marker: true},
		{name: "a name, a stall, its value", pieces: []string{"Use the password ", "= ", "", "", "", "", "hunter2-Xq9vTz3L and go on.\n"}, every: 300 * time.Millisecond, secrets: []string{"hunter2-Xq9vTz3L"}, marker: true},
		{name: "Bearer, a stall, the token", pieces: []string{"curl -H 'Authorization: Bearer", "", "", "", " abcDEF123456ghiJKL789mno' https://api.example.com\n"}, every: 400 * time.Millisecond, secrets: []string{"abcDEF123456ghiJKL789mno"}, marker: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := &lockedClock{now: t0}
			s, dir := openStore(t, session.Options{Redactor: redact.New(nil), Now: clk.Now})
			if err := s.Save(newDoc(journalID, t0, 1, 0)); err != nil {
				t.Fatal(err)
			}
			w := openWriter(t, s, journalID)
			op, stream := session.OpDelta, func(text string) error { return w.Delta("a", text) }
			if tt.output {
				op, stream = session.OpOutput, func(text string) error { return w.Output("call", text) }
			} else if err := w.StartPartial(session.Message{ID: "a", Role: "assistant"}); err != nil {
				t.Fatal(err)
			}
			var received string
			var came []time.Time // when each byte of received came
			check := func(when string) string {
				t.Helper()
				if err := w.Sync(); err != nil {
					t.Fatal(err)
				}
				journal := readJournalText(t, filepath.Join(dir, journalID+".journal"), op)
				for _, secret := range tt.secrets {
					if strings.Contains(journal, secret) {
						t.Fatalf("%s: the journal holds %q:\n%q", when, secret, journal)
					}
				}
				upto, err := represented(journal, received)
				if err != nil {
					t.Fatalf("%s: %v", when, err)
				}
				if lag := len(received) - upto; lag > holdBoundBytes {
					t.Fatalf("%s: %d bytes received are not in the journal, more than %d", when, lag, holdBoundBytes)
				}
				if upto < len(received) {
					if waited := clk.Now().Sub(came[upto]); waited > holdBound {
						t.Fatalf("%s: byte %d of %d has waited %v, more than %v; journal %q", when, upto, len(received), waited, holdBound, tail(journal))
					}
				}
				return journal
			}
			for i, p := range tt.pieces {
				clk.advance(tt.every)
				received += p
				for range p {
					came = append(came, clk.Now())
				}
				if p != "" {
					if err := stream(p); err != nil {
						t.Fatal(err)
					}
				}
				check(fmt.Sprintf("after piece %d", i))
			}
			clk.advance(holdBound)
			journal := check("at the end")
			if upto, _ := represented(journal, received); upto != len(received) {
				t.Errorf("at the end the journal represents %d of %d bytes: %q", upto, len(received), tail(journal))
			}
			t.Logf("journal: %q", tail(journal))
			if got := strings.Contains(journal, redact.HeldMarker); got != tt.marker {
				t.Errorf("marker in the journal: %v, want %v: %q", got, tt.marker, tail(journal))
			}
		})
	}
}

// split cuts text into pieces of n bytes.
func split(text string, n int) []string {
	var out []string
	for i := 0; i < len(text); i += n {
		out = append(out, text[i:min(len(text), i+n)])
	}
	return out
}

func tail(s string) string { return s[max(0, len(s)-300):] }

// readJournalText is the text of the journal's records of op, in order.
func readJournalText(t *testing.T, path, op string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "" // nothing written yet
	}
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var r struct{ Op, Text string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Op == op {
			b.WriteString(r.Text)
		}
	}
	return b.String()
}

// represented is how much of received the journal's text stands for: its
// text is received's, except that a marker stands for a span of it (the
// span ends where the journal's next text is found; a marker at the end
// stands for all received since). An error says the journal's text is not
// received's.
func represented(journal, received string) (int, error) {
	const open = "[REDACTED:"
	pos := 0
	for journal != "" {
		if !strings.HasPrefix(journal, open) {
			lit := journal
			if i := strings.Index(journal, open); i >= 0 {
				lit = journal[:i]
			}
			if !strings.HasPrefix(received[pos:], lit) {
				return 0, fmt.Errorf("the journal's text %q is not the text received %q", tail(lit), tail(received[pos:]))
			}
			pos += len(lit)
			journal = journal[len(lit):]
			continue
		}
		journal = journal[strings.IndexByte(journal, ']')+1:]
		next := journal
		if i := strings.Index(journal, open); i >= 0 {
			next = journal[:i]
		}
		if next == "" {
			return len(received), nil
		}
		i := strings.Index(received[pos+1:], next)
		if i < 0 {
			return 0, fmt.Errorf("the journal's text after a marker, %q, is not in the text received", tail(next))
		}
		pos += 1 + i
	}
	return pos, nil
}
