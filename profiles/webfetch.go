package profiles

import (
	"fmt"
	"strings"
)

// WebFetch is the settings of the agent's web_fetch tool.
type WebFetch struct {
	// AllowedHosts are fetched without asking: a host name
	// ("docs.python.org"), or "*." and a domain for every host under it
	// ("*.github.com": api.github.com, not github.com itself). Any other
	// host is asked for before its first fetch in a session.
	AllowedHosts []string `json:"allowed_hosts"`
}

// Allows reports whether host is fetched without asking.
func (w WebFetch) Allows(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return false
	}
	for _, p := range w.AllowedHosts {
		p = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(p)), ".")
		if domain, ok := strings.CutPrefix(p, "*."); ok {
			if strings.HasSuffix(host, "."+domain) {
				return true
			}
		} else if p == host {
			return true
		}
	}
	return false
}

// checkWebFetch refuses an allowed_hosts entry that names no host: a URL,
// a port, a path or a bare "*" (a person who wants every host asked for
// nothing does not need web_fetch to ask; one who wrote a URL meant its
// host, and is told so).
func (s Settings) checkWebFetch() error {
	for i, p := range s.WebFetch.AllowedHosts {
		at := fmt.Sprintf("web_fetch.allowed_hosts[%d]", i)
		name := strings.TrimPrefix(strings.TrimSpace(p), "*.")
		if name == "" || strings.ContainsAny(name, "/:@*? \t") || strings.HasPrefix(name, ".") || !strings.Contains(strings.TrimSuffix(name, "."), ".") {
			return &fieldError{path: at, msg: fmt.Sprintf(`must be a host name such as "docs.python.org" or "*.github.com", not %q`, p)}
		}
	}
	return nil
}
