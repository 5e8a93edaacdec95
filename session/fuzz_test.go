package session_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/session"
)

// FuzzDecode: Decode never panics, fails only with a *DamagedError, and
// whatever it accepts can be written and read back to the same bytes: a
// document myco can open, it can also save.
func FuzzDecode(f *testing.F) {
	addTestdata(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := session.Decode(data, "fuzz.json", "")
		if err != nil {
			if !errors.Is(err, session.ErrDamaged) {
				t.Fatalf("Decode failed with %v, want a *DamagedError", err)
			}
			return
		}
		first, err := session.Encode(doc)
		if err != nil {
			t.Fatalf("Decode accepted a document that Encode refuses: %v", err)
		}
		again, err := session.Decode(first, "fuzz.json", doc.ID)
		if err != nil {
			t.Fatalf("Decode refuses what Encode wrote: %v\n%s", err, first)
		}
		second, err := session.Encode(again)
		if err != nil {
			t.Fatalf("second Encode: %v", err)
		}
		if !bytes.Equal(first, second) {
			t.Errorf("Encode→Decode→Encode changed the document:\n%s", cmp.Diff(string(first), string(second)))
		}
	})
}

// FuzzListMatchesLoad: a listing reads documents its own way, without
// keeping their messages; it must call damaged exactly what Load refuses,
// and summarise the rest as the loaded document does.
func FuzzListMatchesLoad(f *testing.F) {
	addTestdata(f)
	root := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, data []byte) {
		// A fresh store each time: nothing cached from an earlier input.
		n++
		dir := filepath.Join(root, fmt.Sprint(n))
		defer os.RemoveAll(dir)
		s := mustOpen(t, dir, session.Options{})
		// Named after the ID it claims, when that can be a file name. The
		// lenient encoding/json finds it in many a damaged document too.
		id := "fuzz"
		var claims struct{ ID string }
		json.Unmarshal(data, &claims)
		if session.ValidateID(claims.ID) == nil {
			id = claims.ID
		}
		if err := os.WriteFile(filepath.Join(dir, id+".json"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		var sums []session.Summary
		for _, archived := range []bool{false, true} {
			part, err := s.List(session.ListOptions{Archived: archived})
			if err != nil {
				t.Fatal(err)
			}
			sums = append(sums, part...)
		}
		if len(sums) != 1 || sums[0].ID != id {
			t.Fatalf("listed %v, want %s once", ids(sums), id)
		}
		sum := sums[0]
		doc, err := s.Load(id)
		switch {
		case err != nil && !errors.Is(err, session.ErrDamaged):
			t.Fatalf("Load: %v", err)
		case err != nil && sum.Damaged == "":
			t.Fatalf("Load refuses (%v) what List shows as healthy: %+v", err, sum)
		case err == nil && sum.Damaged != "":
			t.Fatalf("List calls damaged (%s) what Load reads", sum.Damaged)
		case err == nil:
			if diff := cmp.Diff(doc.Summarize(), sum); diff != "" {
				t.Errorf("List and Load disagree (-load +list):\n%s", diff)
			}
		}
	})
}

// addTestdata seeds a fuzz target with every hand-written document.
func addTestdata(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	damaged, err := filepath.Glob(filepath.Join("testdata", "damaged", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range append(files, damaged...) {
		f.Add(readFile(f, file))
	}
}
