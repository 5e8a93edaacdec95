package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"
)

// TestMayMatch: the prefilter never says no when the decoded strings hold
// the words, whatever the case and the escapes, and says no when they
// cannot.
func TestMayMatch(t *testing.T) {
	enc := func(s string) string { // as the encoder writes it
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name, query, raw string
		want             bool
	}{
		{"absent", "zanzibar", enc("the deploy script broke"), false},
		{"present", "deploy", enc("the deploy script broke"), true},
		{"case", "DePloy", enc("The DEPLOY script"), true},
		{"all words needed", "deploy zanzibar", enc("the deploy script"), false},
		{"words anywhere in the document", "deploy broke", `{"a":"deploy","b":"broke"}`, true},
		{"non-ASCII", "café", enc("un CAFÉ noir"), true},
		{"non-ASCII absent", "café", enc("un thé"), false},
		{"ASCII escape of a word's letter", "deploy", `"d\u0065ploy"`, true},
		{"ASCII escape in upper case", "deploy", `"D\u0045PLOY"`, true},
		{"escape of another letter", "deploy", `"\u007a deplo"`, false},
		{"control escapes hide nothing", "deploy", enc("\x1b[31mdeplo\x1b[0m"), false},
		{"non-ASCII word and an escape", "café", `"caf\u00e9"`, true},
		{"non-ASCII word and a surrogate pair", "😀x", `"\ud83d\ude00x"`, true},
		{"word with a quote", `say"hi`, enc(`say"hi`), true},
		{"word with a backslash", `c:\temp`, enc(`c:\temp`), true},
		{"word with a slash", "a/b", `"a\/b"`, true},
		{"word with <", "<b>", `"\u003cb\u003e"`, true},
		{"escaped backslash then u", "deploy", `"\\u0064eploy"`, true}, // a false alarm: costs a decode
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMatcher(tt.query)
			raw := []byte(tt.raw)
			lowerInPlace(raw)
			if got := m.mayMatch(raw); got != tt.want {
				t.Errorf("mayMatch(%q, %s) = %v, want %v", tt.query, tt.raw, got, tt.want)
			}
			// The prefilter must agree with decoding: a match after
			// decoding is never filtered out.
			var s string
			if json.Unmarshal([]byte(tt.raw), &s) == nil {
				if m.holds(s) && !m.mayMatch(raw) {
					t.Errorf("decoded %q matches, but the prefilter skips it", s)
				}
			}
		})
	}
}

func TestContainsFoldASCII(t *testing.T) {
	tests := []struct {
		raw, word string
		want      bool
	}{
		{"the Zanzibar buffer", "zanzibar", true},
		{"ZANZIBAR", "zanzibar", true},
		{"zAnZiBaR!", "zanzibar", true},
		{"zanzibaR", "zanzibar", true},
		{"zanziba", "zanzibar", false},
		{"xanzibar", "zanzibar", false},
		{"go test ./...", "./...", true},
		{"v1.2.3", "1.2", true},
		{"", "a", false},
		{"q", "q", true},
		{"\u212a", "k", false}, // the Kelvin sign is not an ASCII k: lowerSameLen keeps it too
	}
	for _, tt := range tests {
		w := []byte(tt.word)
		if got := containsFoldASCII([]byte(tt.raw), w, anchorOf(w)); got != tt.want {
			t.Errorf("containsFoldASCII(%q, %q) = %v, want %v", tt.raw, tt.word, got, tt.want)
		}
		// The same answer as the lowercased search it stands for.
		if want := strings.Contains(lowerSameLen(tt.raw), tt.word); want != tt.want {
			t.Errorf("test case %q/%q disagrees with lowerSameLen", tt.raw, tt.word)
		}
	}
}

// TestPrefilterSkips: the prefilter really leaves out a document that
// cannot hold the query (else every search decodes everything), and keeps
// one whose word is only in its journal.
func TestPrefilterSkips(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := s.Create(NewSession{Title: "Prefilter"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.OpenWriter(doc.ID, Owner{PID: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Append(Message{ID: "m", Role: "user", Content: []Block{{Type: BlockText, Text: "the quokka"}}}); err != nil {
		t.Fatal(err)
	}
	sums, err := s.searchOrder()
	if err != nil || len(sums) != 1 {
		t.Fatalf("searchOrder = %v, %v", sums, err)
	}
	cen, err := s.takeCensus()
	if err != nil {
		t.Fatal(err)
	}
	if got := prefilter(sums, newMatcher("zanzibar"), cen, make([][]byte, 2)); got[0] {
		t.Error("a document without the word was not skipped")
	}
	if got := prefilter(sums, newMatcher("Quokka"), cen, make([][]byte, 2)); !got[0] {
		t.Error("a document whose journal holds the word was skipped")
	}
}

// TestCensus: one read of the two folders finds every journal and every
// sidecar, the ones an archive cut short left in the other folder too,
// and nothing else: a session with neither is searched by reading its
// document alone.
func TestCensus(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	id := func(n int) string { return fmt.Sprintf("0193c7b2-0000-7000-8000-%012d", n) }
	touch := func(path string) {
		t.Helper()
		if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	touch(filepath.Join(dir, id(1)+".journal"))
	touch(filepath.Join(dir, id(2)+".readline"))
	touch(filepath.Join(s.archivedDir, id(3)+".console"))
	touch(filepath.Join(s.archivedDir, id(4)+".journal"))
	touch(filepath.Join(dir, id(5)+".json"))
	touch(filepath.Join(dir, id(5)+".lock"))
	touch(filepath.Join(dir, id(6)+".json.tmp-123"))
	got, err := s.takeCensus()
	if err != nil {
		t.Fatal(err)
	}
	want := census{
		journal: map[string]bool{id(1): true, id(4): true},
		sidecar: map[string]bool{id(2): true, id(3): true},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(census{})); diff != "" {
		t.Errorf("census (-want +got):\n%s", diff)
	}
}

// TestHolds: holds, which folds ASCII case as it searches, says what
// lowercasing the text (lowerSameLen) and looking for every word says,
// non-ASCII text and the Kelvin sign (whose lower case is ASCII k, of
// another length, so lowerSameLen keeps it) included.
func TestHolds(t *testing.T) {
	texts := []string{
		"", "The Cache is warm", "CACHE", "cach", "ca\u212Ache", "\u212Aelvin", "naïve CAFÉ cache",
		"a cache; then a lock", "lock", "x\x00cache\xff",
	}
	queries := []string{"cache", "Cache lock", "kelvin", "café", "naïve cache", "e", "CACHE CACHE"}
	for _, q := range queries {
		m := newMatcher(q)
		for _, text := range texts {
			want := true
			lower := lowerSameLen(text)
			for _, w := range m.words {
				want = want && strings.Contains(lower, string(w))
			}
			if got := m.holds(text); got != want {
				t.Errorf("holds(%q) in %q = %v, want %v", q, text, got, want)
			}
		}
	}
}
