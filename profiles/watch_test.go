package profiles_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"myco/profiles"
)

// TestWatchReloads: an edit of settings.json reaches the holder without a
// restart, an editor's rename included; a broken file keeps the last good
// settings and says where it is broken until it is fixed.
func TestWatchReloads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	write := func(text string) {
		t.Helper()
		// As editors save: a new file renamed over the old one.
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"approvals": {"bash": "ask"}}`)
	ls, err := profiles.LoadLiveSettings(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	reports := make(chan error, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go ls.Watch(ctx, func(err error) { reports <- err })
	next := func() error {
		t.Helper()
		select {
		case err := <-reports:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("no reload")
			return nil
		}
	}
	if err := next(); err != nil { // the watch is in place
		t.Fatal(err)
	}
	write(`{"approvals": {"bash": "allow"}}`)
	if err := next(); err != nil || ls.Current().Approvals.Bash != profiles.ApprovalAllow {
		t.Fatalf("after an edit: %v, approvals.bash %q, want allow", err, ls.Current().Approvals.Bash)
	}

	write("{\n  \"approvals\": {\"bash\": \"sometimes\"}\n}")
	var se *profiles.SettingsError
	if err := next(); !errors.As(err, &se) || se.Line != 2 {
		t.Fatalf("a bad value reloads as %v, want a *SettingsError on line 2", err)
	}
	if _, err := ls.Problems(); !errors.As(err, &se) {
		t.Errorf("Problems() = %v, want the file's error", err)
	}
	if got := ls.Current().Approvals.Bash; got != profiles.ApprovalAllow {
		t.Errorf("approvals.bash = %q with a broken file, want the last good allow", got)
	}

	write(`{"approvals": {"bash": "ask"}, "approvls": {}}`)
	if err := next(); err != nil {
		t.Fatal(err)
	}
	warnings, err := ls.Problems()
	if err != nil || len(warnings) != 1 || ls.Current().Approvals.Bash != profiles.ApprovalAsk {
		t.Errorf("after the fix: bash %q, problems %v %v; want ask, one warning, no error", ls.Current().Approvals.Bash, warnings, err)
	}
}
