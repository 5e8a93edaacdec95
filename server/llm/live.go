package llm

import (
	"context"
	"sync/atomic"

	"myco/profiles"
)

// LiveRegistry is the model clients of a profile's current settings: it
// builds a new Registry whenever the settings change (a save on the
// Settings page, an edit of settings.json, a stored key), so providers,
// keys and stream_idle_timeout apply to the next call without a restart.
// A call already running keeps the client it started with.
type LiveRegistry struct {
	cur   atomic.Pointer[Registry]
	build func(profiles.Settings) *Registry
}

// NewLiveRegistry builds the registry of ls's settings with build, and
// again after each change of them.
func NewLiveRegistry(ls *profiles.LiveSettings, build func(profiles.Settings) *Registry) *LiveRegistry {
	l := &LiveRegistry{build: build}
	l.cur.Store(build(ls.Current()))
	ls.OnChange(func(s profiles.Settings) { l.cur.Store(build(s)) })
	return l
}

// Current is the registry in force now.
func (l *LiveRegistry) Current() *Registry { return l.cur.Load() }

// Client is Registry.Client of the current settings.
func (l *LiveRegistry) Client(model string) (Client, string, error) { return l.Current().Client(model) }

// Configured is Registry.Configured of the current settings.
func (l *LiveRegistry) Configured() bool { return l.Current().Configured() }

// Help is Registry.Help of the current settings.
func (l *LiveRegistry) Help() string { return l.Current().Help() }

// Providers is Registry.Providers of the current settings.
func (l *LiveRegistry) Providers() []string { return l.Current().Providers() }

// ListModels is Registry.ListModels of the current settings.
func (l *LiveRegistry) ListModels(ctx context.Context, provider string) ([]ServedModel, error) {
	return l.Current().ListModels(ctx, provider)
}

// Stored reports whether provider's key came from the profile, not the
// environment.
func (r *Registry) Stored(provider string) bool { return r.stored[provider] }

// KeyEnv is Registry.KeyEnv of the current settings.
func (l *LiveRegistry) KeyEnv(provider string) string { return l.Current().KeyEnv(provider) }
