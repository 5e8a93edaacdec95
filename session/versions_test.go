package session_test

import (
	"strings"
	"testing"

	"myco/session"
)

// TestVersionForks makes versions of a message the way the server does
// (a fork that stops before it, then its own message) and lists them.
func TestVersionForks(t *testing.T) {
	s, _ := openStore(t, session.Options{})
	root, err := s.Create(session.NewSession{Title: "Root"})
	if err != nil {
		t.Fatal(err)
	}
	say := func(id, role string) session.Message {
		return session.Message{ID: id, Role: role, Human: role == "user", Content: []session.Block{{Type: session.BlockText, Text: id}}}
	}
	if _, err := s.Update(root.ID, func(d *session.Document) error {
		d.Threads[0].Messages = []session.Message{say("q1", "user"), say("a1", "assistant"), say("q2", "user"), say("a2", "assistant")}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// version forks from, before message before, as another version of
	// the point message belongs to there, and writes its own next.
	version := func(from, before, message, next string) *session.Document {
		t.Helper()
		d, err := s.Load(from)
		if err != nil {
			t.Fatal(err)
		}
		p := d.VersionPointOf(message)
		f, err := s.Fork(from, session.ForkOptions{Before: before, Version: &p})
		if err != nil {
			t.Fatal(err)
		}
		f, err = s.Update(f.ID, func(d *session.Document) error {
			d.Threads[0].Messages = append(d.Threads[0].Messages, say(next, "user"))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	first := version(root.ID, "q2", "q2", "q2-b")
	second := version(first.ID, "q2-b", "q2-b", "q2-c") // a version of a version's own message
	other := version(root.ID, "q1", "q1", "q1-b")

	tests := []struct {
		name  string
		point session.VersionPoint
		want  []string // session/message
	}{
		{"the edited message", session.VersionPoint{Session: root.ID, Message: "q2"}, []string{root.ID + "/q2", first.ID + "/q2-b", second.ID + "/q2-c"}},
		{"the first message", session.VersionPoint{Session: root.ID, Message: "q1"}, []string{root.ID + "/q1", other.ID + "/q1-b"}},
		{"a message of one version", session.VersionPoint{Session: root.ID, Message: "a1"}, []string{root.ID + "/a1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs, err := s.Versions(tt.point)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range vs {
				got = append(got, v.Session+"/"+v.Message)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("versions %v, want %v", got, tt.want)
			}
		})
	}

	if second.Parent.Session != root.ID || second.Parent.Branch != "q2" || second.Title != "Root" {
		t.Errorf("a version of a version: parent %+v, title %q", second.Parent, second.Title)
	}
	if p := second.VersionPointOf("q2-c"); p != (session.VersionPoint{Session: root.ID, Message: "q2"}) {
		t.Errorf("the point of a version's message: %+v", p)
	}
	if p := second.VersionPointOf("a1"); p != (session.VersionPoint{Session: second.ID, Message: "a1"}) {
		t.Errorf("the point of a shared message: %+v", p)
	}
	now, err := s.Load(root.ID)
	if err != nil {
		t.Fatal(err)
	}
	byMessage, err := s.VersionsIn(now)
	if err != nil {
		t.Fatal(err)
	}
	if len(byMessage) != 2 || len(byMessage["q2"]) != 3 || len(byMessage["q1"]) != 2 {
		t.Errorf("VersionsIn(root) = %v", byMessage)
	}
	if _, err := s.Fork(root.ID, session.ForkOptions{Before: "nope"}); err == nil || !strings.Contains(err.Error(), `"nope" is not in the latest thread`) {
		t.Errorf("a fork before an unknown message: %v", err)
	}
}
