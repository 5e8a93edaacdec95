package session_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/internal/redact"
	"myco/session"
)

// Made-up secrets, in the formats of real ones.
const (
	anthropicKey = "sk-ant-api03-Xq9vTz3LmN8pQ2rS5tU7wY0aB4cD6eF8gH1iJ3kL5mN7oP9q"
	envSecret    = "value-of-a-token-from-env-42"
)

// TestSecretsNeverReachTheDisk: with a Redactor, a secret in the person's
// message, in an answer streamed in pieces that split it, and in a
// command's output is in the document the running turn sees, and in
// neither the journal nor the file, before or after the fold.
func TestSecretsNeverReachTheDisk(t *testing.T) {
	s, dir := openStore(t, session.Options{Redactor: redact.New([]string{"MY_SERVICE_TOKEN=" + envSecret})})
	if err := s.Save(newDoc(journalID, t0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	w := openWriter(t, s, journalID)
	if err := w.Append(textMessage("u", "user", "use "+anthropicKey+" please")); err != nil {
		t.Fatal(err)
	}
	if err := w.Output("call", "token is "+envSecret+"\n"); err != nil {
		t.Fatal(err)
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := w.StartPartial(session.Message{ID: "a", Role: "assistant"}); err != nil {
		t.Fatal(err)
	}
	// Four characters at a time, each followed by a flush, as a model
	// streams: no single record holds the whole key.
	answer := "Set it:\nexport ANTHROPIC_API_KEY=" + anthropicKey + "\nthen run it."
	for i := 0; i < len(answer); i += 4 {
		if err := w.Delta("a", answer[i:min(len(answer), i+4)]); err != nil {
			t.Fatal(err)
		}
		if err := w.Sync(); err != nil {
			t.Fatal(err)
		}
	}

	journal := string(readFile(t, filepath.Join(dir, journalID+".journal")))
	for _, secret := range []string{anthropicKey, envSecret, anthropicKey[20:40]} {
		if strings.Contains(journal, secret) {
			t.Errorf("journal holds %q:\n%s", secret, journal)
		}
	}
	if !strings.Contains(journal, redact.Marker("anthropic-key")) || !strings.Contains(journal, redact.Marker("env:MY_SERVICE_TOKEN")) {
		t.Errorf("journal has no marker:\n%s", journal)
	}
	var seen string
	w.View(func(d *session.Document) { seen = d.Threads[0].Messages[0].Content[0].Text })
	if !strings.Contains(seen, anthropicKey) {
		t.Errorf("the running turn sees %q, want the real key", seen)
	}

	// What a crash now would leave: the answer up to its last whitespace,
	// redacted; the word still being written waits in memory for its end.
	var deltas string
	for _, line := range strings.Split(strings.TrimSpace(journal), "\n") {
		var r struct{ Op, Text string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.Op == session.OpDelta {
			deltas += r.Text
		}
	}
	want := "Set it:\nexport ANTHROPIC_API_KEY=" + redact.Marker("anthropic-key") + "\n"
	if deltas != want+"then run " {
		t.Errorf("streamed text in the journal = %q, want %q", deltas, want+"then run ")
	}

	if err := w.Append(textMessage("a", "assistant", answer)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := string(readFile(t, filepath.Join(dir, journalID+".json")))
	if strings.Contains(file, anthropicKey) || strings.Contains(file, envSecret) {
		t.Errorf("document holds a secret:\n%s", file)
	}
	doc, err := s.Load(journalID)
	if err != nil {
		t.Fatal(err)
	}
	msgs := doc.Threads[0].Messages
	if got := msgs[0].Content[0].Text; got != "use "+redact.Marker("anthropic-key")+" please" {
		t.Errorf("message on disk = %q", got)
	}
	if got := msgs[len(msgs)-1].Content[0].Text; got != want+"then run it." {
		t.Errorf("answer on disk = %q, want %q", got, want+"then run it.")
	}
}

// TestNoRedactorWritesAsIs: redact_secrets off writes text as it is.
func TestNoRedactorWritesAsIs(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	if err := s.Save(newDoc(journalID, t0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	w := openWriter(t, s, journalID)
	if err := w.Append(textMessage("u", "user", anthropicKey)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, journalID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), anthropicKey) {
		t.Error("the key was redacted with no Redactor")
	}
}

// TestSecretsAtLineStartsNeverReachTheDisk: a key at the start of a line,
// after a tab or after CRLF (in JSON the byte before it is the n, t or n
// of an escape) is replaced in a message, the scratchpad, a streamed
// answer and a command's output, in the journal and the document alike.
func TestSecretsAtLineStartsNeverReachTheDisk(t *testing.T) {
	keys := []string{
		anthropicKey,
		"ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0",
		"AKIAIOSFODNN7EXAMPLF",
		"glpat-Xq9vTz3LmN8pQ2rS5tU7",
		"AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
	}
	for _, sep := range []string{"\n", "\t", "\r\n", "<"} {
		t.Run(fmt.Sprintf("%q", sep), func(t *testing.T) {
			s, dir := openStore(t, session.Options{Redactor: redact.New(nil)})
			if err := s.Save(newDoc(journalID, t0, 1, 0)); err != nil {
				t.Fatal(err)
			}
			var text string
			for _, k := range keys {
				text += "cat .env" + sep + k + sep
			}
			w := openWriter(t, s, journalID)
			if err := w.Append(textMessage("u", "user", text)); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Update(func(d *session.Document) error { d.Scratchpad = text; return nil }); err != nil {
				t.Fatal(err)
			}
			if err := w.StartPartial(session.Message{ID: "a", Role: "assistant"}); err != nil {
				t.Fatal(err)
			}
			for _, piece := range split(text, 5) {
				if err := w.Delta("a", piece); err != nil {
					t.Fatal(err)
				}
				if err := w.Output("call", piece); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Sync(); err != nil {
				t.Fatal(err)
			}
			journal := string(readFile(t, filepath.Join(dir, journalID+".journal")))
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			file := string(readFile(t, filepath.Join(dir, journalID+".json")))
			for _, k := range keys {
				if strings.Contains(journal, k) || strings.Contains(file, k) {
					t.Errorf("%s is on disk (journal %v, document %v)", k, strings.Contains(journal, k), strings.Contains(file, k))
				}
			}
		})
	}
}
