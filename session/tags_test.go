package session_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"myco/session"
)

func TestCleanTags(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    []string
		wantErr string
	}{
		{name: "none", in: nil, want: nil},
		{name: "empty list", in: []string{}, want: nil},
		{name: "trimmed, inner spaces made one", in: []string{"  work ", "two \t words"}, want: []string{"work", "two words"}},
		{name: "repeats dropped ignoring case, first kept", in: []string{"Work", "work", "WORK", "home"}, want: []string{"Work", "home"}},
		{name: "at the length cap", in: []string{strings.Repeat("é", session.TagMax)}, want: []string{strings.Repeat("é", session.TagMax)}},
		{name: "at the count cap", in: manyTags(session.TagsMax), want: manyTags(session.TagsMax)},
		{name: "empty refused", in: []string{"ok", "   "}, wantErr: "a tag cannot be empty"},
		{name: "too long refused", in: []string{strings.Repeat("x", session.TagMax+1)}, wantErr: "33 characters long; the most is 32"},
		{name: "too many refused", in: manyTags(session.TagsMax + 1), wantErr: "at most 10 tags, not 11"},
		{name: "comma refused", in: []string{"a,b"}, wantErr: "holds a comma"},
		{name: "control character refused", in: []string{"a\x00b"}, wantErr: "control character"},
		{name: "invalid UTF-8 refused", in: []string{"a\xffb"}, wantErr: "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := session.CleanTags(tt.in)
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, session.ErrInvalidTag) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("CleanTags(%q) error %v, want one saying %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CleanTags(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func manyTags(n int) []string {
	var tags []string
	for i := range n {
		tags = append(tags, "tag"+string(rune('a'+i)))
	}
	return tags
}

func TestHasTag(t *testing.T) {
	tags := []string{"Work", "two words"}
	for _, tt := range []struct {
		tag  string
		want bool
	}{{"work", true}, {" two   words ", true}, {"wor", false}, {"", false}} {
		if got := session.HasTag(tags, tt.tag); got != tt.want {
			t.Errorf("HasTag(%q, %q) = %v, want %v", tags, tt.tag, got, tt.want)
		}
	}
}

// TestPinsAndTagsRoundTrip checks that the header keeps pinned and tags
// through a save and a load, that a document written before them reads
// as unpinned and untagged (and is written without the members), and
// that the listing carries them.
func TestPinsAndTagsRoundTrip(t *testing.T) {
	s, dir := openStore(t, session.Options{})
	const marked, old = "0193c7b2-0000-7000-8000-0000000000e1", "0193c7b2-0000-7000-8000-0000000000e2"
	d := newDoc(marked, t0, 1, 1)
	d.Pinned, d.Tags = true, []string{"work", "two words"}
	writeOld(t, dir, d)
	writeOld(t, dir, newDoc(old, t0.Add(time.Hour), 1, 1))

	got, err := s.Load(marked)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Pinned || !slices.Equal(got.Tags, d.Tags) {
		t.Errorf("loaded pinned %v tags %q, want true %q", got.Pinned, got.Tags, d.Tags)
	}
	data, err := session.Encode(newDoc(old, t0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if names := memberNames(t, data); slices.Contains(names, "pinned") || slices.Contains(names, "tags") {
		t.Errorf("a document without marks is written with %v", names)
	}
	sums, err := s.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := findSummary(sums, marked)
	if !sum.Pinned || !slices.Equal(sum.Tags, d.Tags) {
		t.Errorf("listed pinned %v tags %q", sum.Pinned, sum.Tags)
	}
	if plain, _ := findSummary(sums, old); plain.Pinned || plain.Tags != nil {
		t.Errorf("an old document lists as pinned %v tags %q", plain.Pinned, plain.Tags)
	}
}

// TestListPinnedFirst checks the listing's order, pinned sessions first
// (newest first among them), through the listing cache of a restart too;
// and that @last is still the newest session, pinned or not.
func TestListPinnedFirst(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir, session.Options{})
	folder := dir
	ids := []string{
		"0193c7b2-0000-7000-8000-0000000000f1", "0193c7b2-0000-7000-8000-0000000000f2",
		"0193c7b2-0000-7000-8000-0000000000f3", "0193c7b2-0000-7000-8000-0000000000f4",
	}
	for i, id := range ids { // f4 newest
		d := newDoc(id, t0.Add(time.Duration(i)*time.Hour), 1, 1)
		d.Pinned = id == ids[0] || id == ids[2]
		d.Tags = []string{"t" + id[len(id)-1:]}
		writeOld(t, folder, d)
	}
	want := []string{ids[2], ids[0], ids[3], ids[1]}
	sums, err := s.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, idsOf(sums)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if last, err := s.Resolve(session.LastSession); err != nil || last != ids[3] {
		t.Errorf("@last = %s, %v; want the newest, %s", last, err, ids[3])
	}
	if err := s.SaveListingCache(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(folder, session.ListingCacheName)); err != nil {
		t.Fatal(err)
	}
	again, err := mustOpen(t, dir, session.Options{}).List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sums, again); diff != "" {
		t.Errorf("after a restart from the listing cache (-before +after):\n%s", diff)
	}
}

func idsOf(sums []session.Summary) []string {
	var out []string
	for _, s := range sums {
		out = append(out, s.ID)
	}
	return out
}
