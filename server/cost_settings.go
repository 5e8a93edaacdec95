package server

import (
	"myco/profiles"
	"myco/session"
)

// costAt stands in for profiles.Settings.Cost until the models catalogue
// lands: no price is known.
func costAt(_ profiles.Settings, _ string, _ session.Usage) (float64, bool) {
	return 0, false
}
