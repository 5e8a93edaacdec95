package profiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"time"

	"myco/internal/atomicfile"
)

// Approval values for Approvals.Bash and Approvals.Edit.
const (
	ApprovalAsk   = "ask"
	ApprovalAllow = "allow"
)

// defaultCompactPercent leaves a fifth of the window for the summary, the
// carried turns and the answer when auto_compact_at is not set.
const defaultCompactPercent = 80

// Settings is a profile's settings.json. Every key of the file is optional;
// LoadSettings fills the missing ones from DefaultSettings.
type Settings struct {
	DefaultModel string `json:"default_model"`
	TitleModel   string `json:"title_model"`
	// FastModel is a cheap model for the side jobs: it titles sessions
	// and writes compaction summaries when set. Without it titles use
	// title_model when its provider can be called, else the session's
	// own model, and summaries the session's own model.
	FastModel     string              `json:"fast_model"`
	Providers     map[string]Provider `json:"providers"`
	Models        map[string]Model    `json:"models"`
	Approvals     Approvals           `json:"approvals"`
	DeniedPaths   []string            `json:"denied_paths"`
	RedactSecrets *bool               `json:"redact_secrets"`
	// Notifications lets a session's tab notify the person (once they
	// allowed it in the browser) when an approval waits or a long turn
	// ends while the tab is hidden. A pointer, as RedactSecrets: unset is on.
	Notifications *bool `json:"notifications"`
	// NotifyAfter is how many seconds a turn must have run for its end
	// to notify a hidden tab (0: every turn); approvals always notify.
	NotifyAfter int `json:"notify_after"`
	// Think is the reasoning effort of a session that chose none (off,
	// low, medium, high, xhigh, max); see ThinkLevels.
	Think string `json:"think"`
	// Personalities are personas by name: instructions that join the
	// system prompt of a session that picks one with /personality.
	Personalities map[string]string `json:"personalities"`
	// Todo offers the agent todo_write, a checklist for a task of
	// several steps shown in the side panel; off unless set.
	Todo bool `json:"todo"`
	// Undo snapshots each session's folder around every turn, for /undo,
	// /redo and /diff. A pointer, as RedactSecrets: unset is on.
	Undo *bool `json:"undo"`
	// ShellEnvDrop are the variables the agent's shell (bash, a person's
	// !command) does not inherit from myco: names, glob patterns (AWS_*)
	// or ShellEnvSecrets. The providers' api_key_env variables are
	// dropped as well, always. ShellEnvKeep passes one on purpose.
	ShellEnvDrop []string `json:"shell_env_drop"`
	ShellEnvKeep []string `json:"shell_env_keep"`
	// StreamIdleTimeout is how many seconds a model's answer may go
	// without a byte (headers included) before myco counts the stream
	// as broken, retries it and then fails the turn.
	StreamIdleTimeout int `json:"stream_idle_timeout"`
	// CacheTTL is how long Anthropic keeps a session's prompt cache:
	// CacheTTL1h or CacheTTL5m (see the README for when each pays).
	CacheTTL string `json:"cache_ttl"`
	// MaxModelCalls bounds the model calls of one turn: the turn stops,
	// saying why, when it would make one more (budget.go).
	MaxModelCalls int `json:"max_model_calls_per_turn"`
	// Budgets bound the tokens and dollars of model calls per session
	// and per day (budget.go).
	Budgets Budgets `json:"budgets"`
	// Subagents bound the agent's task tool (sub-agents).
	Subagents Subagents `json:"subagents"`
	// WebFetch is the web_fetch tool's: the hosts it fetches without
	// asking (webfetch.go).
	WebFetch WebFetch `json:"web_fetch"`
	// MCPServers are the MCP servers whose tools the agent may use, by
	// name (settings_mcp.go).
	MCPServers map[string]MCPServer `json:"mcp_servers,omitempty"`
}

// Subagents are the limits of sub-agents: how deep they may nest (a
// sub-agent of a sub-agent is depth 2), and how many of one session's
// run at once.
type Subagents struct {
	MaxDepth   int `json:"max_depth"`
	MaxRunning int `json:"max_running"`
}

// Prompt cache lifetimes for cache_ttl.
const (
	CacheTTL5m = "5m"
	CacheTTL1h = "1h"
)

// ShellEnvSecrets, as an entry of shell_env_drop, stands for every variable
// whose name looks secret (…_API_KEY, …_TOKEN, …_PASSWORD): see
// internal/redact.SecretName. server/tools.SecretNames is the same word.
const ShellEnvSecrets = "@secrets"

