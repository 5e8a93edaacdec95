package crash

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The rules' arithmetic, checked without a server.

func TestMeasureLoss(t *testing.T) {
	kill := time.Unix(100, 0)
	a := &answer{deltas: []delta{
		{at: kill.Add(-3 * time.Second), text: "alpha "},
		{at: kill.Add(-2 * time.Second), text: "bravo "},
		{at: kill.Add(-500 * time.Millisecond), text: "charlie "},
		{at: kill.Add(-100 * time.Millisecond), text: "delta "},
	}}
	tests := []struct {
		name    string
		kept    string
		chars   int
		span    time.Duration
		wantErr bool
	}{
		{"all kept", "alpha bravo charlie delta ", 0, 0, false},
		{"last second lost", "alpha bravo ", 14, 500 * time.Millisecond, false},
		{"cut inside a delta", "alpha bravo char", 10, 500 * time.Millisecond, false},
		{"more than a second lost", "alpha ", 20, 2 * time.Second, true},
		{"nothing kept", "", 26, 3 * time.Second, true},
		{"not a prefix", "alpha bravo delta", 26, 3 * time.Second, true},
		// The disk ahead of the tab: the answer was saved whole (or its
		// last deltas journaled) before the kill, and the client had not
		// got the end yet (seed 1796156963870656261, kill 15: 213
		// characters kept, 200 received).
		{"kept more than received", "alpha bravo charlie delta echo ", 0, 0, false},
		{"more, but not what was received", "alpha bravo charlie delta; echo", 26, 3 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := measureLoss(a, tt.kept, kill)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if l.chars != tt.chars || l.span != tt.span {
				t.Errorf("lost %d characters, %s; want %d, %s", l.chars, l.span, tt.chars, tt.span)
			}
		})
	}
}

func TestCheckOutput(t *testing.T) {
	kill := time.Unix(100, 0)
	printed := []tick{}
	for i := range 5 {
		at := kill.Add(time.Duration(i*300-1800) * time.Millisecond) // -1.8 s … -0.6 s
		printed = append(printed, tick{line: fmt.Sprintf("tick-%d %d", i+1, at.UnixNano()), at: at})
	}
	out := func(n int) string {
		s := ""
		for _, tk := range printed[:n] {
			s += tk.line + "\n"
		}
		return s
	}
	by := kill.Add(-lostWindow) // ticks 1 to 3 are due
	tests := []struct {
		name    string
		kept    string
		wantErr bool
	}{
		{"everything", out(5), false},
		{"what was due", out(3), false},
		{"with a note after", out(3) + "[interrupted]\n", false},
		{"one due tick lost", out(2), true},
		{"nothing", "", true},
		{"a tick that was never printed", out(3) + "tick-9 1\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkOutput(tt.kept, printed, by); (err != nil) != tt.wantErr {
				t.Errorf("error %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

func TestCoveredBy(t *testing.T) {
	const received = "key: -----BEGIN PRIVATE KEY-----\nAAAA\nBBBB\n-----END PRIVATE KEY-----\nok"
	tests := []struct {
		name, kept string
		want       int
		ok         bool
	}{
		{"all", received, len(received), true},
		{"a start", "key: -----BEGIN", len("key: -----BEGIN"), true},
		{"more than received", received + " and more", len(received), true},
		{"secret redacted whole", "key: [REDACTED:private-key]\nok", len(received), true},
		{"ends in a marker", "key: [REDACTED:private-key]", len(received), true},
		{"marker, then part of what came after", "key: [REDACTED:private-key]\no", len(received) - 1, true},
		{"marker, then more than received", "key: [REDACTED:private-key]\nok, and more", len(received), true},
		// Text after the last marker that received does not hold could
		// be text the tab had not got yet: only text between markers, or
		// before the first, tells.
		{"marker, then text not received yet", "key: [REDACTED:private-key]\nno", len(received), true},
		{"other text between markers", "key: [REDACTED:private-key]zz[REDACTED:private-key]", 0, false},
		{"other text before the marker", "kex: [REDACTED:private-key]", 0, false},
		{"not a start", "BEGIN", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := coveredBy(received, tt.kept)
			if got != tt.want || ok != tt.ok {
				t.Errorf("coveredBy = %d, %v; want %d, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestCheckDots(t *testing.T) {
	kill := time.Unix(100, 0)
	file := filepath.Join(t.TempDir(), "dots-s1-h1")
	var log strings.Builder
	for i := 1; i <= 5; i++ { // rounds end at -2.5 s … -0.5 s
		fmt.Fprintf(&log, "%d %d\n", i, kill.Add(time.Duration(i*500-3000)*time.Millisecond).UnixNano())
	}
	if err := os.WriteFile(file, []byte(log.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	dots := func(n int) string { return strings.Repeat(".", n*dotsPerRound) }
	tests := []struct {
		name    string
		kept    string
		wantErr bool
	}{
		{"everything, with the notes", resumed + dots(5) + "\n[interrupted]", false},
		{"what was due", dots(4), false}, // rounds 1 to 4 ended by -1 s
		{"a round lost", dots(3), true},
		{"nothing", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkDots(tt.kept, file, kill.Add(-lostWindow)); (err != nil) != tt.wantErr {
				t.Errorf("error %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

// resumed is how a resumed session's first command output starts.
const resumed = "This session was resumed in a new myco process: … must be read again before you change them.\n\n"
