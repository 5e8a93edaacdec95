package session

import (
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

// TestListingCacheRoundTrip: every field of an entry comes back as it
// was written, and the JSON the API answers from it is the same.
func TestListingCacheRoundTrip(t *testing.T) {
	east := time.FixedZone("", 2*3600)
	tests := []struct {
		name string
		st   stamp
		sum  Summary
	}{
		{"minimal", stamp{ok: true}, Summary{ID: "a"}},
		{"every field",
			stamp{dev: 1 << 40, ino: 12345678901, size: 4096, mtime: time.Date(2026, 12, 2, 10, 0, 0, 123, time.UTC).UnixNano(), ok: true},
			Summary{
				ID: "0193c7b2-0000-7000-8000-0000000000a1", Title: "Ünïcode \"quoted\" title\n", Model: "anthropic/claude-sonnet-4-5",
				Cwd: "/home/ana/src", CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 6, east),
				UpdatedAt: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC), Archived: true, Messages: 1002, Threads: 3, Failed: true,
				Parent: "0193c7b2-0000-7000-8000-0000000000b2", ParentTitle: "the parent", Name: "explore",
				Usage: []ModelUsage{
					{Model: "", Usage: Usage{InputTokens: 1}},
					{Model: "openai/gpt", Usage: Usage{
						InputTokens: 1 << 40, OutputTokens: 2, CacheReadInputTokens: 3, CacheCreationInputTokens: 4,
						CacheCreation5mInputTokens: 5, CacheCreation1hInputTokens: 6, Unknown: jsontext.Value(`{"later":1}`),
					}},
				},
				Pinned: true, Tags: []string{"one", "two"},
			},
		},
	}
	sameTime := cmp.Comparer(func(a, b time.Time) bool {
		_, ao := a.Zone()
		_, bo := b.Zone()
		return a.Equal(b) && ao == bo
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			written := newEntry(tt.st, tt.sum, time.Time{})
			data := encodeListingCache(map[string]*fileEntry{tt.sum.ID: written})
			body, n, err := checkListingCache(data)
			if err != nil {
				t.Fatal(err)
			}
			files, _, err := decodeCacheBody(body, n)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := files[tt.sum.ID]
			if !ok || len(files) != 1 {
				t.Fatalf("decoded %d entries, want the one written", len(files))
			}
			if !got.st.same(tt.st) {
				t.Errorf("stamp %+v, want %+v", got.st, tt.st)
			}
			if got.full != nil {
				t.Errorf("a cached entry decoded whole at once")
			}
			if got.id != tt.sum.ID || !got.updated.Equal(tt.sum.UpdatedAt) || got.flags != headFlags(&tt.sum) || got.parent != tt.sum.Parent {
				t.Errorf("head %q %v %b %q, want %q %v %b %q", got.id, got.updated, got.flags, got.parent,
					tt.sum.ID, tt.sum.UpdatedAt, headFlags(&tt.sum), tt.sum.Parent)
			}
			gotSum := got.summary()
			if diff := cmp.Diff(tt.sum, gotSum, sameTime); diff != "" {
				t.Errorf("summary (-written +read):\n%s", diff)
			}
			want, err := appendSummaryJSON(nil, &tt.sum)
			if err != nil {
				t.Fatal(err)
			}
			if js, _ := appendSummaryJSON(nil, &gotSum); string(js) != string(want) {
				t.Errorf("API JSON after the round trip\n%s\nwant\n%s", js, want)
			}
			// A cached entry is saved again as it was read.
			if again := encodeListingCache(files); string(again) != string(data) {
				t.Errorf("a cached entry saved again differs:\n%q\nwant\n%q", again, data)
			}
		})
	}
}

// TestListingCacheBodyRefused: a body that a checksum cannot vouch for the
// sense of is refused whole, never half decoded.
func TestListingCacheBodyRefused(t *testing.T) {
	e := newEntry(stamp{ok: true}, Summary{ID: "abc", Title: "t", Usage: []ModelUsage{{Model: "m"}}}, time.Time{})
	body := appendCacheEntry(nil, e)
	tests := []struct {
		name string
		body []byte
		n    int
	}{
		{"more entries than written", body, 2},
		{"fewer entries than written", append(append([]byte{}, body...), body...), 1},
		{"cut in the middle", body[:len(body)/2], 1},
		{"unknown flags", func() []byte {
			b := appendCacheEntry(nil, newEntry(stamp{ok: true}, Summary{ID: "abc"}, time.Time{}))
			b[len(b)-6] = 0x80 // flags, before two counts, two empty strings and no usage

			return b
		}(), 1},
		{"a usage count larger than the body", func() []byte {
			b := appendCacheEntry(nil, newEntry(stamp{ok: true}, Summary{ID: "abc"}, time.Time{}))
			return append(b[:len(b)-1], 0xff, 0x7f)
		}(), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if files, _, err := decodeCacheBody(tt.body, tt.n); err == nil {
				t.Errorf("decoded %d entries from a bad body, want an error", len(files))
			}
		})
	}
}
