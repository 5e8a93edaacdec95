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

	saveMu sync.Mutex // orders writes of the file
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
