//go:build !myco_e2e

package main

import "myco/server/webfetch"

// webFetcher is web_fetch's fetcher: nil, the defaults, with no way to
// reach this machine or its network. The browser tests' build (tag
// myco_e2e, webfetch_e2e.go) is the only one with another.
func webFetcher(func(string) string) *webfetch.Fetcher { return nil }
