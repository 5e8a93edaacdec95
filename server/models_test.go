package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/profiles"
)

// withModels adds to newSideServer's profile (an OpenAI-compatible
// provider on the fake) a provider whose listing fails and a model only
// settings name; the default settings' Anthropic models stay, of a
// provider the profile cannot call.
func withModels(s *profiles.Settings) {
	fake := strings.TrimSuffix(s.Providers["openai"].BaseURL, "/v1")
	s.Providers["broken"] = profiles.Provider{BaseURL: fake + "/nowhere/v1"}
	s.Models["openai/custom-one"] = profiles.Model{ContextWindow: 32768}
}

type modelsAnswer struct {
	Models []struct {
		Name          string          `json:"name"`
		ContextWindow int             `json:"context_window"`
		Price         *profiles.Price `json:"price"`
		Local         bool            `json:"local"`
		Served        bool            `json:"served"`
		InSettings    bool            `json:"in_settings"`
	} `json:"models"`
	Providers []struct {
		Name   string `json:"name"`
		Models int    `json:"models"`
		Error  string `json:"error"`
	} `json:"providers"`
	HTML string `json:"html"`
}

func TestModelListMergesProvidersAndSettings(t *testing.T) {
	t.Parallel()
	cs, _ := newSideServer(t, withModels)
	resp := cs.do("GET", "/api/models", nil)
	wantStatus(t, resp, http.StatusOK)
	got := decode[modelsAnswer](t, resp)
	var names []string
	for _, m := range got.Models {
		names = append(names, m.Name)
		switch m.Name {
		case "openai/gpt-4.1":
			if m.Price == nil || m.Price.Input != 2 || m.ContextWindow != 1047576 || !m.Served {
				t.Errorf("gpt-4.1 without the catalogue's price and window: %+v", m)
			}
		case "openai/llama3.1:8b":
			if m.Price == nil || *m.Price != (profiles.Price{}) || !m.Local {
				t.Errorf("a local model is not free: %+v", m)
			}
		case "openai/custom-one":
			if m.Served || !m.InSettings || m.ContextWindow != 32768 {
				t.Errorf("the settings' model: %+v", m)
			}
		}
	}
	want := []string{
		"openai/claude-sonnet-4-5-20250929", "openai/custom-one", "openai/fake-fast", "openai/fake-model",
		"openai/fake-title", "openai/gpt-4.1", "openai/llama3.1:8b",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	if len(got.Providers) != 2 || got.Providers[0].Name != "broken" || got.Providers[0].Error == "" || got.Providers[1].Models != 6 {
		t.Errorf("providers %+v, want broken with its error and openai with 6 models", got.Providers)
	}
	if n := strings.Count(got.HTML, "broken did not list its models"); n != 1 {
		t.Errorf("the failed listing is said %d times in the panel, want once", n)
	}
	cs.do("GET", "/api/models", nil)
	listings := 0
	for _, r := range cs.fake.Requests() {
		if r.Method == "GET" && r.Path == "/v1/models" {
			listings++
		}
	}
	if listings != 1 {
		t.Errorf("%d listings for two lists in a row, want 1 (kept)", listings)
	}
}

func TestPatchModelValidates(t *testing.T) {
	t.Parallel()
	cs, _ := newSideServer(t, withModels)
	s := cs.create("models")
	tests := []struct {
		name, model string
		status      int
		stored      string
		says        []string // in the error or the notice
	}{
		{"no provider part", "gpt-4.1", 400, "", []string{`model "gpt-4.1" is not of the form provider/model-id`, "openai/gpt-4.1", `"default"`}},
		{"unknown provider", "nosuch/model", 400, "", []string{`provider "nosuch" is not configured`, "openai/fake-model"}},
		{"provider without a key", "anthropic/claude-haiku-4-5", 400, "", []string{`provider "anthropic" is not configured`}},
		{"not served", "openai/nosuch", 400, "", []string{`openai does not serve "nosuch"`, "openai/llama3.1:8b"}},
		{"served", "openai/gpt-4.1", 200, "openai/gpt-4.1", nil},
		{"named in settings", "openai/custom-one", 200, "openai/custom-one", nil},
		{"default follows the profile", "default", 200, "", nil},
		{"listing failed", "broken/anything", 200, "broken/anything", []string{"broken did not list its models", "taken as written"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := cs.patch(s.ID, `{"model":`+jsonString(tt.model)+`}`)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			for _, w := range tt.says {
				if !strings.Contains(string(body), jsonEscaped(w)) {
					t.Errorf("answer %s does not say %q", body, w)
				}
			}
			if tt.status != 200 {
				return
			}
			doc, err := cs.sessions.Load(s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Model != tt.stored {
				t.Errorf("stored model %q, want %q", doc.Model, tt.stored)
			}
		})
	}
	resp := cs.do("POST", "/api/sessions", strings.NewReader(`{"model":"nosuch/model"}`))
	wantStatus(t, resp, http.StatusBadRequest)
}

// jsonEscaped is s as it reads inside a JSON string.
func jsonEscaped(s string) string {
	q := jsonString(s)
	return q[1 : len(q)-1]
}
