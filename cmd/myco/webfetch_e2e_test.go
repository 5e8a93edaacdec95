//go:build myco_e2e

package main

import (
	"context"
	"errors"
	"testing"

	"myco/server/webfetch"
)

// The e2e build's seam takes only names under .test sent to loopback
// addresses, and lets only those addresses past the check.
func TestE2EWebHosts(t *testing.T) {
	getenv := func(v string) func(string) string {
		return func(k string) string {
			if k == "MYCO_E2E_WEB_HOSTS" {
				return v
			}
			return ""
		}
	}
	for _, v := range []string{"", "docs.example.com=127.0.0.1:1", "docs.test=10.0.0.1:80", "docs.test=localhost:80", "nonsense"} {
		if webFetcher(getenv(v)) != nil {
			t.Errorf("MYCO_E2E_WEB_HOSTS=%q made a fetcher with seams", v)
		}
	}
	f := webFetcher(getenv("docs.test=127.0.0.1:9, evil.com=127.0.0.1:9"))
	if f == nil {
		t.Fatal("no fetcher for docs.test")
	}
	// Another loopback port is still refused.
	if _, err := f.Fetch(context.Background(), "http://127.0.0.1:10/", nil); !errors.Is(err, webfetch.ErrBlockedAddress) {
		t.Fatalf("127.0.0.1:10: %v, want refused", err)
	}
}
