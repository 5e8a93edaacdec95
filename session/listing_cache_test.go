package session_test

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myco/session"
)

const (
	cacheA = "0193c7b2-0000-7000-8000-0000000000a1"
	cacheB = "0193c7b2-0000-7000-8000-0000000000b2"
	cacheC = "0193c7b2-0000-7000-8000-0000000000c3"
)

// writeOld writes doc into dir as another program would, dated an hour
// back: old enough for its stat to vouch for it.
func writeOld(t *testing.T, dir string, doc *session.Document) string {
	t.Helper()
	data, err := session.Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, doc.ID+".json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	return path
}

func titledDoc(id, title string) *session.Document {
	d := newDoc(id, t0, 1, 2)
	d.Title = title
	return d
}

// editInPlace rewrites the document at path with a title of the same
// length, keeping its inode, size and time: only the listing cache can
// still say the old title.
func editInPlace(t *testing.T, path, from, to string) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data := readFile(t, path)
	edited := bytes.Replace(data, []byte(from), []byte(to), 1)
	if bytes.Equal(edited, data) || len(edited) != len(data) {
		t.Fatalf("cannot edit %q into %q in place", from, to)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(edited, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
}

func titles(t *testing.T, s *session.Store) map[string]string {
	t.Helper()
	sums, err := s.List(session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, sum := range sums {
		got[sum.ID] = sum.Title
		if sum.Damaged != "" {
			got[sum.ID] = "damaged: " + sum.Damaged
		}
	}
	return got
}

// cachedProfile writes three documents, lists them with one store and
// saves its listing cache, as a server that stops does.
func cachedProfile(t *testing.T) (dir string, paths map[string]string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "session")
	s := mustOpen(t, dir, session.Options{})
	paths = map[string]string{}
	for _, id := range []string{cacheA, cacheB, cacheC} {
		paths[id] = writeOld(t, dir, titledDoc(id, "Title AAAA "+id[len(id)-2:]))
	}
	titles(t, s)
	if err := s.SaveListingCache(); err != nil {
		t.Fatal(err)
	}
	return dir, paths
}

func TestListingCacheRestart(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, dir string, paths map[string]string)
		want   map[string]string
	}{
		{
			name: "unchanged documents are not read again",
			change: func(t *testing.T, dir string, paths map[string]string) {
				editInPlace(t, paths[cacheA], "Title AAAA", "Title ZZZZ")
			},
			want: map[string]string{cacheA: "Title AAAA a1", cacheB: "Title AAAA b2", cacheC: "Title AAAA c3"},
		},
		{
			name: "a document saved since is read again",
			change: func(t *testing.T, dir string, paths map[string]string) {
				writeOld(t, dir, titledDoc(cacheA, "A new and longer title"))
			},
			want: map[string]string{cacheA: "A new and longer title", cacheB: "Title AAAA b2", cacheC: "Title AAAA c3"},
		},
		{
			name: "a deleted document is gone, a new one is there",
			change: func(t *testing.T, dir string, paths map[string]string) {
				if err := os.Remove(paths[cacheB]); err != nil {
					t.Fatal(err)
				}
				writeOld(t, dir, titledDoc("0193c7b2-0000-7000-8000-0000000000d4", "new"))
			},
			want: map[string]string{cacheA: "Title AAAA a1", cacheC: "Title AAAA c3", "0193c7b2-0000-7000-8000-0000000000d4": "new"},
		},
		{
			name: "a document replaced by a folder is listed as damaged",
			change: func(t *testing.T, dir string, paths map[string]string) {
				if err := os.Remove(paths[cacheC]); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(paths[cacheC], 0o700); err != nil {
					t.Fatal(err)
				}
			},
			want: map[string]string{cacheA: "Title AAAA a1", cacheB: "Title AAAA b2", cacheC: "damaged: a folder, not a file"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, paths := cachedProfile(t)
			tt.change(t, dir, paths)
			got := titles(t, mustOpen(t, dir, session.Options{}))
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("after a restart the listing says\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

// rewriteCache replaces the listing cache's body with edit's, with a
// header that matches it.
func rewriteCache(t *testing.T, path string, edit func(string) string) {
	t.Helper()
	head, body, _ := strings.Cut(string(readFile(t, path)), "\n")
	body = edit(body)
	f := strings.Fields(head)
	sum := crc32.Checksum([]byte(body), crc32.MakeTable(crc32.Castagnoli))
	writeFile(t, path, fmt.Sprintf("%s %08x %d %s\n%s", strings.Join(f[:4], " "), sum, len(body), f[6], body))
}

func TestListingCacheNotTrusted(t *testing.T) {
	cachePath := func(dir string) string { return filepath.Join(dir, session.ListingCacheName) }
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"garbage", func(t *testing.T, path string) { writeFile(t, path, "not a cache at all") }},
		{"empty", func(t *testing.T, path string) { writeFile(t, path, "") }},
		{"cut short", func(t *testing.T, path string) {
			data := readFile(t, path)
			writeFile(t, path, string(data[:len(data)-10]))
		}},
		{"a byte changed", func(t *testing.T, path string) {
			data := readFile(t, path)
			data[len(data)-20] ^= 1
			writeFile(t, path, string(data))
		}},
		{"another version", func(t *testing.T, path string) {
			writeFile(t, path, strings.Replace(string(readFile(t, path)), "cache 4 ", "cache 5 ", 1))
		}},
		{"version 1 (JSON), checksum right", func(t *testing.T, path string) {
			body := `[{"id":"` + cacheA + `","dev":1,"ino":2,"size":3,"mtime_ns":4,"summary":{"id":"` + cacheA + `","title":"Title AAAA a1"}}]`
			sum := crc32.Checksum([]byte(body), crc32.MakeTable(crc32.Castagnoli))
			writeFile(t, path, fmt.Sprintf("myco listing cache 1 %08x %d 1\n%s", sum, len(body), body))
		}},
		{"cut short, checksum right", func(t *testing.T, path string) {
			rewriteCache(t, path, func(b string) string { return b[:len(b)-1] })
		}},
		{"bytes after the last entry, checksum right", func(t *testing.T, path string) {
			rewriteCache(t, path, func(b string) string { return b + "x" })
		}},
		{"an entry for another session, checksum right", func(t *testing.T, path string) {
			rewriteCache(t, path, func(b string) string { return strings.Replace(b, cacheA, cacheB, 1) })
		}},
		{"an entry with an ID that names a path, checksum right", func(t *testing.T, path string) {
			rewriteCache(t, path, func(b string) string {
				return strings.ReplaceAll(b, cacheA, "../"+cacheA[3:])
			})
		}},
		{"a folder", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, paths := cachedProfile(t)
			editInPlace(t, paths[cacheA], "Title AAAA", "Title ZZZZ")
			tt.damage(t, cachePath(dir))
			s := mustOpen(t, dir, session.Options{})
			want := map[string]string{cacheA: "Title ZZZZ a1", cacheB: "Title AAAA b2", cacheC: "Title AAAA c3"}
			if got := titles(t, s); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("with a damaged cache the listing says\n%v\nwant every document read:\n%v", got, want)
			}
			if tt.name == "a folder" {
				return // not replaced by a file: rename refuses
			}
			// Written again whole, and trusted by the next start.
			if err := s.SaveListingCache(); err != nil {
				t.Fatal(err)
			}
			editInPlace(t, paths[cacheB], "Title AAAA", "Title ZZZZ")
			want[cacheB] = "Title AAAA b2"
			if got := titles(t, mustOpen(t, dir, session.Options{})); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("after the cache was written again the listing says\n%v\nwant\n%v", got, want)
			}
		})
	}
}

func TestListingCacheSavedOnlyWhenChanged(t *testing.T) {
	dir, _ := cachedProfile(t)
	path := filepath.Join(dir, session.ListingCacheName)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, dir, session.Options{})
	titles(t, s)
	if err := s.SaveListingCache(); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(path); err != nil || !os.SameFile(before, after) {
		t.Errorf("the cache was written again though nothing changed (%v)", err)
	}
	if err := s.Save(titledDoc(cacheA, "renamed")); err != nil {
		t.Fatal(err)
	}
	titles(t, s)
	if err := s.SaveListingCache(); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(path); err != nil || os.SameFile(before, after) {
		t.Errorf("the cache was not written again after a save (%v)", err)
	}
}