// DefaultNotifyAfter is notify_after's default, in seconds: a shorter
// turn ends while the person still waits for it.
const DefaultNotifyAfter = 10

// defaultStreamIdleSeconds is long enough for a model that thinks before
// its first token behind a slow proxy, short enough that a person does not
// give up on the tab first.
const defaultStreamIdleSeconds = 120

// Provider says where a model provider is and which environment variable
// holds its key; the key itself never lives in the file.
type Provider struct {
	BaseURL   string `json:"base_url"`
	APIKeyEnv string `json:"api_key_env"`
}

// Model holds the limits of one provider/model-id.
type Model struct {
	ContextWindow int `json:"context_window"`
	// AutoCompactAt is a pointer because 0 turns automatic compaction off
	// while nil means the default (see CompactAt).
	AutoCompactAt *int `json:"auto_compact_at,omitempty"`
	// Thinking says whether the model reasons on request (extended
	// thinking, reasoning_effort); nil guesses from the provider and the
	// model's family (see ModelThinks).
	Thinking *bool `json:"thinking,omitempty"`
	// CacheBreakpoints forces OpenAI's explicit prompt cache breakpoints
	// on or off for the model; nil sends them where the provider documents
	// them (api.openai.com's GPT-5.6 and later) and keeps implicit caching
	// elsewhere. See CacheBreakpoints.
	CacheBreakpoints *bool `json:"cache_breakpoints,omitempty"`
	// Price overrides the catalogue's price of the model (see
	// Settings.Price), or gives one it lacks.
	Price *Price `json:"price,omitempty"`
}

// Approvals says, per kind of tool, whether the agent asks first ("ask") or
// goes ahead ("allow").
type Approvals struct {
	Bash string `json:"bash"`
	Edit string `json:"edit"`
	// Memory is the remember tool's: adding a fact to the project's
	// .myco/memory.md, which later sessions load.
	Memory string `json:"memory"`
}

// DefaultSettings returns the settings of a profile with no settings.json.
// Each call returns fresh maps and slices, so callers may change them.
func DefaultSettings() Settings {
	redact, notify := true, true
	return Settings{
		DefaultModel: "anthropic/claude-sonnet-4-5",
		TitleModel:   "anthropic/claude-haiku-4-5",
		Providers: map[string]Provider{
			"anthropic": {BaseURL: "https://api.anthropic.com", APIKeyEnv: "ANTHROPIC_API_KEY"},
			"openai":    {BaseURL: "https://api.openai.com/v1", APIKeyEnv: "OPENAI_API_KEY"},
		},
		Models: map[string]Model{
			"anthropic/claude-sonnet-4-5": {ContextWindow: 200000},
			"anthropic/claude-haiku-4-5":  {ContextWindow: 200000},
		},
		Approvals:     Approvals{Bash: ApprovalAsk, Edit: ApprovalAsk, Memory: ApprovalAsk},
		DeniedPaths:   []string{"~/.ssh", "~/.aws", "~/.gnupg"},
		RedactSecrets: &redact,
		Notifications: &notify,
		Think:         ThinkOff,
		Personalities: map[string]string{},
		ShellEnvDrop:  []string{ShellEnvSecrets},
		ShellEnvKeep:  []string{},

		StreamIdleTimeout: defaultStreamIdleSeconds,
		NotifyAfter:       DefaultNotifyAfter,
		// A person in a tab often reads, tries and thinks for more than
		// five minutes between turns: an hour-long entry costs 2x the
		// input price to write (5 minutes: 1.25x) and saves rewriting the
		// whole context after each such pause (README: prompt cache).
		CacheTTL:  CacheTTL1h,
		Subagents: Subagents{MaxDepth: 2, MaxRunning: 4},

		MaxModelCalls: DefaultMaxModelCalls,
		Budgets:       Budgets{DayCostUSD: DefaultDayCostUSD},
	}
}

// ShellEnvDropped returns what the agent's shell does not inherit: the
// entries of shell_env_drop and every provider's api_key_env, which myco
// itself needs and the shell never does.
func (s Settings) ShellEnvDropped() []string {
	drop := slices.Clone(s.ShellEnvDrop)
	for _, name := range slices.Sorted(maps.Keys(s.Providers)) {
		if env := s.Providers[name].APIKeyEnv; env != "" && !slices.Contains(drop, env) {
			drop = append(drop, env)
		}
	}
	return drop
}

