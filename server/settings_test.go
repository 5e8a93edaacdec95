package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/profiles"
	"myco/server"
)

// newSettingsServer serves a profile in dir whose settings.json holds
// text, read as myco reads it at start.
func newSettingsServer(t *testing.T, text string) (*testServer, *profiles.LiveSettings, string) {
	t.Helper()
	dir := t.TempDir()
	profile := filepath.Join(dir, "profile")
	if err := os.MkdirAll(profile, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(profile, "settings.json")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	ls, err := profiles.LoadLiveSettings(path, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, dir, func(o *server.Options) {
		o.Settings, o.ProfileDir = ls, profile
		o.Getenv = func(k string) string {
			if k == "SET_KEY" {
				return "x"
			}
			return ""
		}
	})
	return ts, ls, path
}

// postForm posts the Settings page's form as a browser does.
func (ts *testServer) postForm(path string, form url.Values) *http.Response {
	ts.t.Helper()
	return ts.do("POST", path, strings.NewReader(form.Encode()), "Content-Type", "application/x-www-form-urlencoded", "Origin", ts.url)
}

// TestSettingsSaveKeepsTheFile: a save writes what changed, keeps every key
// the form does not show (and one myco does not know), and applies at once.
func TestSettingsSaveKeepsTheFile(t *testing.T) {
	t.Parallel()
	ts, ls, path := newSettingsServer(t, `{
  "denied_paths": ["~/private"],
  "shell_env_keep": ["MY_TOKEN"],
  "models": {"anthropic/fake": {"context_window": 1000, "price_note": "kept"}},
  "future_key": {"a": 1}
}`)
	form := url.Values{
		"settings_form": {"1"}, "approvals.bash": {"allow"}, "approvals.edit": {"ask"},
		`models["anthropic/fake"].context_window`: {"5000"}, `models["anthropic/fake"].auto_compact_at`: {""},
		`models["anthropic/fake"].price.input`: {"3.5"}, `models["anthropic/fake"].price.output`: {""},
		"undo": {"on"}, "notifications": {"on"}, "stream_idle_timeout": {"120"},
		"fast_model": {"anthropic/fake"}, "new_personality": {"terse"}, "new_personality.instructions": {"Answer in one line."},
	}
	resp := ts.postForm("/settings", form)
	wantStatus(t, resp, http.StatusSeeOther)

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]any
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"denied_paths"`, `"~/private"`, `"MY_TOKEN"`, `"price_note"`, `"future_key"`, `"context_window": 5000`, `"input": 3.5`, `"fast_model": "anthropic/fake"`, `"bash": "allow"`, `"terse"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("settings.json lacks %s:\n%s", want, data)
		}
	}
	for _, unwanted := range []string{`"edit"`, `"undo"`, `"stream_idle_timeout"`, `"default_model"`} {
		if strings.Contains(string(data), unwanted) {
			t.Errorf("settings.json gained %s, which the form did not change:\n%s", unwanted, data)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("settings.json mode %v, want 0600", fi.Mode().Perm())
	}
	st := ls.Current()
	if p, ok := st.Price("anthropic/fake"); !ok || p.Input != 3.5 {
		t.Errorf("price in force after the save: %+v %v, want input 3.5", p, ok)
	}
	if st.Approvals.Bash != profiles.ApprovalAllow || st.Models["anthropic/fake"].ContextWindow != 5000 || st.Personalities["terse"] == "" {
		t.Errorf("settings in force after the save: bash %q, window %d, personas %v", st.Approvals.Bash, st.Models["anthropic/fake"].ContextWindow, st.Personalities)
	}
}

// TestSettingsRefusesABadValueBesideItsField: a value the settings cannot
// hold is not written; the page comes back with it and says why beside
// the field.
func TestSettingsRefusesABadValueBesideItsField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, field, value, says string
	}{
		{"bad approval", "approvals.bash", "sometimes", `must be "ask" or "allow"`},
		{"bad model name", "default_model", "nomodel", "provider/model-id"},
		{"bad fast model", "fast_model", "fast", "provider/model-id"},
		{"words for a number", "stream_idle_timeout", "soon", "whole number"},
		{"compaction past the window", `models["anthropic/fake"].auto_compact_at`, "9000", "larger than context_window"},
		{"bad base URL", `providers.anthropic.base_url`, "ftp://x", "http or https"},
		{"a price in words", `models["anthropic/fake"].price.input`, "cheap", "price in dollars"},
		{"a price that is not a number", `models["anthropic/fake"].price.output`, "NaN", "price in dollars"},
		{"a negative budget", "budgets.session_cost_usd", "-2", "amount in US dollars"},
		{"a budget in words", "budgets.day_cost_usd", "lots", "amount in US dollars"},
		{"negative tokens", "budgets.day_tokens", "-1", "number of tokens"},
		{"no model call", "max_model_calls_per_turn", "0", "at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const text = `{"models": {"anthropic/fake": {"context_window": 1000}}}`
			ts, _, path := newSettingsServer(t, text)
			resp := ts.postForm("/settings", url.Values{tt.field: {tt.value}})
			wantStatus(t, resp, http.StatusUnprocessableEntity)
			d := parseDoc(t, resp)
			msg := d.Find(`[data-testid="field-error"][data-field='` + tt.field + `']`).Text()
			if !strings.Contains(msg, tt.says) {
				t.Errorf("beside %s: %q, want %q", tt.field, msg, tt.says)
			}
			if in := d.Find(`input[name='` + tt.field + `']`); in.Length() > 0 && in.AttrOr("value", "") != tt.value {
				got := in.AttrOr("value", "")
				t.Errorf("field %s shows %q after the refusal, want what was typed, %q", tt.field, got, tt.value)
			}
			if data, _ := os.ReadFile(path); string(data) != text {
				t.Errorf("settings.json changed by a refused save:\n%s", data)
			}
		})
	}
}

