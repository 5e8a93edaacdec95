package schedule

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/uuid"

	"myco/internal/atomicfile"
	"myco/internal/errkind"
)

// FileName is the schedules' file in the profile's folder; LockName the
// flock that serialises its changes across processes (a CLI writing it
// while no server runs).
const (
	FileName = "schedules.json"
	LockName = "schedules.lock"
)

// ErrDamaged is a schedules.json that does not parse: it is left as it is.
var ErrDamaged = errkind.New(errkind.Damaged, "schedules.json is damaged")

// file is schedules.json.
type file struct {
	Schedules []Schedule `json:"schedules"`
}

// Store is the profile's schedules.json. Every change reads the file,
// changes it and replaces it atomically under the lock, so a CLI and a
// server (or two CLIs) never lose each other's changes; reads need no
// lock (the file is replaced whole).
type Store struct {
	path string
	lock string
	now  func() time.Time
	mu   sync.Mutex // one change at a time in this process (flock is per open file)
}

// OpenStore is the store of the schedules in the profile folder dir;
// now is its clock (nil: time.Now).
func OpenStore(dir string, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{path: filepath.Join(dir, FileName), lock: filepath.Join(dir, LockName), now: now}
}

// Path is the file's path.
func (s *Store) Path() string { return s.path }

// List returns every schedule, in the order they were added.
func (s *Store) List() ([]Schedule, error) {
	f, err := s.read()
	return f.Schedules, err
}

// Get returns the schedule id.
func (s *Store) Get(id string) (Schedule, error) {
	f, err := s.read()
	if err != nil {
		return Schedule{}, err
	}
	i := f.index(id)
	if i < 0 {
		return Schedule{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return f.Schedules[i], nil
}

// Add checks sc (Normalize), gives it an ID and its dates, and keeps it.
// Its first slot is the first after now.
func (s *Store) Add(sc Schedule) (Schedule, error) {
	if err := sc.Normalize(); err != nil {
		return Schedule{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Schedule{}, err
	}
	now := s.now().UTC()
	sc.ID, sc.CreatedAt, sc.Since, sc.LastSlot, sc.Runs = id.String(), now, now, time.Time{}, nil
	err = s.change(func(f *file) error {
		f.Schedules = append(f.Schedules, sc)
		return nil
	})
	return sc, err
}

// Patch is a change to a schedule's fields; nil leaves one as it is.
type Patch struct {
	Name      *string `json:"name"`
	When      *string `json:"when"`
	Prompt    *string `json:"prompt"`
	Session   *string `json:"session"`
	DeliverTo *string `json:"deliver_to"`
	Model     *string `json:"model"`
	Enabled   *bool   `json:"enabled"`
	Missed    *string `json:"missed"`
}

// Patch changes the schedule id. A new when, or enabling it, restarts its
// slots from now: slots of the old when, or those that passed while it
// was disabled, are not due.
func (s *Store) Patch(id string, p Patch) (Schedule, error) {
	return s.Update(id, func(sc *Schedule) error {
		was := *sc
		for _, f := range []struct {
			dst *string
			src *string
		}{{&sc.Name, p.Name}, {&sc.When, p.When}, {&sc.Prompt, p.Prompt}, {&sc.Session, p.Session}, {&sc.DeliverTo, p.DeliverTo}, {&sc.Model, p.Model}, {&sc.Missed, p.Missed}} {
			if f.src != nil {
				*f.dst = *f.src
			}
		}
		if p.Enabled != nil {
			sc.Enabled = *p.Enabled
		}
		if err := sc.Normalize(); err != nil {
			return err
		}
		if sc.When != was.When || sc.Enabled && !was.Enabled {
			sc.Since = s.now().UTC()
		}
		return nil
	})
}

// Update runs fn on the schedule id and keeps what it leaves, unless it
// fails.
func (s *Store) Update(id string, fn func(*Schedule) error) (Schedule, error) {
	var out Schedule
	err := s.change(func(f *file) error {
		i := f.index(id)
		if i < 0 {
			return fmt.Errorf("%w: %q", ErrNotFound, id)
		}
		sc := f.Schedules[i]
		sc.Runs = slices.Clone(sc.Runs)
		if err := fn(&sc); err != nil {
			return err
		}
		if n := len(sc.Runs) - KeepRuns; n > 0 {
			sc.Runs = sc.Runs[n:]
		}
		f.Schedules[i], out = sc, sc
		return nil
	})
	return out, err
}

// Delete removes the schedule id and its runs' record (the sessions its
// runs made stay).
func (s *Store) Delete(id string) error {
	return s.change(func(f *file) error {
		i := f.index(id)
		if i < 0 {
			return fmt.Errorf("%w: %q", ErrNotFound, id)
		}
		f.Schedules = slices.Delete(f.Schedules, i, i+1)
		return nil
	})
}

func (f *file) index(id string) int {
	return slices.IndexFunc(f.Schedules, func(sc Schedule) bool { return sc.ID == id })
}

// change reads the file, applies fn and replaces the file, under the
// process's mutex and the profile's schedules.lock.
func (s *Store) change(fn func(*file) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := flock.New(s.lock)
	if err := l.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", s.lock, err)
	}
	defer l.Close()
	f, err := s.read()
	if err != nil {
		return err
	}
	if err := fn(&f); err != nil {
		return err
	}
	data, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(s.path, append(data, '\n'), atomicfile.Options{}); err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	return nil
}

func (s *Store) read() (file, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return file{Schedules: []Schedule{}}, nil
	}
	if err != nil {
		return file{}, fmt.Errorf("read %s: %w", s.path, err)
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return file{}, fmt.Errorf("%w: %s: %v (fix or move it; myco leaves it as it is)", ErrDamaged, s.path, err)
	}
	if f.Schedules == nil {
		f.Schedules = []Schedule{}
	}
	return f, nil
}
