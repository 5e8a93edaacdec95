package profiles_test

import (
	"sync"
	"testing"

	"myco/profiles"
)

// TestLiveSettingsReplace: a reader sees the settings of the latest
// Replace, and readers may race a writer (go test -race).
func TestLiveSettingsReplace(t *testing.T) {
	first := profiles.DefaultSettings()
	ls := profiles.NewLiveSettings(first)
	if got := ls.Current().DefaultModel; got != first.DefaultModel {
		t.Fatalf("Current().DefaultModel = %q, want %q", got, first.DefaultModel)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				_ = ls.Current().Approvals.Bash
			}
		})
	}
	next := profiles.DefaultSettings()
	next.Approvals.Bash = profiles.ApprovalAllow
	ls.Replace(next)
	wg.Wait()
	if got := ls.Current().Approvals.Bash; got != profiles.ApprovalAllow {
		t.Errorf("after Replace, approvals.bash = %q, want allow", got)
	}
}
