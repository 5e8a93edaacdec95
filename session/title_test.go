package session_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"myco/session"
)

func TestCleanTitle(t *testing.T) {
	long := strings.Repeat("a", session.TitleMax)
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"kept as it is", "Fix the flaky test", "Fix the flaky test"},
		{"trimmed", "  \t Fix it \n", "Fix it"},
		{"one line", "Fix\nthe\r\n  flaky\ttest", "Fix the flaky test"},
		{"control characters are spaces", "Fix\x00the\x1b[31mtest\u0085now", "Fix the [31mtest now"},
		{"unicode spaces", "Fix\u00a0\u2003it\u2028now", "Fix it now"},
		{"nothing but space", " \n\t ", ""},
		{"empty", "", ""},
		{"invalid UTF-8 replaced", "caf\xc3 ok\xff", "caf\uFFFD ok\uFFFD"},
		{"at the cap", long, long},
		{"over the cap", long + "b", long},
		{"cut on a character boundary", strings.Repeat("é", session.TitleMax+5), strings.Repeat("é", session.TitleMax)},
		{"cut mid emoji sequence keeps whole runes", strings.Repeat("x", session.TitleMax-1) + "👍🏽", strings.Repeat("x", session.TitleMax-1) + "👍"},
		{"no trailing space after the cut", strings.Repeat("a", session.TitleMax-1) + " bcd", strings.Repeat("a", session.TitleMax-1)},
		{"spaces collapse before counting", strings.Repeat("a ", session.TitleMax), strings.TrimSpace(strings.Repeat("a ", session.TitleMax/2))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := session.CleanTitle(tt.in)
			if got != tt.want {
				t.Errorf("CleanTitle(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if !utf8.ValidString(got) || utf8.RuneCountInString(got) > session.TitleMax {
				t.Errorf("CleanTitle(%q) = %q: invalid UTF-8 or over %d characters", tt.in, got, session.TitleMax)
			}
			if again := session.CleanTitle(got); again != got {
				t.Errorf("CleanTitle is not idempotent: %q, then %q", got, again)
			}
		})
	}
}

func TestSetTitle(t *testing.T) {
	tests := []struct {
		name        string
		doc         session.Document
		in          string
		wantTitle   string
		wantChanged bool
		wantErr     error
	}{
		{"renamed", session.Document{Title: "Old"}, " New\ntitle ", "New title", true, nil},
		{"named for the first time", session.Document{}, "First", "First", true, nil},
		{"same title once cleaned", session.Document{Title: "Old title"}, "Old   title\n", "Old title", false, nil},
		{"empty refused", session.Document{Title: "Old"}, " \n ", "Old", false, session.ErrEmptyTitle},
		{"archived refused", session.Document{Title: "Old", Archived: true}, "New", "Old", false, session.ErrArchived},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := tt.doc
			changed, err := session.SetTitle(&doc, tt.in)
			if !errors.Is(err, tt.wantErr) || changed != tt.wantChanged || doc.Title != tt.wantTitle {
				t.Errorf("SetTitle(%q) = %v, %v, title %q; want %v, %v, title %q",
					tt.in, changed, err, doc.Title, tt.wantChanged, tt.wantErr, tt.wantTitle)
			}
		})
	}
}

func FuzzCleanTitle(f *testing.F) {
	for _, s := range []string{"", "a b", "caf\xc3", strings.Repeat("é", 200), "\x00\n\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := session.CleanTitle(s)
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > session.TitleMax ||
			strings.ContainsAny(got, "\n\r\t") || strings.TrimSpace(got) != got || session.CleanTitle(got) != got {
			t.Errorf("CleanTitle(%q) = %q", s, got)
		}
	})
}

func TestFirstWords(t *testing.T) {
	tests := []struct{ text, want string }{
		{"Fix the flaky test", "Fix the flaky test"},
		{"  two\nlines  ", "two lines"},
		{"", ""},
		{" \n\t", ""},
		{"Why does the parser in internal/scan drop the last token when the input ends", "Why does the parser in internal/scan drop the last token…"},
		{strings.Repeat("x", 70), strings.Repeat("x", 60) + "…"},
		{strings.Repeat("é", 70), strings.Repeat("é", 60) + "…"},
	}
	for _, tt := range tests {
		if got := session.FirstWords(tt.text); got != tt.want {
			t.Errorf("FirstWords(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// The first words give way to any title set later; a set title is not
// replaced by first words.
func TestTitleFromWordsGivesWay(t *testing.T) {
	doc := &session.Document{}
	if !session.SetTitleFromWords(doc, "hello there") || doc.Title != "hello there" || !doc.Provisional() {
		t.Fatalf("first words: %+v", doc)
	}
	if changed, err := session.SetTitle(doc, "hello there"); err != nil || !changed || doc.Provisional() {
		t.Errorf("the same title set by someone: changed %v, %v, provisional %v", changed, err, doc.Provisional())
	}
	if session.SetTitleFromWords(doc, "other words") || doc.Title != "hello there" {
		t.Errorf("first words over a set title: %q", doc.Title)
	}
}