// TestSettingsBannerOnEveryPage: a broken file keeps the last good
// settings and every page says where it is broken, until it is fixed.
func TestSettingsBannerOnEveryPage(t *testing.T) {
	t.Parallel()
	ts, ls, path := newSettingsServer(t, `{"approvals": {"bash": "allow"}}`)
	s := ts.create("a session")
	banner := func(page string) string {
		t.Helper()
		resp := ts.do("GET", page, nil, "Accept", "text/html")
		wantStatus(t, resp, http.StatusOK)
		return parseDoc(t, resp).Find(`[data-testid="settings-banner"]`).Text()
	}
	if b := banner("/"); b != "" {
		t.Fatalf("a good file shows a banner: %q", b)
	}
	if err := os.WriteFile(path, []byte("{\n  \"approvals\": {\"bash\": \"often\"}\n}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ls.Reload(); err == nil {
		t.Fatal("a broken file reloads without an error")
	}
	for _, page := range []string{"/", "/s/" + s.ID, "/settings"} {
		if b := banner(page); !strings.Contains(b, path+":2:") || !strings.Contains(b, "often") {
			t.Errorf("%s banner %q, want the file, its line and the error", page, b)
		}
	}
	if ls.Current().Approvals.Bash != profiles.ApprovalAllow {
		t.Error("a broken file replaced the last good settings")
	}
	// Open tabs hear of it on the profile's stream, the banner with it.
	st := ts.profileStream(t)
	if err := ls.Reload(); err == nil {
		t.Fatal("a broken file reloads without an error")
	}
	if html, _ := data(t, nextEvent(t, st.events, "settings.changed"))["html"].(string); !strings.Contains(html, "settings-banner") || !strings.Contains(html, "often") {
		t.Errorf("settings.changed carries %q, want the banner", html)
	}
	resp := ts.postForm("/settings", url.Values{"approvals.bash": {"ask"}})
	wantStatus(t, resp, http.StatusUnprocessableEntity)
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "often") {
		t.Errorf("a save replaced a broken file, the person's edits lost:\n%s", data)
	}

	if err := os.WriteFile(path, []byte(`{"approvals": {"bash": "ask"}, "unknwn": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := ls.Reload(); err != nil {
		t.Fatal(err)
	}
	if b := banner("/"); strings.Contains(b, "cannot be used") || !strings.Contains(b, "unknwn") {
		t.Errorf("after the fix the banner says %q, want the unknown key's warning only", b)
	}
}

// TestSettingsKey: a stored key is written 0600 in the profile, never
// shown back, only said to be stored; Remove removes it.
func TestSettingsKey(t *testing.T) {
	t.Parallel()
	ts, _, _ := newSettingsServer(t, `{"providers": {"anthropic": {"api_key_env": "SET_KEY"}}}`)
	const key = "sk-ant-secret-123"
	resp := ts.postForm("/settings/key", url.Values{"provider": {"anthropic"}, "key": {key}, "action": {"replace"}})
	wantStatus(t, resp, http.StatusSeeOther)
	file := filepath.Join(ts.dir, "profile", "keys", "anthropic.key")
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, mode %v", err, fi.Mode().Perm())
	}
	resp = ts.do("GET", "/settings", nil, "Accept", "text/html")
	wantStatus(t, resp, http.StatusOK)
	d := parseDoc(t, resp)
	html, _ := d.Html()
	if strings.Contains(html, key) {
		t.Error("the Settings page shows the stored key")
	}
	status := d.Find(`[data-provider="anthropic"] [data-testid="key-status"]`).Text()
	if !strings.Contains(status, "stored") {
		t.Errorf("key status %q, want stored", status)
	}
	resp = ts.do("GET", "/api/settings", nil)
	wantStatus(t, resp, http.StatusOK)
	var got struct {
		Keys map[string]struct {
			Stored bool `json:"stored"`
			EnvSet bool `json:"env_set"`
		} `json:"keys"`
	}
	body := decodeRaw(t, resp)
	if strings.Contains(body, key) {
		t.Error("GET /api/settings shows the stored key")
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || !got.Keys["anthropic"].Stored || !got.Keys["anthropic"].EnvSet {
		t.Errorf("GET /api/settings keys %+v (%v), want anthropic stored and its variable set", got.Keys, err)
	}
	resp = ts.postForm("/settings/key", url.Values{"provider": {"anthropic"}, "action": {"remove"}})
	wantStatus(t, resp, http.StatusSeeOther)
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("key file after Remove: %v", err)
	}
}

func decodeRaw(t *testing.T, resp *http.Response) string {
	t.Helper()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
