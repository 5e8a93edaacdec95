package main

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"myco/e2e/internal/mycotest"
)

// The benchmarks here spawn a built myco, as a person does, so package
// initialisation, the binary's page faults and the profile's first read
// all count. Each op is one spawn until ready: the URL line printed and
// the first GET / served (the listing behind it included), then SIGTERM;
// the shutdown is not timed.

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// mycoBin builds myco once per test binary, into a folder that outlives
// every benchmark's temporary folder; MYCO_BENCH_BIN names a binary built
// already, to compare two builds in one sitting.
func mycoBin(b *testing.B) string {
	b.Helper()
	if bin := os.Getenv("MYCO_BENCH_BIN"); bin != "" {
		abs, err := filepath.Abs(bin)
		if err != nil {
			b.Fatal(err)
		}
		return abs
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "myco-bench-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin, buildErr = mycotest.Build(context.Background(), dir)
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	return builtBin
}

// startReady starts myco on profile p of home and serves one GET /.
func startReady(b *testing.B, bin, home, p string) *mycotest.Server {
	b.Helper()
	ctx := context.Background()
	m, err := startMyco(ctx, bin, home, p, home)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := m.Client().Get(ctx, "/"); err != nil {
		m.Kill()
		b.Fatal(err)
	}
	return m
}

// benchStartups times spawn → ready on profile p of home, b.N times.
func benchStartups(b *testing.B, bin, home, p string) {
	b.Helper()
	for b.Loop() {
		m := startReady(b, bin, home, p)
		b.StopTimer()
		if _, err := m.Stop(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkStartup is the cold start row: spawn → ready on an empty
// profile.
func BenchmarkStartup(b *testing.B) {
	bin := mycoBin(b)
	home := b.TempDir()
	benchStartups(b, bin, home, emptyProfile)
}

// BenchmarkRestart10000 is the restart row: spawn → ready on a profile
// of 10,000 sessions (the load script's), which myco has served and
// stopped once before, as a person's profile would be.
func BenchmarkRestart10000(b *testing.B) {
	bin := mycoBin(b)
	home := b.TempDir()
	if _, err := writeProfile(home, loadProfile, 10000, "http://127.0.0.1:1", "flaky"); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "work"), 0o700); err != nil {
		b.Fatal(err)
	}
	m := startReady(b, bin, home, loadProfile) // the first start ever
	if _, err := m.Stop(); err != nil {
		b.Fatal(err)
	}
	benchStartups(b, bin, home, loadProfile)
}
