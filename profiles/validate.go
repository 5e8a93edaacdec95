package profiles

import (
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// fieldError is a problem with one value of settings.json, named by its path
// in the file so that LoadSettings can find its line and column.
type fieldError struct {
	path string // approvals.bash, models["openai/gpt-4.1"].context_window
	msg  string
	err  error // the decoder's error, when there is one
}

func (e *fieldError) Error() string {
	if e.path == "" {
		return "the file " + e.msg
	}
	return e.path + " " + e.msg
}

func (e *fieldError) Unwrap() error { return e.err }

// Validate returns the first value of s that myco cannot use, naming its key
// as settings.json spells it, or nil.
func (s Settings) Validate() error {
	errs := []error{
		checkModelName("default_model", s.DefaultModel),
		checkModelName("title_model", s.TitleModel),
		checkOptionalModelName("fast_model", s.FastModel),
		s.checkProviders(),
		s.checkModels(),
		checkApproval(keyPath("approvals", "bash"), s.Approvals.Bash),
		checkApproval(keyPath("approvals", "edit"), s.Approvals.Edit),
		checkApproval(keyPath("approvals", "memory"), s.Approvals.Memory),
		s.checkDeniedPaths(),
		s.checkSteering(),
		s.checkShellEnv(),
		s.checkStreamIdle(),
		s.checkNotifyAfter(),
		s.checkCacheTTL(),
		s.checkBudgets(),
		s.checkSubagents(),
		s.checkWebFetch(),
		s.checkMCPServers(),
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// SplitModel splits a model name of the form provider/model-id. The model ID
// may itself hold slashes ("openai/meta-llama/Llama-3.1-8B"), so only the
// first one separates.
func SplitModel(name string) (provider, id string, err error) {
	provider, id, ok := strings.Cut(name, "/")
	if !ok || provider == "" || id == "" || strings.ContainsFunc(name, isBadModelRune) {
		return "", "", fmt.Errorf("model %q is not of the form provider/model-id", name)
	}
	return provider, id, nil
}

func isBadModelRune(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }

func checkModelName(path, name string) error {
	if _, _, err := SplitModel(name); err != nil {
		return &fieldError{path: path, msg: fmt.Sprintf("must be provider/model-id, not %q", name)}
	}
	return nil
}

// checkOptionalModelName allows "", which means unset.
func checkOptionalModelName(path, name string) error {
	if name == "" {
		return nil
	}
	return checkModelName(path, name)
}

func (s Settings) checkProviders() error {
	for _, name := range slices.Sorted(maps.Keys(s.Providers)) {
		path := keyPath("providers", name)
		if name == "" {
			return &fieldError{path: path, msg: "must have a name"}
		}
		if strings.Contains(name, "/") {
			return &fieldError{path: path, msg: "must be named without '/'"}
		}
		if err := checkBaseURL(keyPath(path, "base_url"), s.Providers[name].BaseURL); err != nil {
			return err
		}
	}
	return nil
}

// checkBaseURL allows "", which leaves the provider's client at its own
// default.
func checkBaseURL(path, raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &fieldError{path: path, msg: fmt.Sprintf("must be an http or https URL, not %q", raw)}
	}
	return nil
}

func (s Settings) checkModels() error {
	for _, name := range slices.Sorted(maps.Keys(s.Models)) {
		path := keyPath("models", name)
		if _, _, err := SplitModel(name); err != nil {
			return &fieldError{path: path, msg: "must be named provider/model-id"}
		}
		if err := checkLimits(path, s.Models[name]); err != nil {
			return err
		}
	}
	return nil
}

func checkLimits(path string, m Model) error {
	if err := checkPrice(keyPath(path, "price"), m.Price); err != nil {
		return err
	}
	if m.ContextWindow < 0 {
		return &fieldError{path: keyPath(path, "context_window"), msg: "must not be negative"}
	}
	at := m.AutoCompactAt
	if at == nil {
		return nil
	}
	if *at < 0 {
		return &fieldError{path: keyPath(path, "auto_compact_at"), msg: "must not be negative (0 turns it off)"}
	}
	if m.ContextWindow > 0 && *at > m.ContextWindow {
		msg := fmt.Sprintf("must not be larger than context_window (%d): it would never start", m.ContextWindow)
		return &fieldError{path: keyPath(path, "auto_compact_at"), msg: msg}
	}
	return nil
}

func checkPrice(path string, p *Price) error {
	if p == nil {
		return nil
	}
	fields := []struct {
		key string
		v   float64
	}{
		{"input", p.Input}, {"output", p.Output}, {"cache_read", p.CacheRead},
		{"cache_write", p.CacheWrite}, {"cache_write_1h", p.CacheWrite1h},
	}
	for _, f := range fields {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return &fieldError{path: keyPath(path, f.key), msg: "must be a price in US dollars per million tokens, 0 or more"}
		}
	}
	return nil
}

func checkApproval(path, v string) error {
	if v != ApprovalAsk && v != ApprovalAllow {
		return &fieldError{path: path, msg: fmt.Sprintf("must be %q or %q, not %q", ApprovalAsk, ApprovalAllow, v)}
	}
	return nil
}

func (s Settings) checkDeniedPaths() error {
	for i, p := range s.DeniedPaths {
		if p == "" {
			return &fieldError{path: fmt.Sprintf("denied_paths[%d]", i), msg: "must not be empty"}
		}
	}
	return nil
}

// keyPath names a key inside parent the way a reader of the file would:
// approvals.bash, but models["openai/gpt-4.1"] when the key has other
// characters.
func keyPath(parent, key string) string {
	if key == "" || strings.ContainsFunc(key, isQuotedKeyRune) {
		return parent + "[" + strconv.Quote(key) + "]"
	}
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func isQuotedKeyRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
}
