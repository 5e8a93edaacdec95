package profiles

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Reasoning effort levels, from none to the most a provider offers. A
// session may also say ThinkDefault: follow the settings' think.
const (
	ThinkOff     = "off"
	ThinkLow     = "low"
	ThinkMedium  = "medium"
	ThinkHigh    = "high"
	ThinkXHigh   = "xhigh"
	ThinkMax     = "max"
	ThinkDefault = "default"
)

// ThinkLevels are the levels settings and sessions may name, weakest
// first.
var ThinkLevels = []string{ThinkOff, ThinkLow, ThinkMedium, ThinkHigh, ThinkXHigh, ThinkMax}

// reasoningFamilies are model ID prefixes of OpenAI's reasoning models.
var reasoningFamilies = []string{"o1", "o3", "o4", "gpt-5"}

// ModelThinks reports whether model ("provider/model-id") reasons on
// request. models.<name>.thinking decides when set; otherwise Claude
// models do (extended thinking), OpenAI's o-series and gpt-5 do
// (reasoning_effort), and any other model of an OpenAI-compatible server
// is taken not to, since most local servers reject reasoning_effort for
// models without it: set thinking to true for one that has it.
func (s Settings) ModelThinks(model string) bool {
	if m, ok := s.Models[model]; ok && m.Thinking != nil {
		return *m.Thinking
	}
	provider, id, err := SplitModel(model)
	if err != nil {
		return false
	}
	if provider == "anthropic" {
		return strings.HasPrefix(id, "claude-") && !strings.HasPrefix(id, "claude-3-5") && !strings.HasPrefix(id, "claude-3-haiku") && !strings.HasPrefix(id, "claude-3-opus")
	}
	for _, f := range reasoningFamilies {
		if strings.HasPrefix(id, f) {
			return true
		}
	}
	return false
}

// CacheBreakpoints is models.<name>.cache_breakpoints for model
// ("provider/model-id"): nil when unset, so the model client decides.
func (s Settings) CacheBreakpoints(model string) *bool {
	if m, ok := s.Models[model]; ok {
		return m.CacheBreakpoints
	}
	return nil
}

// PersonalityNames are the names of the settings' personalities, sorted.
func (s Settings) PersonalityNames() []string {
	names := make([]string, 0, len(s.Personalities))
	for name := range s.Personalities {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// checkSteering checks think and personalities: a level myco knows, and
// personas with a one-word name ("off" is the command that turns one off)
// and instructions.
func (s Settings) checkSteering() error {
	if !slices.Contains(ThinkLevels, s.Think) {
		return &fieldError{path: "think", msg: fmt.Sprintf("must be one of %s", strings.Join(ThinkLevels, ", "))}
	}
	for _, name := range s.PersonalityNames() {
		path := keyPath("personalities", name)
		switch {
		case name == "" || strings.ContainsFunc(name, unicode.IsSpace):
			return &fieldError{path: path, msg: "must be named with one word"}
		case name == "off" || name == ThinkDefault:
			return &fieldError{path: path, msg: fmt.Sprintf("must not be named %q, which /personality takes as a command", name)}
		case strings.TrimSpace(s.Personalities[name]) == "":
			return &fieldError{path: path, msg: "must say how to answer"}
		}
	}
	return nil
}
