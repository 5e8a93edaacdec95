package live

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/server/tools"
)

func TestMentionCandidates(t *testing.T) {
	tests := []struct {
		text string
		want [][]string
	}{
		{"hi @alice", [][]string{{"alice"}}},
		{"@Override public void run()", [][]string{{"Override"}}},
		{"mail bob@example.com", nil},
		{"see @a.txt.", [][]string{{"a.txt.", "a.txt"}}},
		{"@a.txt, then", [][]string{{"a.txt,", "a.txt"}}},
		{"(see @src/a.go)", [][]string{{"src/a.go)", "src/a.go"}}},
		{"what is @b.md?!", [][]string{{"b.md?!", "b.md?", "b.md"}}},
		{"quote @a.txt” done", [][]string{{"a.txt”", "a.txt"}}},
		{"@a @b\n@c", [][]string{{"a"}, {"b"}, {"c"}}},
		{"just @", nil},
		{"@...", [][]string{{"...", "..", "."}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, mentionCandidates(tt.text)); diff != "" {
			t.Errorf("mentionCandidates(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

// Only an @path that names an existing file or folder is attached; any
// other @word stays text, and trailing punctuation is cut unless a file by
// that exact name exists.
func TestAttachMentions(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	e.write(t, "a.txt", "alpha\n")
	e.write(t, "v1.", "dotted\n")
	if err := os.Mkdir(filepath.Join(e.work, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		want []string
	}{
		{"ask @alice about @property and @Override", nil},
		{"see @a.txt.", []string{"a.txt"}},
		{"@a.txt, then @a.txt again", []string{"a.txt"}},
		{"(in @src)", []string{"src"}},
		{"the file @v1.", []string{"v1."}},
		{"mail bob@a.txt", nil},
	}
	for _, tt := range tests {
		notes, err := s.AttachMentions(tt.text)
		if err != nil {
			t.Fatalf("AttachMentions(%q): %v", tt.text, err)
		}
		var got []string
		for _, n := range notes {
			got = append(got, n.Path)
			if err := s.RemoveNote(n.ID); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("AttachMentions(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

// A path that exists but is refused still stops the message with the
// reason: the person meant that file.
func TestAttachMentionsRefusesDenied(t *testing.T) {
	e := newFileEnv(t)
	s := e.newSession(t)
	e.write(t, ".env", "TOKEN=1")
	if _, err := s.AttachMentions("use @.env."); !errors.Is(err, tools.ErrDenied) {
		t.Fatalf("AttachMentions(@.env.) = %v, want denied", err)
	}
}
