package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// BenchmarkStartupFloor times the stack's floor (./floor: the libraries
// myco links, and nothing of myco) as BenchmarkStartup times myco: spawn
// until its URL line is printed and its first GET / served; the stop is
// not timed.
func BenchmarkStartupFloor(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "floor")
	build := exec.CommandContext(b.Context(), "go", "build", "-o", bin, "myco/e2e/load/floor")
	build.Env = mycotest.BuildEnv() // as myco is built
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build the floor: %v\n%s", err, out)
	}
	for b.Loop() {
		cmd, err := startFloor(b.Context(), bin)
		b.StopTimer()
		if cmd != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// startFloor spawns bin, waits for its URL line and GETs it; the caller
// stops the process it returns.
func startFloor(ctx context.Context, bin string) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, bin)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return cmd, fmt.Errorf("the floor printed no URL: %w", err)
	}
	_, url, ok := strings.Cut(strings.TrimSpace(line), " at ")
	if !ok {
		return cmd, fmt.Errorf("the floor printed %q, not its URL", line)
	}
	resp, err := http.Get(url)
	if err != nil {
		return cmd, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return cmd, err
	}
	if resp.StatusCode != http.StatusOK {
		return cmd, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return cmd, nil
}
