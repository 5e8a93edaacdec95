package snapshot

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// take snapshots dir as name in st, failing the test on error.
func take(t *testing.T, st *Store, name, dir string) *Manifest {
	t.Helper()
	m, err := st.Take("s", name, dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// restore restores the snapshot m over its folder as it is now.
func restore(t *testing.T, st *Store, m *Manifest) error {
	t.Helper()
	now, err := st.Scan("s", m.Dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Restore(m, now)
	return err
}

// files lists every file and link under dir (slash-separated, relative),
// with a file's contents or "-> target" for a link; links not followed.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if e.Type()&os.ModeSymlink != 0 {
			to, _ := os.Readlink(p)
			out[filepath.ToSlash(rel)] = "-> " + to
			return nil
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A folder the snapshot holds, replaced since by a link to a folder
// outside (and left out by .gitignore, so no snapshot sees the link):
// neither undo nor redo writes a byte through it. Both are refused before
// anything changes, with a sentence naming the link.
func TestRestoreNeverWritesThroughALinkedFolder(t *testing.T) {
	for _, redo := range []bool{false, true} {
		name := map[bool]string{false: "undo", true: "redo"}[redo]
		t.Run(name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			st := Open(t.TempDir(), nil)
			write(t, dir, "keep.txt", "k\n")
			if !redo {
				write(t, dir, "sub/a.txt", "mine\n")
			}
			before := take(t, st, "t.before", dir)
			// The turn: for undo it deletes sub/; for redo it makes sub/a.txt.
			if redo {
				write(t, dir, "sub/a.txt", "made\n")
			} else {
				os.RemoveAll(filepath.Join(dir, "sub"))
			}
			write(t, dir, "keep.txt", "changed\n")
			after := take(t, st, "t.after", dir)
			target := before
			if redo {
				if err := restore(t, st, before); err != nil { // the undo, before the swap
					t.Fatal(err)
				}
				target = after
			}
			// Then sub becomes a link out, which .gitignore hides.
			os.RemoveAll(filepath.Join(dir, "sub"))
			if err := os.Symlink(outside, filepath.Join(dir, "sub")); err != nil {
				t.Fatal(err)
			}
			write(t, dir, ".gitignore", "sub\n")
			was := files(t, dir)

			err := restore(t, st, target)
			var ce *ConflictError
			if !errors.As(err, &ce) || ce.Path != "sub" || !strings.Contains(err.Error(), "is a link now") {
				t.Fatalf("restore through a linked folder: %v, want a *ConflictError on sub", err)
			}
			if got := files(t, outside); len(got) != 0 {
				t.Errorf("written outside the folder: %v", got)
			}
			if got := files(t, dir); !maps.Equal(got, was) {
				t.Errorf("the folder changed though the restore was refused:\n got %v\nwant %v", got, was)
			}
		})
	}
}

// A manifest that names a path out of the folder ("../x", as a crafted
// or damaged file could) writes nothing there: os.Root refuses it.
func TestRestoreRefusesPathsOutOfTheFolder(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "work")
	st := Open(t.TempDir(), nil)
	write(t, dir, "a.txt", "a\n")
	m := take(t, st, "t.before", dir)
	m.Files["../escaped.txt"] = m.Files["a.txt"]
	m.Files["sub/../../escaped2.txt"] = m.Files["a.txt"]
	if err := restore(t, st, m); err == nil {
		t.Fatal("a restore of ../escaped.txt succeeded")
	}
	if got := files(t, base); len(got) != 1 {
		t.Errorf("files under the folder's parent: %v, want work/a.txt alone", got)
	}
}

// A turn that turned a file into a folder, or a folder into a file, is
// undone and redone whole; when the folder holds a file no snapshot knows
// (ignored), the restore is refused and nothing changes.
func TestRestoreFileAndFolderSwaps(t *testing.T) {
	for _, tc := range []struct {
		name       string
		before     map[string]string // the folder before the turn
		turn       func(dir string)  // what the turn does
		thenIgnore bool              // an ignored file lands in the new folder
		refused    string            // the path the refusal names
	}{
		{
			name:   "file became a folder",
			before: map[string]string{"x": "a file\n", "other.txt": "o\n"},
			turn: func(dir string) {
				os.Remove(filepath.Join(dir, "x"))
				write(t, dir, "x/inner.txt", "in\n")
				write(t, dir, "x/deep/d.txt", "d\n")
			},
		},
		{
			name:   "folder became a file",
			before: map[string]string{"x/inner.txt": "in\n", "x/deep/d.txt": "d\n", "other.txt": "o\n"},
			turn: func(dir string) {
				os.RemoveAll(filepath.Join(dir, "x"))
				write(t, dir, "x", "a file\n")
			},
		},
		{
			name:   "file became a folder that holds an ignored file",
			before: map[string]string{"x": "a file\n", ".gitignore": "*.log\n"},
			turn: func(dir string) {
				os.Remove(filepath.Join(dir, "x"))
				write(t, dir, "x/inner.txt", "in\n")
			},
			thenIgnore: true,
			refused:    "x",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			st := Open(t.TempDir(), nil)
			for p, body := range tc.before {
				write(t, dir, p, body)
			}
			before := take(t, st, "t.before", dir)
			tc.turn(dir)
			after := take(t, st, "t.after", dir)
			if tc.thenIgnore {
				write(t, dir, "x/run.log", "log\n")
			}
			turned := files(t, dir)
			err := restore(t, st, before)
			if tc.refused != "" {
				var ce *ConflictError
				if !errors.As(err, &ce) || ce.Path != tc.refused || !strings.HasPrefix(err.Error(), "nothing was changed: ") {
					t.Fatalf("undo: %v, want a refusal naming %s", err, tc.refused)
				}
				if got := files(t, dir); !maps.Equal(got, turned) {
					t.Errorf("a refused undo changed the folder:\n got %v\nwant %v", got, turned)
				}
				return
			}
			if err != nil {
				t.Fatalf("undo: %v", err)
			}
			if got := files(t, dir); !maps.Equal(got, tc.before) {
				t.Errorf("after undo:\n got %v\nwant %v", got, tc.before)
			}
			if err := restore(t, st, after); err != nil {
				t.Fatalf("redo: %v", err)
			}
			if got := files(t, dir); !maps.Equal(got, turned) {
				t.Errorf("after redo:\n got %v\nwant %v", got, turned)
			}
		})
	}
}

// Entries the rule denies are neither taken nor loaded: a manifest an
// older myco wrote with a .env in it is read without it.
func TestDeniedEntriesNeverTakenNorLoaded(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	// As tools.Denied: a denied folder's whole tree is denied.
	deny := Deny(func(abs string) bool {
		return filepath.Base(abs) == ".env" || strings.Contains(abs+"/", "/secret/")
	})
	write(t, dir, ".env", "KEY=1\n")
	write(t, dir, "secret/id", "private\n")
	write(t, dir, "a.txt", "a\n")
	m, err := Open(root, deny).Take("s", "t.before", dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 1 || m.Files["a.txt"].SHA256 == "" {
		t.Errorf("files %v, want a.txt alone", m.Files)
	}
	// The same folder taken without the rule (as an older myco did) ...
	old, err := Open(root, nil).Take("s", "old.before", dir)
	if err != nil || len(old.Files) != 3 {
		t.Fatalf("without the rule: %v, %v", old.Files, err)
	}
	// ... loads without the denied entries.
	loaded, err := Open(root, deny).Load("s", "old.before")
	if err != nil || len(loaded.Files) != 1 {
		t.Errorf("loaded %v, %v; want a.txt alone", loaded, err)
	}
}
