package main

import (
	"context"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func TestManagesMemoryLimit(t *testing.T) {
	for env, want := range map[string]bool{"": true, "200MiB": false, "off": false} {
		got := managesMemoryLimit(func(name string) string {
			if name == "GOMEMLIMIT" {
				return env
			}
			return ""
		})
		if got != want {
			t.Errorf("with GOMEMLIMIT=%q: manages %v, want %v", env, got, want)
		}
	}
}

func TestPausesCollectorAtStart(t *testing.T) {
	tests := []struct {
		gogc, gomemlimit string
		want             bool
	}{
		{"", "", true},
		{"50", "", false}, // the person's pacing, from the start
		{"off", "", false},
		{"", "200MiB", false}, // the person's limit: myco manages neither
	}
	for _, tt := range tests {
		env := map[string]string{"GOGC": tt.gogc, "GOMEMLIMIT": tt.gomemlimit}
		if got := pausesCollectorAtStart(func(name string) string { return env[name] }); got != tt.want {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: pauses %v, want %v", tt.gogc, tt.gomemlimit, got, tt.want)
		}
	}
}

func TestLimitFor(t *testing.T) {
	tests := []struct {
		live uint64
		want int64
	}{
		{0, defaultMemoryLimit},
		{10 << 20, defaultMemoryLimit}, // the load run's 10,000 sessions and 20 turns: the default binds
		{16 << 20, 32 << 20},
		{20 << 20, 38 << 20},
		{100 << 20, 158 << 20}, // a large session: never under what it needs
	}
	for _, tt := range tests {
		if got := limitFor(tt.live); got != tt.want {
			t.Errorf("limitFor(%d MiB) = %d MiB, want %d MiB", tt.live>>20, got>>20, tt.want>>20)
		}
	}
}

// TestKeepMemoryLimit: with 100 MiB live, the limit follows the heap up
// after a collection, and back down once it is let go.
func TestKeepMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	stop := keepMemoryLimit()
	defer func() {
		stop()
		debug.SetMemoryLimit(before)
	}()
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	waitLimit := func(what string, ok func(int64) bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !ok(limit()) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the limit stayed %d MiB", what, limit()>>20)
			}
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
		}
	}
	live := make([][]byte, 100)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	waitLimit("100 MiB live", func(l int64) bool { return l >= 150<<20 })
	runtime.KeepAlive(live)
	live = nil
	waitLimit("let go", func(l int64) bool { return l < 64<<20 })
}

// gcPercent is the collector's pacing now.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

func TestPauseCollector(t *testing.T) {
	tests := []struct {
		name   string
		pause  time.Duration
		resume bool // resumed by the caller, not by the time
	}{
		{"until the time passes", 50 * time.Millisecond, false},
		{"until resumed", time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			was := debug.SetGCPercent(75)
			defer debug.SetGCPercent(was)
			resume := pauseCollector(tt.pause)
			if p := gcPercent(); p != -1 {
				t.Fatalf("GOGC %d during the pause, want off (-1)", p)
			}
			if tt.resume {
				resume()
				if p := gcPercent(); p != 75 {
					t.Fatalf("GOGC %d once resumed, want 75 back", p)
				}
				debug.SetGCPercent(60)
				resume() // a second call changes nothing
				if p := gcPercent(); p != 60 {
					t.Fatalf("a second resume set GOGC %d, want it left at 60", p)
				}
				return
			}
			deadline := time.Now().Add(10 * time.Second)
			for gcPercent() != 75 {
				if time.Now().After(deadline) {
					t.Fatalf("GOGC %d after the pause, want 75 back", gcPercent())
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// The start pause ends as the server serves: env.started runs once its
// URL line is written, and a command that serves nothing never runs it
// (its pause ends by the time).
func TestStartedWhenServing(t *testing.T) {
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "MYCO_HOME" {
			return home
		}
		return ""
	}
	var out, errOut syncBuffer
	started := make(chan bool, 1)
	e := env{getenv: getenv, stdout: &out, stderr: &errOut, started: func() {
		started <- strings.Contains(out.String(), "myco is serving profile")
	}}
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- runIn(ctx, e, []string{"--no-open"}) }()
	select {
	case afterURL := <-started:
		if !afterURL {
			t.Errorf("started ran before the URL line: %q", out.String())
		}
	case err := <-served:
		t.Fatalf("myco ended before it served: %v %q", err, errOut.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("started never ran: %q %q", out.String(), errOut.String())
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("myco: %v", err)
	}

	called := false
	e = env{getenv: getenv, stdout: io.Discard, stderr: io.Discard, started: func() { called = true }}
	if err := runIn(t.Context(), e, []string{"sessions", "list"}); err != nil {
		t.Fatal(err)
	}
	if called {
		t.Error("sessions list ran started: it serves nothing")
	}
}
