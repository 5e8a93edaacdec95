package profiles_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/profiles"
)

func TestDefaultSettings(t *testing.T) {
	yes := true
	want := profiles.Settings{
		DefaultModel: "anthropic/claude-sonnet-4-5",
		TitleModel:   "anthropic/claude-haiku-4-5",
		Providers: map[string]profiles.Provider{
			"anthropic": {BaseURL: "https://api.anthropic.com", APIKeyEnv: "ANTHROPIC_API_KEY"},
			"openai":    {BaseURL: "https://api.openai.com/v1", APIKeyEnv: "OPENAI_API_KEY"},
		},
		Models: map[string]profiles.Model{
			"anthropic/claude-sonnet-4-5": {ContextWindow: 200000},
			"anthropic/claude-haiku-4-5":  {ContextWindow: 200000},
		},
		Approvals:     profiles.Approvals{Bash: "ask", Edit: "ask", Memory: "ask"},
		DeniedPaths:   []string{"~/.ssh", "~/.aws", "~/.gnupg"},
		RedactSecrets: &yes,
		Notifications: &yes,
		Think:         "off",
		Personalities: map[string]string{},
		ShellEnvDrop:  []string{"@secrets"},
		ShellEnvKeep:  []string{},

		StreamIdleTimeout: 120,
		NotifyAfter:       10,
		CacheTTL:          "1h",
		MaxModelCalls:     50,
		Budgets:           profiles.Budgets{DayCostUSD: 50},
		Subagents:         profiles.Subagents{MaxDepth: 2, MaxRunning: 4},
	}
	got := profiles.DefaultSettings()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DefaultSettings() mismatch (-want +got):\n%s", diff)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("DefaultSettings().Validate() = %v", err)
	}
	got.Providers["openai"] = profiles.Provider{}
	got.DeniedPaths[0] = "changed"
	if diff := cmp.Diff(want, profiles.DefaultSettings()); diff != "" {
		t.Errorf("changing one result changed the next (-want +got):\n%s", diff)
	}
}

