package tools

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"myco/profiles"
)

func TestEnvFilterApply(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin", "HOME=/home/me", "ANTHROPIC_API_KEY=sk-ant-1234567890",
		"MY_LLM=sk-other-1234567890", "GITHUB_TOKEN=ghp_x", "SSH_AUTH_SOCK=/tmp/agent",
		"AWS_REGION=eu-west-1", "AWS_SECRET_ACCESS_KEY=abc", "DB_PASSWORD=hunter2", "EMPTY=",
	}
	tests := []struct {
		name   string
		filter EnvFilter
		want   []string // names left, in order
	}{
		{"nothing dropped", EnvFilter{}, []string{"PATH", "HOME", "ANTHROPIC_API_KEY", "MY_LLM", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "AWS_REGION", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "EMPTY"}},
		{"secret-looking names", EnvFilter{Drop: DefaultEnvDrop()}, []string{"PATH", "HOME", "MY_LLM", "SSH_AUTH_SOCK", "AWS_REGION", "EMPTY"}},
		// A provider whose api_key_env does not look secret is dropped by name.
		{"provider key by name", EnvFilter{Drop: []string{SecretNames, "MY_LLM"}}, []string{"PATH", "HOME", "SSH_AUTH_SOCK", "AWS_REGION", "EMPTY"}},
		{"pattern", EnvFilter{Drop: []string{"AWS_*"}}, []string{"PATH", "HOME", "ANTHROPIC_API_KEY", "MY_LLM", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "DB_PASSWORD", "EMPTY"}},
		{"keep wins", EnvFilter{Drop: []string{SecretNames, "MY_LLM"}, Keep: []string{"GITHUB_TOKEN", "MY_*"}}, []string{"PATH", "HOME", "MY_LLM", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "AWS_REGION", "EMPTY"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.filter.Apply(environ)
			var names []string
			for _, kv := range got {
				name, _, _ := strings.Cut(kv, "=")
				names = append(names, name)
			}
			if !slices.Equal(names, tt.want) {
				t.Errorf("Apply kept %v, want %v", names, tt.want)
			}
		})
	}
}

func TestCheckEnvPattern(t *testing.T) {
	for p, ok := range map[string]bool{
		"AWS_*": true, "GITHUB_TOKEN": true, SecretNames: true,
		"": false, "A=B": false, "A B": false, "[": false,
	} {
		if err := CheckEnvPattern(p); (err == nil) != ok {
			t.Errorf("CheckEnvPattern(%q) = %v, want ok=%v", p, err, ok)
		}
	}
}

// The shell itself does not see what the filter drops: the issue's
// reproduction was `env | grep ANTHROPIC` showing the key.
func TestShellDoesNotSeeDroppedEnv(t *testing.T) {
	environ := append(os.Environ(), "ANTHROPIC_API_KEY=sk-ant-shell-test-123456", "KEEP_ME_TOKEN=visible-1234567")
	env := EnvFilter{Drop: DefaultEnvDrop(), Keep: []string{"KEEP_ME_TOKEN"}}.Apply(environ)
	sh, err := NewShell(t.TempDir(), env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	res, err := sh.Run(t.Context(), "env", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Output, "ANTHROPIC") || strings.Contains(res.Output, "sk-ant-shell-test") {
		t.Errorf("the shell sees the provider key:\n%s", res.Output)
	}
	if !strings.Contains(res.Output, "KEEP_ME_TOKEN=visible-1234567") {
		t.Errorf("the shell does not see the kept variable:\n%s", res.Output)
	}
}

// settings.json spells SecretNames as profiles does.
func TestSecretNamesMatchesSettings(t *testing.T) {
	if SecretNames != profiles.ShellEnvSecrets {
		t.Errorf("tools.SecretNames = %q, profiles.ShellEnvSecrets = %q", SecretNames, profiles.ShellEnvSecrets)
	}
}