// StreamIdle is stream_idle_timeout as a duration.
func (s Settings) StreamIdle() time.Duration {
	return time.Duration(s.StreamIdleTimeout) * time.Second
}

// CompactAt returns the context size in tokens at which automatic compaction
// starts, or 0 when it is off. Without auto_compact_at it is 80% of the
// context window, and off when the window is unknown.
func (m Model) CompactAt() int {
	if m.AutoCompactAt != nil {
		return *m.AutoCompactAt
	}
	return m.ContextWindow * defaultCompactPercent / 100
}

// RedactsSecrets reports whether secrets are redacted; unset means yes.
func (s Settings) RedactsSecrets() bool {
	return s.RedactSecrets == nil || *s.RedactSecrets
}

// Undoes reports whether turns are snapshotted for /undo (unset: yes).
func (s Settings) Undoes() bool { return s.Undo == nil || *s.Undo }

// Notifies reports whether session tabs may notify the person; unset
// means yes.
func (s Settings) Notifies() bool {
	return s.Notifications == nil || *s.Notifications
}

// LoadSettings reads the settings file at path, merged over DefaultSettings.
// An absent file gives the defaults. A file that cannot be used gives a
// *SettingsError naming the line and column; the file is left as it is.
// What LoadSettingsWarnings warns of is not an error here.
func LoadSettings(path string) (Settings, error) {
	s, _, err := LoadSettingsWarnings(path)
	return s, err
}

// LoadSettingsWarnings is LoadSettings that also says, with its line and
// column, each key the file sets that myco ignores (unknown: a typo, or a
// key of a newer myco) or reads under another spelling. A key set twice in
// one object is an error, not a warning: which one counts is unclear.
func LoadSettingsWarnings(path string) (Settings, []SettingsWarning, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultSettings(), nil, nil
	}
	if err != nil {
		return Settings{}, nil, fmt.Errorf("read settings: %w", err)
	}
	// Some editors on Windows start UTF-8 files with a byte order mark,
	// which encoding/json refuses.
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	s, notes, err := parseSettings(data)
	if err != nil {
		return Settings{}, nil, newSettingsError(path, data, err)
	}
	return s, newSettingsWarnings(path, data, notes), nil
}

// parseSettings treats a blank file like an absent one: a user who created
// an empty settings.json asked for nothing.
func parseSettings(data []byte) (Settings, []keyNote, error) {
	var f fileSettings
	var notes []keyNote
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &f); err != nil {
			return Settings{}, nil, err
		}
		var err error
		if notes, err = checkKeys(data); err != nil {
			return Settings{}, nil, err
		}
	}
	s := f.over(DefaultSettings())
	return s, notes, s.Validate()
}

// ApplyEnv returns s with the environment's overrides for one run: MYCO_MODEL
// replaces default_model, ANTHROPIC_BASE_URL and OPENAI_BASE_URL replace the
// providers' base_url. s itself is not changed. Call Validate on the result
// to check the values that came from the environment.
func (s Settings) ApplyEnv(getenv func(string) string) Settings {
	if model := getenv("MYCO_MODEL"); model != "" {
		s.DefaultModel = model
	}
	// The map is shared with the caller's copy of s.
	s.Providers = maps.Clone(s.Providers)
	s.setBaseURL("anthropic", getenv("ANTHROPIC_BASE_URL"))
	s.setBaseURL("openai", getenv("OPENAI_BASE_URL"))
	return s
}

func (s *Settings) setBaseURL(provider, url string) {
	if url == "" {
		return
	}
	if s.Providers == nil {
		s.Providers = map[string]Provider{}
	}
	p, ok := s.Providers[provider]
	if !ok {
		p = DefaultSettings().Providers[provider]
	}
	p.BaseURL = url
	s.Providers[provider] = p
}

// SaveSettings writes s to path atomically with mode 0600. It writes every
// field, so defaults in s become explicit in the file. It refuses invalid
// settings, and refuses to replace a file that LoadSettings rejects: that
// file holds the user's edits and is theirs to fix.
func SaveSettings(path string, s Settings) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("save settings %s: %w", path, err)
	}
	var se *SettingsError
	if _, err := LoadSettings(path); errors.As(err, &se) {
		return fmt.Errorf("save settings: not replacing a file with errors: %w", err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	if err := atomicfile.Write(path, append(data, '\n'), atomicfile.Options{Perm: fileMode}); err != nil {
		return fmt.Errorf("save settings %s: %w", path, err)
	}
	return nil
}
