package profiles

import "sync/atomic"

// LiveSettings holds a profile's current settings for a running server,
// so that an edit (the Settings page, or the file changed by hand) reaches
// the next reader without a restart. Readers call Current at the moment
// they need a value and keep no copy beyond that use; it is safe for
// concurrent use.
//
// The Settings a LiveSettings hands out are shared between readers: their
// maps and slices must not be changed. Replace with a new value instead.
type LiveSettings struct {
	cur atomic.Pointer[Settings]
}

// NewLiveSettings returns a holder whose current settings are s. It takes
// s's maps and slices: the caller must not change them afterwards.
func NewLiveSettings(s Settings) *LiveSettings {
	l := &LiveSettings{}
	l.cur.Store(&s)
	return l
}

// Current returns the settings in force now.
func (l *LiveSettings) Current() Settings { return *l.cur.Load() }

// Replace makes s the current settings. Like NewLiveSettings it takes s's
// maps and slices. It does not validate s: the caller loaded or checked it.
func (l *LiveSettings) Replace(s Settings) { l.cur.Store(&s) }