func TestLoadSettings(t *testing.T) {
	tests := []struct {
		name string
		file string
		want func(s *profiles.Settings)
	}{
		{name: "absent file gives defaults", file: "absent.json", want: func(*profiles.Settings) {}},
		{name: "blank file gives defaults", file: "blank.json", want: func(*profiles.Settings) {}},
		{
			name: "byte order mark is skipped",
			file: "bom.json",
			want: func(s *profiles.Settings) { s.Approvals.Edit = "allow" },
		},
		{
			name: "file merged over defaults",
			file: "merge.json",
			want: func(s *profiles.Settings) {
				no := false
				s.DefaultModel = "openai/llama3.1:8b"
				s.FastModel = "openai/qwen3:1.7b"
				s.Providers["openai"] = profiles.Provider{BaseURL: "http://127.0.0.1:11434/v1", APIKeyEnv: ""}
				s.Providers["anthropic"] = profiles.Provider{BaseURL: "https://api.anthropic.com", APIKeyEnv: "MY_ANTHROPIC_KEY"}
				s.Models["anthropic/claude-sonnet-4-5"] = profiles.Model{ContextWindow: 200000, AutoCompactAt: ptr(0)}
				s.Models["openai/llama3.1:8b"] = profiles.Model{ContextWindow: 131072, AutoCompactAt: ptr(100000)}
				s.Approvals.Bash = "allow"
				s.DeniedPaths = []string{"~/.ssh", "~/secrets"}
				s.RedactSecrets = &no
				s.Notifications = &no
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := profiles.DefaultSettings()
			tt.want(&want)
			got, err := profiles.LoadSettings(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("LoadSettings() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// badSettings are the hand-written files in testdata that LoadSettings must
// refuse, with the place and the message it must report.
var badSettings = []struct {
	file string
	line int
	col  int
	msg  string
}{
	{"trailing_comma.json", 3, 31, "invalid character '}' looking for beginning of object key string"},
	{"truncated.json", 2, 49, "unexpected end of JSON input"},
	{"unicode_column.json", 2, 33, "invalid character ']' looking for beginning of value"},
	{"bash_not_string.json", 3, 13, "approvals.bash must be a string"},
	{"approvals_not_object.json", 2, 16, "approvals must be an object"},
	{"context_window_string.json", 3, 42, `models["openai/gpt-4.1"].context_window must be a whole number`},
	{"denied_paths_not_array.json", 2, 19, "denied_paths must be an array"},
	{"denied_path_number.json", 4, 5, "denied_paths[1] must be a string"},
	{"top_level_array.json", 1, 1, "the file must be an object"},
	{"approval_always.json", 4, 13, `approvals.edit must be "ask" or "allow", not "always"`},
	{"default_model_no_provider.json", 2, 20, `default_model must be provider/model-id, not "claude-sonnet-4-5"`},
	{"fast_model_no_provider.json", 2, 17, `fast_model must be provider/model-id, not "qwen3:8b"`},
	{"model_key_no_provider.json", 4, 16, `models["gpt-4.1"] must be named provider/model-id`},
	{"base_url_no_scheme.json", 3, 28, `providers.openai.base_url must be an http or https URL, not "localhost:11434/v1"`},
	{
		"compact_past_window.json", 3, 55,
		`models["anthropic/claude-haiku-4-5"].auto_compact_at must not be larger than context_window (200000): it would never start`,
	},
	{"shell_env_keep_assignment.json", 3, 22, `shell_env_keep[0] must be a variable name or a pattern such as AWS_*, not "GITHUB_TOKEN=1"`},
	{"shell_env_drop_bad_pattern.json", 2, 22, `shell_env_drop[0] is not a valid pattern: "[A-"`},
	{"price_negative.json", 3, 43, `models["openai/gpt-4.1"].price.input must be a price in US dollars per million tokens, 0 or more`},
	{"stream_idle_zero.json", 2, 26, "stream_idle_timeout must be a number of seconds, at least 1, not 0"},
	{"cache_ttl_bad.json", 2, 16, `cache_ttl must be "5m" or "1h", not "2h"`},
	// A key set twice in one object: the second one, named as the decoder
	// matches it, at any depth.
	{"duplicate_key.json", 4, 3, "default_model is set twice (first on line 2): keep one, since which one counts is unclear"},
	{"duplicate_key_case.json", 3, 3, "approvals is set twice (first on line 2): keep one, since which one counts is unclear"},
	{"duplicate_nested_key.json", 5, 7, "providers.openai.base_url is set twice (first on line 4): keep one, since which one counts is unclear"},
	{"duplicate_model.json", 5, 5, `models["openai/gpt-4.1"] is set twice (first on line 3): keep one, since which one counts is unclear`},
	{"duplicate_model_option.json", 3, 78, `models["openai/gpt-4.1"].context_window is set twice (first on line 3): keep one, since which one counts is unclear`},
	{"duplicate_personality.json", 4, 5, "personalities.terse is set twice (first on line 3): keep one, since which one counts is unclear"},
}

func TestLoadSettingsRefusesBadFiles(t *testing.T) {
	type report struct {
		Line, Column int
		Error        string
	}
	for _, tt := range badSettings {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			_, err := profiles.LoadSettings(path)
			var se *profiles.SettingsError
			if !errors.As(err, &se) {
				t.Fatalf("LoadSettings() error = %v, want a *SettingsError", err)
			}
			want := report{tt.line, tt.col, "settings " + path + ":" + itoa(tt.line) + ":" + itoa(tt.col) + ": " + tt.msg}
			got := report{se.Line, se.Column, err.Error()}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("LoadSettings() error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBadSettingsFileIsNeverReplaced(t *testing.T) {
	for _, tt := range badSettings {
		t.Run(tt.file, func(t *testing.T) {
			original, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "settings.json")
			if err := os.WriteFile(path, original, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := profiles.LoadSettings(path); err == nil {
				t.Fatal("LoadSettings() succeeded, want an error")
			}
			if err := profiles.SaveSettings(path, profiles.DefaultSettings()); err == nil {
				t.Error("SaveSettings() over a bad file succeeded, want an error")
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(original, got); diff != "" {
				t.Errorf("file changed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"settings.json"}, entries(t, dir)); diff != "" {
				t.Errorf("folder changed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSaveSettings(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	first := profiles.DefaultSettings()
	second := profiles.DefaultSettings()
	second.DefaultModel = "openai/gpt-4.1"
	second.Models["openai/gpt-4.1"] = profiles.Model{ContextWindow: 1000000, AutoCompactAt: ptr(0)}
	second.Approvals.Edit = "allow"
	second.DeniedPaths = []string{}
	for _, want := range []profiles.Settings{first, second} {
		if err := profiles.SaveSettings(path, want); err != nil {
			t.Fatal(err)
		}
		got, err := profiles.LoadSettings(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("LoadSettings() after SaveSettings() mismatch (-want +got):\n%s", diff)
		}
	}
	if got := modeOf(t, path); got != 0o600 {
		t.Errorf("settings mode = %v, want %v", got, os.FileMode(0o600))
	}
	if diff := cmp.Diff([]string{"settings.json"}, entries(t, dir)); diff != "" {
		t.Errorf("temp files left behind (-want +got):\n%s", diff)
	}
}

func TestSaveSettingsRefusesInvalidSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	s := profiles.DefaultSettings()
	s.Approvals.Bash = "yes"
	err := profiles.SaveSettings(path, s)
	want := "save settings " + path + `: approvals.bash must be "ask" or "allow", not "yes"`
	if err == nil || err.Error() != want {
		t.Errorf("SaveSettings() error = %v, want %s", err, want)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("SaveSettings() wrote a file: stat error = %v", err)
	}
}

func TestApplyEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want func(s *profiles.Settings)
	}{
		{name: "no overrides", env: map[string]string{}, want: func(*profiles.Settings) {}},
		{
			name: "MYCO_MODEL",
			env:  map[string]string{"MYCO_MODEL": "openai/gpt-4.1"},
			want: func(s *profiles.Settings) { s.DefaultModel = "openai/gpt-4.1" },
		},
		{
			name: "base URLs",
			env: map[string]string{
				"ANTHROPIC_BASE_URL": "http://127.0.0.1:9001",
				"OPENAI_BASE_URL":    "http://127.0.0.1:11434/v1",
			},
			want: func(s *profiles.Settings) {
				s.Providers["anthropic"] = profiles.Provider{BaseURL: "http://127.0.0.1:9001", APIKeyEnv: "ANTHROPIC_API_KEY"}
				s.Providers["openai"] = profiles.Provider{BaseURL: "http://127.0.0.1:11434/v1", APIKeyEnv: "OPENAI_API_KEY"}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := profiles.DefaultSettings()
			want := profiles.DefaultSettings()
			tt.want(&want)
			got := base.ApplyEnv(func(k string) string { return tt.env[k] })
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ApplyEnv() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(profiles.DefaultSettings(), base); diff != "" {
				t.Errorf("ApplyEnv() changed its receiver (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyEnvAddsMissingProvider(t *testing.T) {
	got := profiles.Settings{}.ApplyEnv(func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": "http://h/v1"}[k]
	})
	want := map[string]profiles.Provider{"openai": {BaseURL: "http://h/v1", APIKeyEnv: "OPENAI_API_KEY"}}
	if diff := cmp.Diff(want, got.Providers); diff != "" {
		t.Errorf("ApplyEnv() providers mismatch (-want +got):\n%s", diff)
	}
}

func TestValidateReportsEnvOverride(t *testing.T) {
	s := profiles.DefaultSettings().ApplyEnv(func(k string) string {
		return map[string]string{"MYCO_MODEL": "gpt"}[k]
	})
	want := `default_model must be provider/model-id, not "gpt"`
	if err := s.Validate(); err == nil || err.Error() != want {
		t.Errorf("Validate() = %v, want %s", err, want)
	}
}

func TestSplitModel(t *testing.T) {
	tests := []struct {
		name         string
		in           string
		wantProvider string
		wantID       string
		wantErr      bool
	}{
		{name: "plain", in: "anthropic/claude-sonnet-4-5", wantProvider: "anthropic", wantID: "claude-sonnet-4-5"},
		{name: "slashes in the ID", in: "openai/meta-llama/Llama-3.1-8B", wantProvider: "openai", wantID: "meta-llama/Llama-3.1-8B"},
		{name: "tag", in: "openai/llama3.1:8b", wantProvider: "openai", wantID: "llama3.1:8b"},
		{name: "no provider", in: "claude", wantErr: true},
		{name: "empty provider", in: "/claude", wantErr: true},
		{name: "empty ID", in: "anthropic/", wantErr: true},
		{name: "space", in: "anthropic/claude sonnet", wantErr: true},
		{name: "empty", in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			provider, id, err := profiles.SplitModel(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("SplitModel(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if provider != tt.wantProvider || id != tt.wantID {
				t.Errorf("SplitModel(%q) = %q, %q, want %q, %q", tt.in, provider, id, tt.wantProvider, tt.wantID)
			}
		})
	}
}

func TestCompactAt(t *testing.T) {
	tests := []struct {
		name  string
		model profiles.Model
		want  int
	}{
		{name: "default is 80% of the window", model: profiles.Model{ContextWindow: 200000}, want: 160000},
		{name: "explicit", model: profiles.Model{ContextWindow: 200000, AutoCompactAt: ptr(120000)}, want: 120000},
		{name: "zero turns it off", model: profiles.Model{ContextWindow: 200000, AutoCompactAt: ptr(0)}, want: 0},
		{name: "unknown window is off", model: profiles.Model{}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.model.CompactAt(); got != tt.want {
				t.Errorf("CompactAt() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestRedactsSecrets(t *testing.T) {
	no, yes := false, true
	tests := []struct {
		name string
		set  *bool
		want bool
	}{
		{name: "unset", set: nil, want: true},
		{name: "true", set: &yes, want: true},
		{name: "false", set: &no, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (profiles.Settings{RedactSecrets: tt.set}).RedactsSecrets(); got != tt.want {
				t.Errorf("RedactsSecrets() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNotifies(t *testing.T) {
	tests := []struct {
		name string
		set  *bool
		want bool
	}{
		{name: "unset", set: nil, want: true},
		{name: "true", set: ptr(true), want: true},
		{name: "false", set: ptr(false), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (profiles.Settings{Notifications: tt.set}).Notifies(); got != tt.want {
				t.Errorf("Notifies() = %v, want %v", got, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func itoa(n int) string { return strconv.Itoa(n) }

func TestModelLimits(t *testing.T) {
	off := 0
	raised := 190000
	s := profiles.DefaultSettings()
	s.Models["anthropic/tiny"] = profiles.Model{ContextWindow: 1000}
	s.Models["anthropic/claude-off"] = profiles.Model{AutoCompactAt: &off}
	s.Models["anthropic/claude-raised"] = profiles.Model{ContextWindow: 200000, AutoCompactAt: &raised}
	tests := []struct {
		model         string
		window, limit int
	}{
		{"anthropic/claude-sonnet-4-5", 200000, 160000},
		{"anthropic/claude-opus-9", 200000, 160000},
		{"anthropic/tiny", 1000, 800},
		{"anthropic/claude-off", 200000, 0},
		{"anthropic/claude-raised", 200000, 190000},
		{"openai/gpt-4o-mini", 128000, 102400},
		{"openai/llama3.1:8b", 128000, 102400},
	}
	for _, tt := range tests {
		m := s.ModelLimits(tt.model)
		if m.ContextWindow != tt.window || m.CompactAt() != tt.limit {
			t.Errorf("%s: window %d, compact at %d; want %d, %d", tt.model, m.ContextWindow, m.CompactAt(), tt.window, tt.limit)
		}
	}
}

func TestShellEnvDropped(t *testing.T) {
	s := profiles.DefaultSettings()
	s.Providers["local"] = profiles.Provider{BaseURL: "http://127.0.0.1:11434/v1", APIKeyEnv: "MY_LLM"}
	s.Providers["nokey"] = profiles.Provider{BaseURL: "http://127.0.0.1:8080/v1"}
	want := []string{"@secrets", "ANTHROPIC_API_KEY", "MY_LLM", "OPENAI_API_KEY"}
	if diff := cmp.Diff(want, s.ShellEnvDropped()); diff != "" {
		t.Errorf("ShellEnvDropped() mismatch (-want +got):\n%s", diff)
	}
	// A file that empties shell_env_drop still keeps provider keys out.
	s.ShellEnvDrop = nil
	if diff := cmp.Diff(want[1:], s.ShellEnvDropped()); diff != "" {
		t.Errorf("ShellEnvDropped() without drop list mismatch (-want +got):\n%s", diff)
	}
}

// Keys myco does not know are warnings, each at its line and column, with
// the known key it is closest to; the file still loads. A key spelled in
// another case is read, and said so.
func TestLoadSettingsWarnings(t *testing.T) {
	tests := []struct {
		file string
		want []string // line:column: message
	}{
		{"absent.json", nil},
		{"blank.json", nil},
		{"bom.json", nil},
		{"unknown_keys.json", []string{
			"2:3: unknown key defualt_model is ignored (did you mean default_model?)",
			"3:34: unknown key approvals.edits is ignored (did you mean approvals.edit?)",
			`5:24: unknown key models["openai/gpt-4.1"].contxt_window is ignored (did you mean models["openai/gpt-4.1"].context_window?)`,
			`6:36: unknown key models["anthropic/claude-haiku-4-5"].temperature is ignored`,
			"8:69: unknown key providers.openai.apikey_env is ignored (did you mean providers.openai.api_key_env?)",
			"9:3: Think is read as think: spell it so",
			"10:3: unknown key colour_scheme is ignored",
			"11:3: unknown key plugins is ignored",
		}},
		{"merge.json", []string{"16:3: unknown key a_key_from_a_newer_myco is ignored"}},
		{"price_typo.json", []string{`3:46: unknown key models["openai/gpt-4.1"].price.cache_raed is ignored (did you mean models["openai/gpt-4.1"].price.cache_read?)`}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			s, warnings, err := profiles.LoadSettingsWarnings(path)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range warnings {
				if prefix := "settings " + path + ":"; !strings.HasPrefix(w.String(), prefix) {
					t.Errorf("warning %q does not start with %q", w, prefix)
				}
				got = append(got, fmt.Sprintf("%d:%d: %s", w.Line, w.Column, w.Msg))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("warnings mismatch (-want +got):\n%s", diff)
			}
			plain, err := profiles.LoadSettings(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(plain, s); diff != "" {
				t.Errorf("LoadSettingsWarnings read other settings than LoadSettings (-want +got):\n%s", diff)
			}
		})
	}
}
