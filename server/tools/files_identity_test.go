package tools_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"myco/server/tools"
)

// A hard link is the denied file under an allowed name: read_file and
// edit_file through it are refused, by the opened file's identity; a
// file with several names none of them denied is read as before.
func TestHardLinkToDeniedFile(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(home, "work")
	for _, d := range []string{".ssh", "work/sub", "big"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(home, ".ssh", "id_rsa"), "PRIVATE KEY")
	writeFile(t, filepath.Join(work, ".env"), "API_KEY=sk-secret")
	writeFile(t, filepath.Join(work, ".env.local"), "TOKEN=t")
	writeFile(t, filepath.Join(work, "plain.txt"), "plain")
	link := func(from, to string) string {
		t.Helper()
		if err := os.Link(from, to); err != nil {
			t.Fatal(err)
		}
		return to
	}
	d := tools.NewDenied([]string{"~/.ssh"}, home, "")
	tests := []struct {
		name, path, denied string // denied: what the error names, "" when read
	}{
		{"hard link to ~/.ssh/id_rsa", link(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(work, "notes.txt")), "inside ~/.ssh"},
		{"hard link to .env", link(filepath.Join(work, ".env"), filepath.Join(work, "config.txt")), ".env"},
		{"hard link to .env, from a subfolder", link(filepath.Join(work, ".env.local"), filepath.Join(work, "sub", "x")), ".env"},
		{"hard link to an allowed file", link(filepath.Join(work, "plain.txt"), filepath.Join(work, "sub", "plain2")), ""},
		{"file with one name", filepath.Join(work, "plain.txt"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg, err := d.Resolve(tt.path)
			if err != nil {
				t.Fatalf("Resolve: %v (the path alone is not denied)", err)
			}
			res, err := tools.ReadFile(tg, tools.ReadInput{Path: tt.path})
			if tt.denied == "" {
				if err != nil {
					t.Fatalf("ReadFile: %v", err)
				}
				return
			}
			if !errors.Is(err, tools.ErrDenied) || !strings.Contains(err.Error(), tt.denied) {
				t.Fatalf("ReadFile = %v (text %q), want denied naming %q", err, res.Text, tt.denied)
			}
			if _, err := tools.PrepareEdit(tg, []tools.Edit{{OldText: "K", NewText: "k"}}, nil); !errors.Is(err, tools.ErrDenied) {
				t.Errorf("PrepareEdit = %v, want denied", err)
			}
		})
	}
}

// A denied folder too large to check is the safe side: a file with
// several names is refused, one with a single name is read.
func TestHardLinkCheckBound(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 20001 files")
	}
	home := t.TempDir()
	big := filepath.Join(home, "big")
	if err := os.MkdirAll(big, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := range 20001 {
		f, err := os.Create(filepath.Join(big, "f"+strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	writeFile(t, filepath.Join(home, "a.txt"), "a")
	two := filepath.Join(home, "b.txt")
	if err := os.Link(filepath.Join(home, "a.txt"), two); err != nil {
		t.Fatal(err)
	}
	d := tools.NewDenied([]string{"~/big"}, home, "")
	tg, err := d.Resolve(two)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tools.ReadFile(tg, tools.ReadInput{Path: two}); !errors.Is(err, tools.ErrDenied) {
		t.Errorf("ReadFile of a file with two names beside a huge denied folder = %v, want denied", err)
	}
}
