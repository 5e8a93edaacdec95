package profiles_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"myco/profiles"
)

func TestServerInfoRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "server.json")
	infos := []profiles.ServerInfo{
		{PID: 100, URL: "http://127.0.0.1:40001/", Token: "t1", StartedAt: time.Date(2026, 11, 29, 18, 5, 0, 123e6, time.UTC)},
		{PID: 200, URL: "http://127.0.0.1:40002/", Token: "t2", StartedAt: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)},
	}
	for _, want := range infos {
		if err := profiles.WriteServerInfo(path, want); err != nil {
			t.Fatal(err)
		}
		got, err := profiles.ReadServerInfo(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ReadServerInfo() mismatch (-want +got):\n%s", diff)
		}
	}
	if got := modeOf(t, path); got != 0o600 {
		t.Errorf("server.json mode = %v, want %v", got, fs.FileMode(0o600))
	}
	if diff := cmp.Diff([]string{"server.json"}, entries(t, dir)); diff != "" {
		t.Errorf("temp files left behind (-want +got):\n%s", diff)
	}
}

func TestReadServerInfoAbsent(t *testing.T) {
	_, err := profiles.ReadServerInfo(filepath.Join(t.TempDir(), "server.json"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadServerInfo() error = %v, want fs.ErrNotExist", err)
	}
}

func TestReadServerInfoMalformed(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
	}{
		{name: "not JSON", data: "pid=3", want: "is malformed: invalid character 'p' looking for beginning of value"},
		{name: "wrong type", data: `{"pid": "3"}`, want: "is malformed: json: cannot unmarshal string"},
		{name: "no pid", data: `{"url": "http://127.0.0.1:1/", "token": "t"}`, want: "is malformed: it needs a pid, a url and a token"},
		{name: "no token", data: `{"pid": 3, "url": "http://127.0.0.1:1/"}`, want: "is malformed: it needs a pid, a url and a token"},
		{name: "empty", data: "", want: "is malformed: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.data)
			_, err := profiles.ReadServerInfo(path)
			if err == nil || errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "server info "+path+" "+tt.want) {
				t.Errorf("ReadServerInfo() error = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestRemoveServerInfo(t *testing.T) {
	ours := `{"pid": 100, "url": "http://127.0.0.1:1/", "token": "t"}`
	tests := []struct {
		name       string
		data       string // "" for no file
		wantExists bool
	}{
		{name: "names our pid", data: ours, wantExists: false},
		{name: "names another pid", data: `{"pid": 200, "url": "http://127.0.0.1:2/", "token": "u"}`, wantExists: true},
		{name: "malformed", data: `{"pid": 100,`, wantExists: true},
		{name: "absent", data: "", wantExists: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "server.json")
			if tt.data != "" {
				path = writeFile(t, tt.data)
			}
			if err := profiles.RemoveServerInfo(path, 100); err != nil {
				t.Fatalf("RemoveServerInfo() = %v", err)
			}
			got, err := os.ReadFile(path)
			if exists := err == nil; exists != tt.wantExists {
				t.Fatalf("file exists = %v, want %v (read error %v)", exists, tt.wantExists, err)
			}
			if tt.wantExists && string(got) != tt.data {
				t.Errorf("file changed to %q, want %q", got, tt.data)
			}
		})
	}
}

// writeFile writes data to a server.json in a new temp folder.
func writeFile(t *testing.T, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "server.json")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
