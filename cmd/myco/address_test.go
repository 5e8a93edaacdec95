package main

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"

	"myco/profiles"
)

// serveOnce runs myco on c's default profile with args until it prints its
// URL, and returns that URL and a function that stops it.
func serveOnce(t *testing.T, c *cli, args ...string) (string, *syncBuffer, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	getenv := func(k string) string {
		if k == "MYCO_HOME" {
			return c.home
		}
		return ""
	}
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"--no-open"}, args...), getenv, nil, &out, &errOut) }()
	link := waitURL(t, &out, done)
	return link, &errOut, func() {
		t.Helper()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}
}

// TestRestartKeepsAddressAndToken: a second start of a profile listens on
// the port of the first with the same token, so an open tab and a
// bookmark keep working; address.json is 0600. --addr overrides the port,
// not the token; a port another program took falls back to a new one,
// said on stderr.
func TestRestartKeepsAddressAndToken(t *testing.T) {
	c := newCLI(t)
	first, _, stop := serveOnce(t, c)
	stop()
	second, _, stop := serveOnce(t, c)
	if second != first {
		t.Errorf("after a restart the URL is %s, want %s", second, first)
	}
	origin, token, _ := strings.Cut(second, "/?token=")
	if !answers(profiles.ServerInfo{URL: origin, Token: token}) {
		t.Errorf("%s does not answer with the token after a restart", origin)
	}
	stop()

	p, _ := profiles.Lookup(c.home, "default")
	if fi, err := os.Stat(p.AddressPath()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("address.json: %v, mode %v", err, fi.Mode().Perm())
	}

	flagged, _, stop := serveOnce(t, c, "--addr", "127.0.0.1:0")
	if flagged == second || !strings.HasSuffix(flagged, "?token="+token) {
		t.Errorf("with --addr 127.0.0.1:0 the URL is %s: want a new port and the token %s", flagged, token)
	}
	stop()

	saved, err := profiles.ReadAddress(p.AddressPath())
	if err != nil {
		t.Fatal(err)
	}
	taken, err := net.Listen("tcp", saved.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	moved, errOut, stop := serveOnce(t, c)
	stop()
	if strings.Contains(moved, saved.Addr) || !strings.Contains(errOut.String(), "is taken") {
		t.Errorf("with %s taken: URL %s, stderr %q", saved.Addr, moved, errOut.String())
	}
}

// TestRestartLeavesAddressFile: a restart that listens where the last one
// did, with its token, does not write address.json again (a durable write
// on the way to the first page), and one that moves does.
func TestRestartLeavesAddressFile(t *testing.T) {
	c := newCLI(t)
	_, _, stop := serveOnce(t, c)
	stop()
	p, _ := profiles.Lookup(c.home, "default")
	before, err := os.Stat(p.AddressPath())
	if err != nil {
		t.Fatal(err)
	}
	_, _, stop = serveOnce(t, c)
	stop()
	after, err := os.Stat(p.AddressPath())
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("a restart on the same address replaced address.json")
	}
	_, _, stop = serveOnce(t, c, "--addr", "127.0.0.1:0")
	stop()
	moved, err := os.Stat(p.AddressPath())
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(after, moved) {
		t.Error("a start on a new port left address.json as it was")
	}
}
