package profiles

import (
	"sync"
	"sync/atomic"
)

// LiveSettings holds a profile's current settings for a running server,
// so that an edit (the Settings page, or the file changed by hand) reaches
// the next reader without a restart. Readers call Current at the moment
// they need a value and keep no copy beyond that use; it is safe for
// concurrent use.
//
// The Settings a LiveSettings hands out are shared between readers: their
// maps and slices must not be changed. Replace with a new value instead.
type LiveSettings struct {
	cur atomic.Pointer[liveState]

	// path and getenv are where Reload reads from; "" reads nothing.
	path   string
	getenv func(string) string

	mu       sync.Mutex // serialises writers, so listeners see changes in order
	changed  []func(Settings)
	reloaded []func()
}

// liveState is what one load found: the settings in force, and what is
// wrong with the file (then Settings are the last good ones).
type liveState struct {
	settings Settings
	err      error
	warnings []SettingsWarning
}

// NewLiveSettings returns a holder whose current settings are s. It takes
// s's maps and slices: the caller must not change them afterwards.
func NewLiveSettings(s Settings) *LiveSettings {
	l := &LiveSettings{}
	l.cur.Store(&liveState{settings: s})
	return l
}

// LoadLiveSettings loads the settings file at path, with the environment's
// overrides (ApplyEnv), into a new holder whose Reload reads it again. A
// file that cannot be used is an error here, as LoadSettings says: there
// are no last good settings to keep yet.
func LoadLiveSettings(path string, getenv func(string) string) (*LiveSettings, error) {
	s, warnings, err := loadWithEnv(path, getenv)
	if err != nil {
		return nil, err
	}
	l := &LiveSettings{path: path, getenv: getenv}
	l.cur.Store(&liveState{settings: s, warnings: warnings})
	return l, nil
}

func loadWithEnv(path string, getenv func(string) string) (Settings, []SettingsWarning, error) {
	s, warnings, err := LoadSettingsWarnings(path)
	if err != nil {
		return Settings{}, nil, err
	}
	s = s.ApplyEnv(getenv)
	if err := s.Validate(); err != nil {
		return Settings{}, nil, &SettingsError{Path: "the environment (MYCO_MODEL, ANTHROPIC_BASE_URL, OPENAI_BASE_URL)", Err: err}
	}
	return s, warnings, nil
}

// Current returns the settings in force now.
func (l *LiveSettings) Current() Settings { return l.cur.Load().settings }

// Problems returns the warnings of the file in force and why the file was
// last refused (nil when it was not; when it was, the settings in force
// are the last good ones).
func (l *LiveSettings) Problems() ([]SettingsWarning, error) {
	st := l.cur.Load()
	return st.warnings, st.err
}

// Path is the settings file Reload reads; "" for a holder made from a value.
func (l *LiveSettings) Path() string { return l.path }

// Replace makes s the current settings. Like NewLiveSettings it takes s's
// maps and slices. It does not validate s: the caller loaded or checked it.
func (l *LiveSettings) Replace(s Settings) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.store(&liveState{settings: s})
}

// Reload reads the file again. Good settings replace the current ones and
// tell every OnChange listener; a file that cannot be used keeps the last
// good settings, is remembered for Problems and returned.
func (l *LiveSettings) Reload() error {
	if l.path == "" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	defer l.tellReloaded()
	s, warnings, err := loadWithEnv(l.path, l.getenv)
	if err != nil {
		prev := l.cur.Load()
		l.cur.Store(&liveState{settings: prev.settings, err: err, warnings: prev.warnings})
		return err
	}
	l.store(&liveState{settings: s, warnings: warnings})
	return nil
}

// OnReload calls f after every Reload, whether the file was good or not:
// for what shows Problems (the pages' banner). f runs with the holder's
// writers held off: it must not Reload or Replace.
func (l *LiveSettings) OnReload(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reloaded = append(l.reloaded, f)
}

func (l *LiveSettings) tellReloaded() {
	for _, f := range l.reloaded {
		f()
	}
}

// store makes st current and tells the listeners; l.mu is held.
func (l *LiveSettings) store(st *liveState) {
	l.cur.Store(st)
	for _, f := range l.changed {
		f(st.settings)
	}
}

// OnChange calls f with the new settings after every Replace and every
// Reload that found good settings, one call at a time: for what is built
// from settings once (the model clients).
func (l *LiveSettings) OnChange(f func(Settings)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.changed = append(l.changed, f)
}
