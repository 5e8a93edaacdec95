package profiles

import (
	"fmt"
	"path"
	"strings"
)

// checkShellEnv checks shell_env_drop and shell_env_keep: each entry a
// variable name or a glob pattern path.Match accepts (or "@secrets" in
// shell_env_drop), so that a typo does not silently pass a key on.
func (s Settings) checkShellEnv() error {
	lists := []struct {
		key  string
		list []string
	}{{"shell_env_drop", s.ShellEnvDrop}, {"shell_env_keep", s.ShellEnvKeep}}
	for _, l := range lists {
		key := l.key
		for i, p := range l.list {
			if key == "shell_env_drop" && p == ShellEnvSecrets {
				continue
			}
			at := fmt.Sprintf("%s[%d]", key, i)
			if p == "" || strings.ContainsAny(p, "= \t\r\n") {
				return &fieldError{path: at, msg: fmt.Sprintf("must be a variable name or a pattern such as AWS_*, not %q", p)}
			}
			if _, err := path.Match(p, ""); err != nil {
				return &fieldError{path: at, msg: fmt.Sprintf("is not a valid pattern: %q", p)}
			}
		}
	}
	return nil
}

func (s Settings) checkNotifyAfter() error {
	if s.NotifyAfter < 0 || s.NotifyAfter > 86400 {
		return &fieldError{path: "notify_after", msg: fmt.Sprintf("must be a number of seconds from 0 (every turn) to 86400, not %d", s.NotifyAfter)}
	}
	return nil
}

func (s Settings) checkStreamIdle() error {
	if s.StreamIdleTimeout < 1 {
		return &fieldError{path: "stream_idle_timeout", msg: fmt.Sprintf("must be a number of seconds, at least 1, not %d", s.StreamIdleTimeout)}
	}
	return nil
}

func (s Settings) checkSubagents() error {
	if d := s.Subagents.MaxDepth; d < 0 || d > 5 {
		return &fieldError{path: "subagents.max_depth", msg: fmt.Sprintf("must be 0 (no sub-agents) to 5, not %d", d)}
	}
	if n := s.Subagents.MaxRunning; n < 1 || n > 16 {
		return &fieldError{path: "subagents.max_running", msg: fmt.Sprintf("must be 1 to 16, not %d", n)}
	}
	return nil
}

func (s Settings) checkCacheTTL() error {
	if s.CacheTTL != CacheTTL5m && s.CacheTTL != CacheTTL1h {
		return &fieldError{path: "cache_ttl", msg: fmt.Sprintf("must be %q or %q, not %q", CacheTTL5m, CacheTTL1h, s.CacheTTL)}
	}
	return nil
}
