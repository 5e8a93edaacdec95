package main

import (
	"os"
	"strings"
	"testing"

	"myco/session"
)

// exportKey is a made-up secret in the format of a real key.
const exportKey = "sk-ant-api03-Xq9vTz3LmN8pQ2rS5tU7wY0aB4cD6eF8gH1iJ3kL5mN7oP9q"

// withMessage adds a person's message to session id, written as it is
// (the test's store has no redactor: an old document that holds a key).
func (c *cli) withMessage(id, text string) {
	c.t.Helper()
	st := c.store("default")
	doc, err := st.Load(id)
	if err != nil {
		c.t.Fatal(err)
	}
	doc.Threads[0].Messages = append(doc.Threads[0].Messages, session.Message{
		ID: "u1", Role: "user", Human: true, Content: []session.Block{{Type: session.BlockText, Text: text}},
	})
	if err := st.Save(doc); err != nil {
		c.t.Fatal(err)
	}
}

func TestExportCommand(t *testing.T) {
	c := newCLI(t)
	id := c.create("default", "Port clash")
	c.withMessage(id, "the key is "+exportKey)
	t.Chdir(t.TempDir())

	// -o - writes to stdout, redacted as the documents are.
	out, errOut, code := c.run("sessions", "export", id[:8], "--format", "md", "-o", "-")
	if code != 0 || !strings.HasPrefix(out, "# Port clash\n") || strings.Contains(out, exportKey) || !strings.Contains(out, "[REDACTED:anthropic-key]") {
		t.Fatalf("export -o -: code %d err %q out:\n%s", code, errOut, out)
	}

	// Without -o: a new file named like the API's download, here.
	name := "port-clash-" + id[:8] + ".html"
	out, errOut, code = c.run("sessions", "export", id, "--format", "html")
	if code != 0 || !strings.Contains(out, name) {
		t.Fatalf("export: code %d out %q err %q", code, out, errOut)
	}
	page, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "<h1>Port clash</h1>") || strings.Contains(string(page), exportKey) {
		t.Errorf("page:\n%s", page)
	}

	// Never over an existing file, the default name or one given.
	if err := os.WriteFile("mine.json", []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"sessions", "export", id, "--format", "html"},
		{"sessions", "export", id, "--format", "json", "-o", "mine.json"},
	} {
		_, errOut, code = c.run(args...)
		if code != 1 || !strings.Contains(errOut, "already exists") {
			t.Errorf("%v: code %d err %q, want a refusal", args, code, errOut)
		}
	}
	if got, _ := os.ReadFile("mine.json"); string(got) != "keep me" {
		t.Errorf("mine.json now holds %q", got)
	}
	if got, _ := os.ReadFile(name); string(got) != string(page) {
		t.Error("the first export was changed")
	}

	// A new name given with -o is written.
	path := "chosen.json"
	if _, errOut, code = c.run("sessions", "export", id, "--format", "json", "-o", path); code != 0 {
		t.Fatalf("export -o %s: code %d err %q", path, code, errOut)
	}
	data, _ := os.ReadFile(path)
	if doc, err := session.Decode(data, path, id); err != nil || doc.Title != "Port clash" {
		t.Errorf("JSON export: %v", err)
	}
}

func TestExportCommandUsage(t *testing.T) {
	c := newCLI(t)
	id := c.create("default", "x")
	t.Chdir(t.TempDir())
	tests := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"no format", []string{"sessions", "export", id}, 2, "--format md, json or html"},
		{"bad format", []string{"sessions", "export", id, "--format", "pdf"}, 2, "md, json, html"},
		{"no ID", []string{"sessions", "export", "--format", "md"}, 2, "expected 1 argument"},
		{"unknown session", []string{"sessions", "export", "ffff", "--format", "md"}, 1, "no session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := c.run(tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.says) {
				t.Errorf("code %d err %q, want %d saying %q", code, errOut, tt.code, tt.says)
			}
		})
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}
