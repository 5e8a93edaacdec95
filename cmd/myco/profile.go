package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"myco/internal/redact"
	"myco/profiles"
	"myco/session"
)

// stores are a profile's folders opened as the session and image stores.
type stores struct {
	profile  *profiles.Profile
	sessions *session.Store
	images   *session.Images
}

// openStores opens an existing profile (serving=false: commands that only
// read or move data never make a profile by mistake) or, for the server,
// creates it. The server's store answers its first listing from the
// listing cache and checks every document in the background
// (session.Options.CheckLater); a command's checks them first.
func openStores(e env, name string, serving bool) (*stores, error) {
	if name == "" {
		name = profiles.DefaultName
	}
	home, err := profiles.Home(e.getenv)
	if err != nil {
		return nil, err
	}
	var p *profiles.Profile
	if serving {
		p, err = profiles.Open(home, name)
	} else {
		p, err = profiles.Lookup(home, name)
	}
	if errors.Is(err, profiles.ErrNotFound) {
		return nil, fmt.Errorf("profile %q does not exist in %s%s", name, home, knownProfiles(home))
	}
	if err != nil {
		return nil, err
	}
	ss, err := session.Open(p.SessionDir(), session.Options{Redactor: redactor(p), CheckLater: serving})
	if err != nil {
		return nil, err
	}
	im, err := session.OpenImages(p.ImagesDir())
	if err != nil {
		return nil, err
	}
	return &stores{profile: p, sessions: ss, images: im}, nil
}

// redactor is the profile's redaction of secrets in what is written: on
// unless its settings turn it off (settings that cannot be read leave it
// on; the server reports them). It knows the values of this process's
// secret-looking environment variables, which the agent's shell inherits.
func redactor(p *profiles.Profile) *redact.Redactor {
	if s, err := profiles.LoadSettings(p.SettingsPath()); err == nil && !s.RedactsSecrets() {
		return nil
	}
	return redact.New(os.Environ())
}

func knownProfiles(home string) string {
	names, err := profiles.List(home)
	if err != nil || len(names) == 0 {
		return ""
	}
	return " (profiles: " + strings.Join(names, ", ") + ")"
}

// openSession opens an existing profile and resolves an ID prefix in it.
func openSession(e env, profile, prefix string) (*stores, string, error) {
	st, err := openStores(e, profile, false)
	if err != nil {
		return nil, "", err
	}
	id, err := st.resolve(e, prefix)
	if err != nil {
		return nil, "", err
	}
	return st, id, nil
}

// resolve turns an ID prefix into an ID; when nothing matches it says which
// other profiles hold a session with that ID.
func (s *stores) resolve(e env, prefix string) (string, error) {
	id, err := s.sessions.Resolve(prefix)
	if !errors.Is(err, session.ErrNotFound) {
		return id, err
	}
	msg := fmt.Sprintf("no session %q in profile %q", prefix, s.profile.Name)
	if others := otherProfilesWith(e, s.profile.Name, prefix); len(others) > 0 {
		msg += fmt.Sprintf("; it exists in profile %s (use --profile)", strings.Join(others, ", "))
	}
	return "", fmt.Errorf("%s: %w", msg, session.ErrNotFound)
}

// otherProfilesWith lists the profiles other than current that hold a
// session matching prefix, looking without creating or changing anything.
func otherProfilesWith(e env, current, prefix string) []string {
	home, err := profiles.Home(e.getenv)
	if err != nil {
		return nil
	}
	names, err := profiles.List(home)
	if err != nil {
		return nil
	}
	var found []string
	for _, name := range names {
		if name == current {
			continue
		}
		p, err := profiles.Lookup(home, name)
		if err != nil {
			continue
		}
		if session.Exists(p.SessionDir(), prefix) {
			found = append(found, fmt.Sprintf("%q", name))
		}
	}
	return found
}
