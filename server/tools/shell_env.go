package tools

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"myco/internal/redact"
)

// SecretNames, as an entry of EnvFilter.Drop (and of the shell_env_drop
// setting), stands for every variable whose name looks secret by
// redact.SecretName: …_API_KEY, …_TOKEN, …_PASSWORD, AWS_SECRET_ACCESS_KEY.
const SecretNames = "@secrets"

// EnvFilter says which of myco's environment variables the agent's shell
// does not inherit. The shell runs what the model writes; a provider key in
// its environment is one `env` away from the transcript and the provider.
type EnvFilter struct {
	// Drop are variable names, glob patterns (path.Match: AWS_*) or
	// SecretNames.
	Drop []string
	// Keep are names or patterns passed even though Drop matches them:
	// a person's deliberate choice wins over every default.
	Keep []string
}

// DefaultEnvDrop is shell_env_drop when settings do not set it.
func DefaultEnvDrop() []string { return []string{SecretNames} }

// CheckEnvPattern returns why p cannot be an entry of Drop or Keep, or nil.
func CheckEnvPattern(p string) error {
	if p == SecretNames {
		return nil
	}
	if p == "" || strings.ContainsAny(p, "= \t\n") {
		return fmt.Errorf("%q is not a variable name or pattern", p)
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Errorf("%q is not a valid pattern: %w", p, err)
	}
	return nil
}

// Apply returns environ (as os.Environ gives it) without the variables f
// drops, in their order. environ itself is not changed.
func (f EnvFilter) Apply(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if matchEnv(f.Drop, name) && !matchEnv(f.Keep, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Dropped returns the names of environ's variables that f drops, sorted,
// for a log line that says what the shell does not see (never the values).
func (f EnvFilter) Dropped(environ []string) []string {
	var names []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if matchEnv(f.Drop, name) && !matchEnv(f.Keep, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func matchEnv(patterns []string, name string) bool {
	for _, p := range patterns {
		if p == SecretNames {
			if redact.SecretName(name) {
				return true
			}
			continue
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
