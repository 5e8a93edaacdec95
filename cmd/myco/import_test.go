package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"myco/importer"
)

// TestImportCommand imports the Claude Code fixture, then again (nothing
// new), and finds the session among the profile's, searchable.
func TestImportCommand(t *testing.T) {
	c := newCLI(t)
	fixture, err := filepath.Abs("../../importer/testdata/claude-code")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("import", "claude-code", fixture)
	if code != 0 || !strings.Contains(out, "Run the demo tests") || !strings.Contains(out, "1 imported, 0 imported before, 0 failed, 1 file not a session") {
		t.Fatalf("import: code %d out %q err %q", code, out, errOut)
	}
	if !strings.Contains(out, "1 damaged line skipped") || !strings.Contains(errOut, "notes.jsonl") {
		t.Errorf("the report lacks the damaged line or the file that is not a session: out %q err %q", out, errOut)
	}

	out, errOut, code = c.run("import", "--json", "claude-code", fixture)
	var rep importer.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Imported != 0 || rep.Already != 1 {
		t.Fatalf("second import: code %d err %q out %s", code, errOut, out)
	}

	out, _, code = c.run("sessions", "list")
	if code != 0 || !strings.Contains(out, "Run the demo tests") {
		t.Errorf("sessions list:\n%s", out)
	}
	out, _, code = c.run("sessions", "search", "green pixel")
	if code != 0 || !strings.Contains(out, "Run the demo tests") {
		t.Errorf("sessions search:\n%s", out)
	}
}

func TestImportCommandUsage(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{{"import"}, {"import", "vim"}} {
		if _, errOut, code := c.run(args...); code != 2 || !strings.Contains(errOut, "which tool?") {
			t.Errorf("%v: code %d err %q", args, code, errOut)
		}
	}
}
