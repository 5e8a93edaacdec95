package llm

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"myco/profiles"
)

// Provider names with a client of their own. Any other provider named in
// settings is taken to be OpenAI-compatible.
const (
	ProviderAnthropic = "anthropic"
	ProviderOpenAI    = "openai"
)

// defaultAnthropicKeyEnv holds the Anthropic key when settings name no
// variable.
const defaultAnthropicKeyEnv = "ANTHROPIC_API_KEY"

// ProviderConfig is what a client needs to reach its provider.
type ProviderConfig struct {
	Name    string // the provider's name in settings, used in errors
	BaseURL string // OpenAI-compatible: includes /v1; Anthropic: the root
	APIKey  string // empty sends no key
	// StreamIdle fails a stream with no byte (headers included) for
	// this long as a broken one (ErrSilent); 0 means DefaultStreamIdle,
	// negative never.
	StreamIdle time.Duration
}

// Registry holds a client per configured provider, built once from the
// settings: the SDK clients are safe for concurrent use.
type Registry struct {
	clients      map[string]Client
	problems     map[string]problem // providers named in settings that cannot be called
	keyEnv       map[string]string  // the variable holding each provider's key
	settingsPath string
	idle         time.Duration // settings stream_idle_timeout
	// keyDir is the profile folder whose stored keys (profiles.SaveKey)
	// come before the environment; "" reads none.
	keyDir string
	// stored are the providers whose key came from the profile.
	stored map[string]bool
}

// NewRegistry builds the clients of every provider the settings name and
// that is usable: Anthropic needs its key (from the variable its
// api_key_env names, ANTHROPIC_API_KEY by default) and takes its default
// base URL; any other provider needs a base_url, and a key only when it
// is OpenAI itself. getenv reads the environment; nil reads nothing.
func NewRegistry(settings profiles.Settings, getenv func(string) string, images ImageReader) *Registry {
	return NewProfileRegistry(settings, getenv, images, "")
}

// NewProfileRegistry is NewRegistry that takes a provider's key from the
// profile at profileDir when one is stored there (the Settings page keeps
// it so), before the environment.
func NewProfileRegistry(settings profiles.Settings, getenv func(string) string, images ImageReader, profileDir string) *Registry {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	r := &Registry{
		clients: map[string]Client{}, problems: map[string]problem{}, keyEnv: map[string]string{},
		idle: settings.StreamIdle(), keyDir: profileDir, stored: map[string]bool{},
	}
	for name, p := range settings.Providers {
		r.add(name, p, getenv, images)
	}
	return r
}

// WithSettingsPath names the settings file in Help and in errors, so the
// person knows which file to edit. It returns r.
func (r *Registry) WithSettingsPath(path string) *Registry {
	r.settingsPath = path
	return r
}

func (r *Registry) add(name string, p profiles.Provider, getenv func(string) string, images ImageReader) {
	keyEnv := p.APIKeyEnv
	if keyEnv == "" && name == ProviderAnthropic {
		keyEnv = defaultAnthropicKeyEnv
	}
	r.keyEnv[name] = keyEnv
	cfg := ProviderConfig{Name: name, BaseURL: p.BaseURL, StreamIdle: r.idle}
	if keyEnv != "" {
		cfg.APIKey = getenv(keyEnv)
	}
	if key, err := profiles.ReadKey(r.keyDir, name); err != nil || key != "" {
		// A stored key that cannot be read is a problem, not a fallback
		// to the environment: the person chose to store one.
		if err != nil {
			r.problems[name] = problem{missing: err.Error()}
			return
		}
		cfg.APIKey, r.stored[name] = key, true
	}
	if p, bad := check(name, cfg, keyEnv); bad {
		r.problems[name] = p
		return
	}
	if name == ProviderAnthropic {
		r.clients[name] = NewAnthropic(cfg, images)
	} else {
		r.clients[name] = NewOpenAI(cfg, images)
	}
}

// problem is what keeps a provider named in settings from being called.
type problem struct {
	missing string
	inEnv   bool // the fix is an environment variable, not the file
}

