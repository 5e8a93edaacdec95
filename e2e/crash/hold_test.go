package crash

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The hold cases of issue 18: text that the redactor may hold back while
// it streams, in case it is a secret. A kill during one may lose at most
// lostWindow of it, like any text, and no secret may reach the disk in
// clear. The session holdSession starts every cycle with one of them, in
// turn, so every run has kills that land in each.
const (
	holdCert = iota // an answer streaming a PEM certificate (not a secret)
	holdKey         // an answer streaming a PEM private key (a secret)
	holdDots        // a command printing pytest's dots: tens of KiB without whitespace
	holdKinds
)

// holdSession is the session whose worker starts each cycle with a hold case.
const holdSession = 1

// pemLines is how long a streamed PEM block is: 100 lines of 64
// characters, 6.5 KB, 40 ms a line (the certificate: 6,558
// characters), four seconds.
const pemLines = 100

// pemBody is lines of random base64, as a PEM block's body.
func pemBody(rng *rand.Rand) []string {
	lines := make([]string, pemLines)
	raw := make([]byte, 48)
	for i := range lines {
		for j := range raw {
			raw[j] = byte(rng.IntN(256))
		}
		lines[i] = base64.StdEncoding.EncodeToString(raw) // 64 characters
	}
	return lines
}

// pemMessage asks the fake to stream a PEM block of kind (CERTIFICATE,
// PRIVATE KEY) with body, a line every 40 ms.
func pemMessage(tag, kind string, body []string) string {
	return fmt.Sprintf("%s pem [[say:Here it is:\n-----BEGIN %s-----\n%s\n-----END %s-----\nThat is all.]] [[delay:40ms]]",
		tag, kind, strings.Join(body, "\n"), kind)
}

// The dots command prints dotRounds × dotsPerRound dots without a newline,
// 0.1 s a round, and logs each round's end (number and time) to a file
// outside myco, so the test knows what it had printed before the kill.
const (
	dotRounds    = 40
	dotsPerRound = 1000
	dotsCommand  = `for i in $(seq 1 %d); do head -c %d /dev/zero | tr '\\0' .; echo \"$i $(date +%%s%%N)\" >> %s; sleep 0.1; done`
)

func dotsMessage(tag, file string) string {
	return tag + ` dots [[tool:bash {"command":"` + fmt.Sprintf(dotsCommand, dotRounds, dotsPerRound, file) + `"}]]`
}

// isDots reports whether a tool call's tick file is a dots command's.
func isDots(file string) bool { return strings.HasPrefix(filepath.Base(file), "dots-") }

// checkDots: the output kept holds every dot printed by the deadline.
func checkDots(kept, file string, by time.Time) error {
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	due := 0
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		ns, _ := strconv.ParseInt(f[1], 10, 64)
		if !time.Unix(0, ns).After(by) {
			due++
		}
	}
	got := longestRun(kept, '.')
	if got < due*dotsPerRound {
		return fmt.Errorf("the output kept has %d dots; the command had printed %d a second before the kill", got, due*dotsPerRound)
	}
	return nil
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := range len(s) {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// markerPattern is a redaction marker (docs/FORMAT.md, "Secrets kept off
// the disk").
var markerPattern = regexp.MustCompile(`\[REDACTED:[a-z0-9-]+\]`)

// coveredBy is how much of received (bytes, from its start) the kept text
// stands for, and whether it stands for a start of it at all. A marker in
// kept stands for any span of received (the secret it hides). Kept text
// that runs past received (the disk was ahead of the tab) covers it all.
func coveredBy(received, kept string) (int, bool) {
	parts := markerPattern.Split(kept, -1)
	if len(parts) == 1 {
		switch {
		case strings.HasPrefix(kept, received):
			return len(received), true
		case strings.HasPrefix(received, kept):
			return len(kept), true
		}
		return 0, false
	}
	if !strings.HasPrefix(received, parts[0]) {
		if strings.HasPrefix(parts[0], received) {
			return len(received), true
		}
		return 0, false
	}
	pos := len(parts[0])
	for i, lit := range parts[1:] {
		last := i == len(parts)-2
		j := strings.Index(received[pos:], lit)
		switch {
		case j >= 0 && !(last && lit == ""):
			pos += j + len(lit)
		case last && runsInto(received[pos:], lit):
			return len(received), true
		default:
			return 0, false
		}
	}
	return pos, true
}

// runsInto reports whether some end of rest (possibly empty) starts lit:
// received stops inside the last kept literal.
func runsInto(rest, lit string) bool {
	for i := range len(rest) + 1 {
		if strings.HasPrefix(lit, rest[i:]) {
			return true
		}
	}
	return false
}

// noteSecret remembers a secret's lines: none may ever be on disk.
func (s *sess) noteSecret(lines []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secrets = append(s.secrets, lines...)
}

// checkSecrets looks for every secret line sent so far in every file under
// myco's home: the journals and documents as a kill left them, and as the
// restart folded them.
func (h *harness) checkSecrets(k int, when string) {
	type leak struct {
		s    *sess
		what string
	}
	var found []leak
	err := filepath.WalkDir(h.cfg.Home, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // renamed or removed by the running server meanwhile
		}
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // a temp file renamed into place meanwhile
		}
		if err != nil {
			return err
		}
		for _, s := range h.ss {
			s.mu.Lock()
			for _, line := range s.secrets {
				if bytes.Contains(data, []byte(line)) {
					found = append(found, leak{s, fmt.Sprintf("%s holds %q", path, line[:16]+"…")})
					break
				}
			}
			s.mu.Unlock()
		}
		return nil
	})
	if err != nil {
		h.t.Fatalf("kill %d (seed %d): %v", k, h.seed, err)
	}
	for _, f := range found {
		h.fail(k, f.s, ruleSecret, "a private key line is on disk in clear %s: %s", when, f.what)
	}
}

// hold runs the cycle's hold case: it sends its message and waits for the
// turn to end (the kill usually comes first).
func (w *worker) hold(ctx context.Context, kind int) error {
	ended := w.rec.turnsEnded()
	tag := w.s.nextTag("h")
	var text string
	switch kind {
	case holdCert:
		text = pemMessage(tag, "CERTIFICATE", pemBody(w.rng))
	case holdKey:
		body := pemBody(w.rng)
		w.s.noteSecret(body)
		text = pemMessage(tag, "PRIVATE KEY", body)
	case holdDots:
		text = dotsMessage(tag, filepath.Join(w.ticks, "dots-"+tag[1:]))
	}
	if err := w.send(ctx, text, false); err != nil {
		return err
	}
	return w.rec.waitTurnEnds(ctx, ended+1)
}
