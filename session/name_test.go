package session_test

import (
	"errors"
	"testing"
	"time"

	"myco/session"
)

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"", true},
		{"explore", true},
		{"phase-2.plan_b", true},
		{"Explore", true},
		{"x", true},
		{"cafe", false},      // hex: could be the start of an ID
		{"0193c7b2", false},  // starts with a digit, and hex
		{"dead-beef", false}, // hex and dashes
		{"2explore", false},
		{"-x", false},
		{"@last", false},
		{"a b", false},
		{"a/b", false},
		{"ünï", false},
		{string(make([]byte, session.MaxNameLength+1)), false},
	}
	for _, tt := range tests {
		err := session.ValidateName(tt.name)
		if (err == nil) != tt.ok {
			t.Errorf("ValidateName(%q) = %v, want ok %v", tt.name, err, tt.ok)
		}
		if err != nil && !errors.Is(err, session.ErrInvalidName) {
			t.Errorf("ValidateName(%q) = %v, not ErrInvalidName", tt.name, err)
		}
	}
}

// A name resolves wherever an ID does: from the document on disk, from
// the journal of a writer that holds the session (before a fold), and in
// the archive; with two holders (a copy by hand) the most recently active
// wins; an unknown name is not found like an unknown prefix.
func TestResolveName(t *testing.T) {
	st, dir := openStore(t, session.Options{})
	a, err := st.Create(session.NewSession{Title: "a", Name: "explore"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Create(session.NewSession{Title: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if id, err := st.Resolve("explore"); err != nil || id != a.ID {
		t.Fatalf("Resolve(explore) = %q, %v; want %s", id, err, a.ID)
	}
	if id, err := st.Resolve(a.ID); err != nil || id != a.ID {
		t.Fatalf("Resolve(ID) = %q, %v", id, err)
	}
	if _, err := st.Resolve("nosuch"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Resolve(nosuch) = %v, want not found", err)
	}

	// Named on b through its writer, journaled and not folded: the store
	// that holds it sees it at once.
	w, err := st.OpenWriter(b.ID, session.Owner{PID: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Update(func(d *session.Document) error { d.Name = "plan"; return nil }); err != nil {
		t.Fatal(err)
	}
	if id, err := st.Resolve("plan"); err != nil || id != b.ID {
		t.Errorf("Resolve(plan) through the writer = %q, %v; want %s", id, err, b.ID)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if doc, err := mustOpen(t, dir, session.Options{}).Load(b.ID); err != nil || doc.Name != "plan" {
		t.Errorf("after close the document's name is %q (%v)", doc.Name, err)
	}

	// A copy holds the name too: the most recently active of the two.
	later := func(d *session.Document) error {
		d.Name, d.UpdatedAt = "explore", d.UpdatedAt.Add(time.Hour)
		return nil
	}
	if _, err := st.Update(b.ID, later); err != nil {
		t.Fatal(err)
	}
	if id, _ := st.Resolve("explore"); id != b.ID {
		t.Errorf("with two holders explore is %s, want the newer %s", id, b.ID)
	}
	if err := st.Archive(b.ID); err != nil {
		t.Fatal(err)
	}
	if id, _ := st.Resolve("explore"); id != a.ID {
		t.Errorf("an active holder comes before an archived one: got %s, want %s", id, a.ID)
	}
	if _, err := st.Update(a.ID, func(d *session.Document) error { d.Name = ""; return nil }); err != nil {
		t.Fatal(err)
	}
	if id, _ := st.Resolve("explore"); id != b.ID {
		t.Errorf("an archived session's name resolves: got %q, want %s", id, b.ID)
	}
}
