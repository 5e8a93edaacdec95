package server

import (
	"fmt"
	"strings"

	"myco/server/live"
	"myco/session"
)

// startMode is the document's mode for the mode a new session is asked to
// start in (POST /api/sessions {mode}): plan mode, or build (the default,
// stored as nothing), as PUT …/mode names them.
func startMode(mode string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(mode)) {
	case live.ModePlan:
		return session.ModePlan, nil
	case live.ModeBuild, "":
		return "", nil
	}
	return "", fmt.Errorf("%w: mode %q: want %s or %s", errBadInput, mode, live.ModePlan, live.ModeBuild)
}