// check says what provider name lacks, if anything. OpenAI itself without
// a key is not usable: the default settings name it, and counting it would
// hide the help a new user needs.
func check(name string, cfg ProviderConfig, keyEnv string) (problem, bool) {
	needsKey := name == ProviderAnthropic || isOfficialOpenAI(cfg.BaseURL)
	switch {
	case name != ProviderAnthropic && cfg.BaseURL == "":
		return problem{missing: "it has no base_url"}, true
	case needsKey && keyEnv == "" && cfg.APIKey == "":
		return problem{missing: "it has no api_key_env and no stored key"}, true
	case needsKey && cfg.APIKey == "":
		return problem{missing: keyEnv + " is not set", inEnv: true}, true
	}
	return problem{}, false
}

// Client returns the client for a model named "provider/model-id" and the
// model ID to send it. A provider that is not configured gives an error
// wrapping ErrNoProvider that says how to configure it.
func (r *Registry) Client(model string) (Client, string, error) {
	provider, id, err := profiles.SplitModel(model)
	if err != nil {
		return nil, "", err
	}
	if c, ok := r.clients[provider]; ok {
		return c, id, nil
	}
	return nil, "", fmt.Errorf("model %s: provider %q: %s: %w", model, provider, r.fix(provider), ErrNoProvider)
}

// fix says what is wrong with provider and what to do about it.
func (r *Registry) fix(provider string) string {
	if p, ok := r.problems[provider]; ok {
		return fmt.Sprintf("%s (%s)", p.missing, r.howTo(provider, p))
	}
	return fmt.Sprintf("not in the providers of %s (add %q with a base_url, or pick another model)", r.settingsFile(), provider)
}

func (r *Registry) howTo(provider string, p problem) string {
	if p.inEnv {
		return fmt.Sprintf("store a key on the Settings page (/settings), or set %s in the environment myco starts from and restart myco", r.keyEnv[provider])
	}
	return fmt.Sprintf("set providers.%s on the Settings page (/settings) or in %s", provider, r.settingsFile())
}

// Configured reports whether at least one provider can be called.
func (r *Registry) Configured() bool { return len(r.clients) > 0 }

// Providers returns the names of the providers that can be called, sorted.
func (r *Registry) Providers() []string {
	return slices.Sorted(maps.Keys(r.clients))
}

func (r *Registry) settingsFile() string {
	if r.settingsPath == "" {
		return "the profile's settings.json"
	}
	return r.settingsPath
}

// Help is what the tab shows when no provider is configured: how to set
// one up, and what is missing now.
func (r *Registry) Help() string {
	var b strings.Builder
	fmt.Fprintf(&b, `No model provider is configured, so the agent cannot answer yet. The Settings page (/settings) sets one up without a restart: a provider's base URL, and its key, stored in the profile or read from an environment variable.

Or, to use Anthropic, set your API key in the environment myco starts from, then restart myco:

    export %s=sk-ant-...

To use an OpenAI-compatible server (OpenAI, Ollama, llama.cpp, vLLM), name it in %s and pick one of its models. Its base_url ends in /v1:

    {
      "default_model": "openai/llama3.1:8b",
      "providers": {
        "openai": {"base_url": "http://127.0.0.1:11434/v1", "api_key_env": "OPENAI_API_KEY"}
      }
    }

A key is read from the environment variable that api_key_env names, or from the profile when stored on the Settings page; never from settings.json. A local server needs no key; OpenAI itself (https://api.openai.com/v1) does.
`, r.anthropicKeyEnv(), r.settingsFile())
	if len(r.problems) > 0 {
		b.WriteString("\nWhat myco found:\n")
		for _, name := range slices.Sorted(maps.Keys(r.problems)) {
			fmt.Fprintf(&b, "  - %s: %s\n", name, r.problems[name].missing)
		}
	}
	return b.String()
}

func (r *Registry) anthropicKeyEnv() string {
	if env := r.keyEnv[ProviderAnthropic]; env != "" {
		return env
	}
	return defaultAnthropicKeyEnv
}

// httpClient bounds the wait for response headers, so a server that takes
// the request and never answers fails (retryably) instead of hanging the
// turn. Streams themselves may run as long as they keep sending.
func httpClient() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok { // replaced by a wrapper (tracing): keep it as it is
		return &http.Client{Transport: idleTransport{http.DefaultTransport}}
	}
	t = t.Clone()
	// The stream's watchdog (idle.go) notices a silent server much
	// sooner; this bounds a request made without one.
	t.ResponseHeaderTimeout = 5 * time.Minute
	return &http.Client{Transport: idleTransport{t}}
}
