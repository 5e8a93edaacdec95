package llm_test

import (
	"errors"
	"strings"
	"testing"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/server/llm"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestHelpWhenNothingConfigured(t *testing.T) {
	reg := llm.NewRegistry(profiles.DefaultSettings(), env(nil), nil).WithSettingsPath("/home/ana/.local/share/myco/profiles/default/settings.json")
	if reg.Configured() {
		t.Fatal("Configured() = true with no key and the default settings")
	}
	help := reg.Help()
	for _, want := range []string{
		"export ANTHROPIC_API_KEY=",
		"Settings page (/settings)",
		"/home/ana/.local/share/myco/profiles/default/settings.json",
		`"base_url": "http://127.0.0.1:11434/v1"`,
		"ANTHROPIC_API_KEY is not set",
		"OPENAI_API_KEY is not set",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("Help() lacks %q:\n%s", want, help)
		}
	}
}

func TestClientErrors(t *testing.T) {
	reg := llm.NewRegistry(profiles.DefaultSettings(), env(nil), nil)
	tests := []struct {
		name         string
		model        string
		wantNoProv   bool
		wantMentions string
	}{
		{name: "key missing", model: "anthropic/claude-sonnet-4-5", wantNoProv: true, wantMentions: "ANTHROPIC_API_KEY"},
		{name: "unknown provider", model: "ollama/llama3.1:8b", wantNoProv: true, wantMentions: `"ollama"`},
		{name: "not provider/model", model: "claude", wantMentions: "provider/model-id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, err := reg.Client(tt.model)
			if c != nil || err == nil {
				t.Fatalf("Client(%q) = %v, %v; want an error", tt.model, c, err)
			}
			if errors.Is(err, llm.ErrNoProvider) != tt.wantNoProv || !strings.Contains(err.Error(), tt.wantMentions) {
				t.Errorf("err = %v; want ErrNoProvider %v, mentioning %s", err, tt.wantNoProv, tt.wantMentions)
			}
		})
	}
}

// The clients take their key and base URL from settings and the getenv
// they are given, never from the process environment.
func TestRegistryClientsIgnoreTheEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "from-process-env")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
	t.Setenv("OPENAI_API_KEY", "from-process-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	srv := fakellm.Start(t)
	settings := profiles.DefaultSettings()
	settings.Providers = map[string]profiles.Provider{
		"anthropic": {BaseURL: srv.URL, APIKeyEnv: "MY_ANTHROPIC_KEY"},
		"ollama":    {BaseURL: srv.URL + "/v1"},
	}
	reg := llm.NewRegistry(settings, env(map[string]string{"MY_ANTHROPIC_KEY": "given-key"}), nil)
	if !reg.Configured() || strings.Join(reg.Providers(), ",") != "anthropic,ollama" {
		t.Fatalf("providers = %v, want anthropic and ollama", reg.Providers())
	}

	wantAuth := map[string]string{"anthropic/claude-x": "Bearer given-key", "ollama/llama3.1:8b": ""}
	for model, auth := range wantAuth {
		c, id, err := reg.Client(model)
		if err != nil {
			t.Fatal(err)
		}
		srv.Reset()
		req := request(human("hi"))
		req.Model = id
		mustStream(t, c, req)
		rec := srv.Requests()[0]
		if got := rec.Header.Get("Authorization"); got != auth {
			t.Errorf("%s: Authorization = %q, want %q", model, got, auth)
		}
		if rec.JSON["model"] != strings.SplitN(model, "/", 2)[1] {
			t.Errorf("%s: sent model %v", model, rec.JSON["model"])
		}
	}
}
