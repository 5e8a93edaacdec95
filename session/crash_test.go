package session_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"myco/session"
)

const crashID = "0193c7b2-0000-7000-8000-0000000000c5"

// crashVersion is version n of the document the crash test saves over and
// over: n messages, each longer than the one before, and the version in the
// scratchpad, so a document read back says which version it claims to be.
func crashVersion(n int) *session.Document {
	d := &session.Document{
		Schema: session.Schema, ID: crashID, Title: "saved until killed",
		CreatedAt: t0, UpdatedAt: t0.Add(time.Duration(n) * time.Second),
		Scratchpad: fmt.Sprintf("version %d", n),
		Threads:    []session.Thread{{CreatedAt: t0, Messages: []session.Message{}}},
	}
	for i := 1; i <= n; i++ {
		text := strings.Repeat(string(rune('a'+i%26)), 200+10*i)
		d.Threads[0].Messages = append(d.Threads[0].Messages, textMessage(fmt.Sprintf("v%d", i), "user", text))
	}
	return d
}

// crashAnnounce is the version after which the saving child says it runs.
const crashAnnounce = 5

// childSaveLoop saves versions 1, 2, 3… of the crash document until killed.
func childSaveLoop() int {
	s, err := session.Open(os.Getenv("MYCO_TEST_DIR"), session.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for n := 1; ; n++ {
		if err := s.Save(crashVersion(n)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if n == crashAnnounce {
			fmt.Println("saving")
		}
	}
}

// TestCrashDuringSave kills a process that is saving a document again and
// again, at a random moment: the document left is whole, and is exactly one
// of the versions that process saved.
func TestCrashDuringSave(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes")
	}
	for round := range 8 {
		dir := filepath.Join(t.TempDir(), "session")
		s := mustOpen(t, dir, session.Options{})
		if err := s.Save(crashVersion(0)); err != nil {
			t.Fatal(err)
		}
		c := startChild(t, "saveloop", "MYCO_TEST_DIR="+dir)
		c.waitLine(t, "saving")
		// The one sleep of these tests: the moment of the kill is random on purpose.
		time.Sleep(time.Duration(50+rand.IntN(400)) * time.Millisecond)
		c.kill()

		path := filepath.Join(dir, crashID+".json")
		doc, err := session.Decode(readFile(t, path), path, crashID)
		if err != nil {
			t.Fatalf("round %d: after SIGKILL: %v", round, err)
		}
		var n int
		if _, err := fmt.Sscanf(doc.Scratchpad, "version %d", &n); err != nil || n < crashAnnounce {
			t.Fatalf("round %d: scratchpad %q: want a version ≥ %d", round, doc.Scratchpad, crashAnnounce)
		}
		data, err := session.Encode(crashVersion(n))
		if err != nil {
			t.Fatal(err)
		}
		want, err := session.Decode(data, path, crashID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, doc); diff != "" {
			t.Fatalf("round %d: the document claims version %d but differs (-want +got):\n%s", round, n, diff)
		}
		t.Logf("round %d: killed after version %d (%d bytes)", round, n, len(data))

		// The dead process's lock is gone with it: the store works on.
		s = mustOpen(t, dir, session.Options{})
		if err := s.Save(crashVersion(n + 1)); err != nil {
			t.Fatalf("round %d: Save after the crash: %v", round, err)
		}
		sums, err := s.List(session.ListOptions{})
		if err != nil || len(sums) != 1 || sums[0].Damaged != "" || sums[0].Messages != n+1 {
			t.Errorf("round %d: List after the crash = %+v, %v", round, sums, err)
		}
	}
}
