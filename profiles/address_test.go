package profiles_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/profiles"
)

// TestReadAddress: only a loopback address with a long hex token is
// reused; anything else is refused, so the server starts afresh.
func TestReadAddress(t *testing.T) {
	token := strings.Repeat("ab", 32)
	tests := []struct {
		name, data string
		want       profiles.Address
		wantErr    bool
	}{
		{name: "absent"},
		{name: "good", data: `{"addr":"127.0.0.1:4111","token":"` + token + `"}`, want: profiles.Address{Addr: "127.0.0.1:4111", Token: token}},
		{name: "not JSON", data: `{`, wantErr: true},
		{name: "not loopback", data: `{"addr":"0.0.0.0:4111","token":"` + token + `"}`, wantErr: true},
		{name: "a name", data: `{"addr":"localhost:4111","token":"` + token + `"}`, wantErr: true},
		{name: "short token", data: `{"addr":"127.0.0.1:4111","token":"abcd"}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "address.json")
			if tt.data != "" {
				if err := os.WriteFile(path, []byte(tt.data), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, err := profiles.ReadAddress(path)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ReadAddress = %+v, %v; want %+v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
