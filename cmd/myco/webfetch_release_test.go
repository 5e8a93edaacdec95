//go:build !myco_e2e

package main

import "testing"

// The build people run has no test seam: MYCO_E2E_WEB_HOSTS means
// nothing to it, and web_fetch gets the default fetcher.
func TestReleaseBuildIgnoresE2EWebHosts(t *testing.T) {
	getenv := func(k string) string {
		if k == "MYCO_E2E_WEB_HOSTS" {
			return "docs.test=127.0.0.1:1"
		}
		return ""
	}
	if f := webFetcher(getenv); f != nil {
		t.Fatal("a release build made a fetcher with test seams")
	}
}
