//go:build myco_e2e

package main

import (
	"net/netip"
	"strings"

	"myco/server/webfetch"
)

// webFetcher, in the browser tests' build only (go build -tags myco_e2e,
// e2e/global-setup.ts), lets web_fetch reach the spec's own web server:
// MYCO_E2E_WEB_HOSTS="docs.test=127.0.0.1:41234" sends that host name to
// that loopback address, and lets the address check pass exactly that
// address. Only names under .test (a top-level domain reserved for
// tests, RFC 2606) and loopback addresses are taken; anything else in
// the variable is ignored. A myco built without the tag has no such seam:
// this file is not in it.
func webFetcher(getenv func(string) string) *webfetch.Fetcher {
	hosts := map[string]string{}
	allowed := map[netip.AddrPort]bool{}
	for entry := range strings.SplitSeq(getenv("MYCO_E2E_WEB_HOSTS"), ",") {
		name, addr, ok := strings.Cut(strings.TrimSpace(entry), "=")
		ap, err := netip.ParseAddrPort(addr)
		if !ok || err != nil || !strings.HasSuffix(name, ".test") || !ap.Addr().IsLoopback() {
			continue
		}
		hosts[strings.ToLower(name)] = ap.String()
		allowed[ap] = true
	}
	if len(hosts) == 0 {
		return nil
	}
	return webfetch.New(webfetch.Options{Hosts: hosts, AllowAddr: func(ap netip.AddrPort) bool { return allowed[ap] }})
}
