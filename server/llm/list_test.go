package llm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/server/llm"
)

// TestListModels lists the fake's models through each real SDK client (GET
// /v1/models in both wire formats); a provider that fails says why.
func TestListModels(t *testing.T) {
	srv := fakellm.Start(t)
	settings := profiles.Settings{Providers: map[string]profiles.Provider{
		"anthropic": {BaseURL: srv.URL, APIKeyEnv: "KEY"},
		"openai":    {BaseURL: srv.URL + "/v1"},
		"broken":    {BaseURL: srv.URL + "/nowhere/v1"},
	}}
	reg := llm.NewRegistry(settings, env(map[string]string{"KEY": "k"}), nil)
	ids := func(ms []llm.ServedModel) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	want := []string{"fake-model", "fake-title", "fake-fast", "claude-sonnet-4-5-20250929", "gpt-4.1", "llama3.1:8b"}
	for _, p := range []string{"anthropic", "openai"} {
		got, err := reg.ListModels(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if diff := cmp.Diff(want, ids(got)); diff != "" {
			t.Errorf("%s listed (-want +got):\n%s", p, diff)
		}
	}
	if _, err := reg.ListModels(context.Background(), "broken"); !errors.As(err, new(*llm.Error)) {
		t.Errorf("a provider that answers 404 listed without an *llm.Error: %v", err)
	}
	if _, err := reg.ListModels(context.Background(), "nowhere"); !errors.Is(err, llm.ErrNoProvider) {
		t.Errorf("an unconfigured provider: %v, want ErrNoProvider", err)
	}
	var paths []string
	for _, r := range srv.Requests() {
		if r.Method == "GET" {
			paths = append(paths, r.Path)
		}
	}
	if diff := cmp.Diff([]string{"/v1/models", "/v1/models", "/nowhere/v1/models"}, paths); diff != "" {
		t.Errorf("listing requests (-want +got):\n%s", diff)
	}
}
