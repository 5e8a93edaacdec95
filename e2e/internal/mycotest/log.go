package mycotest

import (
	"bytes"
	"sync"
)

// Log keeps the last bytes written to it: myco's log, for errors. It
// counts the warnings and errors myco logged (slog writes a line a call).
type Log struct {
	mu          sync.Mutex
	max         int
	buf         []byte
	warns, errs int
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.warns += bytes.Count(p, []byte("level=WARN"))
	l.errs += bytes.Count(p, []byte("level=ERROR"))
	l.buf = append(l.buf, p...)
	if over := len(l.buf) - l.max; over > 0 {
		l.buf = l.buf[over:]
	}
	return len(p), nil
}

// Counts returns the number of warnings and errors logged so far.
func (l *Log) Counts() (warns, errs int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.warns, l.errs
}

func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(bytes.TrimSpace(l.buf))
}
