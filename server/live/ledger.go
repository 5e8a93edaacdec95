package live

import (
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"myco/internal/atomicfile"
	"myco/session"
)

// ledgerFile is the profile's day ledger, in the profile's folder.
const ledgerFile = "budget.json"

// ledgerDays is how many days the ledger keeps: a month of history, and
// a file that stays small.
const ledgerDays = 31

// ledger is the profile's spend per day, and the reservations in flight
// of every account.
type ledger struct {
	path string // "" keeps it in memory (no profile folder)
	log  *slog.Logger

	mu   sync.Mutex
	days map[string]session.Spent // by local date, 2006-01-02
	held map[string]session.Spent // in flight, by account (accountKey)

	saveMu sync.Mutex  // orders writes of the file
	due    *time.Timer // the write that is due (s.mu), nil for none
	closed bool        // the manager closed: write at once
}

// ledgerSaveDelay gathers the charges of a moment into one write: a
// write is two fsyncs, and a turn makes a call every few hundred
// milliseconds (sub-agents more). A crash loses at most this much of the
// day's spend; each session's own is durable with its document.
const ledgerSaveDelay = time.Second

// saveSoon writes the ledger after ledgerSaveDelay, once for the charges
// of that moment; at once when the manager is closed.
func (l *ledger) saveSoon() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		l.save()
		return
	}
	if l.due == nil && l.path != "" {
		l.due = time.AfterFunc(ledgerSaveDelay, func() {
			l.mu.Lock()
			l.due = nil
			l.mu.Unlock()
			l.save()
		})
	}
	l.mu.Unlock()
}

// close writes what is due now; later charges are written at once.
func (l *ledger) close() {
	l.mu.Lock()
	l.closed = true
	due := l.due != nil && l.due.Stop()
	l.due = nil
	l.mu.Unlock()
	if due {
		l.save()
	}
}

// ledgerJSON is budget.json.
type ledgerJSON struct {
	Days map[string]session.Spent `json:"days"`
}

func openLedger(dir string, log *slog.Logger) *ledger {
	l := &ledger{log: log, days: map[string]session.Spent{}, held: map[string]session.Spent{}}
	if dir == "" {
		return l
	}
	l.path = filepath.Join(dir, ledgerFile)
	data, err := os.ReadFile(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return l
	}
	var f ledgerJSON
	if err == nil {
		err = json.Unmarshal(data, &f)
	}
	if err != nil {
		// Replaced at the next charge: a budget that cannot read its
		// past counts from now rather than stopping every call.
		log.Warn("the day's budget ledger cannot be read; today counts from now", "path", l.path, "err", err)
		return l
	}
	maps.Copy(l.days, f.Days)
	return l
}

// save writes the ledger's days, the last ledgerDays of them.
func (l *ledger) save() {
	if l.path == "" {
		return
	}
	l.saveMu.Lock()
	defer l.saveMu.Unlock()
	l.mu.Lock()
	keys := slices.Sorted(maps.Keys(l.days))
	for _, k := range keys[:max(0, len(keys)-ledgerDays)] {
		delete(l.days, k)
	}
	data, err := json.MarshalIndent(ledgerJSON{Days: l.days}, "", "  ")
	l.mu.Unlock()
	if err == nil {
		err = atomicfile.Write(l.path, append(data, '\n'), atomicfile.Options{})
	}
	if err != nil {
		l.log.Warn("the day's budget ledger was not saved", "path", l.path, "err", err)
	}
}

func dayAccount(day string) string    { return "day:" + day }
func sessionAccount(id string) string { return "session:" + id }
