package profiles

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWebFetchAllows(t *testing.T) {
	w := WebFetch{AllowedHosts: []string{"docs.python.org", "*.github.com", "Example.ORG."}}
	tests := []struct {
		host string
		want bool
	}{
		{"docs.python.org", true},
		{"DOCS.python.org.", true},
		{"python.org", false},
		{"evil-docs.python.org", false},
		{"api.github.com", true},
		{"raw.objects.github.com", true},
		{"github.com", false}, // *. is what is under the domain
		{"notgithub.com", false},
		{"example.org", true},
		{"", false},
	}
	for _, tt := range tests {
		if got := w.Allows(tt.host); got != tt.want {
			t.Errorf("Allows(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

func TestWebFetchSettingsFile(t *testing.T) {
	tests := []struct {
		file    string
		want    []string
		wantErr string
	}{
		{`{"web_fetch": {"allowed_hosts": ["docs.python.org", "*.github.com"]}}`, []string{"docs.python.org", "*.github.com"}, ""},
		{`{}`, nil, ""},
		{`{"web_fetch": {"allowed_hosts": ["https://docs.python.org/3/"]}}`, nil, "web_fetch.allowed_hosts[0]"},
		{`{"web_fetch": {"allowed_hosts": ["*"]}}`, nil, "web_fetch.allowed_hosts[0]"},
		{`{"web_fetch": {"allowed_hosts": ["ok.example", "example.com:8080"]}}`, nil, "web_fetch.allowed_hosts[1]"},
		{`{"web_fetch": {"allowed_hosts": ["intranet"]}}`, nil, "web_fetch.allowed_hosts[0]"},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := LoadSettings(path)
		if tt.wantErr != "" {
			var se *SettingsError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: %v, want a settings error naming %s", tt.file, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if len(s.WebFetch.AllowedHosts) != len(tt.want) {
			t.Errorf("%s: allowed_hosts %q, want %q", tt.file, s.WebFetch.AllowedHosts, tt.want)
		}
	}
}
