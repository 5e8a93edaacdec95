package profiles_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/profiles"
)

func TestOpenCreatesPrivateFolders(t *testing.T) {
	home := t.TempDir()
	p, err := profiles.Open(home, "work")
	if err != nil {
		t.Fatal(err)
	}
	want := &profiles.Profile{Name: "work", Dir: filepath.Join(home, "profiles", "work")}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("Open() mismatch (-want +got):\n%s", diff)
	}
	for _, dir := range []string{"profiles", "profiles/work", "profiles/work/session", "profiles/work/session/archived", "profiles/work/images"} {
		t.Run(dir, func(t *testing.T) {
			if got := modeOf(t, filepath.Join(home, dir)); got != fs.ModeDir|0o700 {
				t.Errorf("mode = %v, want %v", got, fs.ModeDir|0o700)
			}
		})
	}
}

func TestOpenKeepsModesOfExistingFolders(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "profiles", "work")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Chmod because the umask may have narrowed MkdirAll's mode.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := profiles.Open(home, "work"); err != nil {
			t.Fatal(err)
		}
	}
	if got := modeOf(t, dir); got != fs.ModeDir|0o755 {
		t.Errorf("existing folder mode = %v, want it left at %v", got, fs.ModeDir|0o755)
	}
	if got := modeOf(t, filepath.Join(dir, "session")); got != fs.ModeDir|0o700 {
		t.Errorf("new session folder mode = %v, want %v", got, fs.ModeDir|0o700)
	}
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name     string
		home     string
		profile  string
		wantName bool // the error wraps ErrInvalidName
	}{
		{name: "name that climbs out", home: "home", profile: "../x", wantName: true},
		{name: "name with a separator", home: "home", profile: "a/b", wantName: true},
		{name: "empty home", home: "", profile: "work"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			t.Chdir(root) // an empty home must not create folders here
			home := tt.home
			if home != "" {
				home = filepath.Join(root, home)
			}
			_, err := profiles.Open(home, tt.profile)
			if err == nil {
				t.Fatal("Open() succeeded, want an error")
			}
			if got := errors.Is(err, profiles.ErrInvalidName); got != tt.wantName {
				t.Errorf("Open() error %v: errors.Is(ErrInvalidName) = %v, want %v", err, got, tt.wantName)
			}
			if got := entries(t, root); len(got) != 0 {
				t.Errorf("Open() created %v, want nothing", got)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	home := t.TempDir()
	if _, err := profiles.Open(home, "work"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "profiles", "afile"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		profile string
		want    *profiles.Profile
		wantIs  error // nil: any error
	}{
		{name: "existing", profile: "work", want: &profiles.Profile{Name: "work", Dir: filepath.Join(home, "profiles", "work")}},
		{name: "missing", profile: "play", wantIs: profiles.ErrNotFound},
		{name: "invalid", profile: "../work", wantIs: profiles.ErrInvalidName},
		{name: "a file, not a folder", profile: "afile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := profiles.Lookup(home, tt.profile)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Lookup() mismatch (-want +got):\n%s", diff)
			}
			if tt.want == nil && err == nil {
				t.Fatal("Lookup() succeeded, want an error")
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Lookup() error = %v, want %v", err, tt.wantIs)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(home, "profiles", "play")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lookup created the missing profile: stat error = %v", err)
	}
}

func TestList(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, home string)
		want  []string
	}{
		{name: "no data folder", setup: func(*testing.T, string) {}, want: []string{}},
		{
			name: "profiles sorted, other entries skipped",
			setup: func(t *testing.T, home string) {
				for _, name := range []string{"work", "default", "B-2"} {
					if _, err := profiles.Open(home, name); err != nil {
						t.Fatal(err)
					}
				}
				dir := filepath.Join(home, "profiles")
				mkdir(t, filepath.Join(dir, ".hidden"))
				mkdir(t, filepath.Join(dir, "has space"))
				if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"B-2", "default", "work"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			tt.setup(t, home)
			got, err := profiles.List(home)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("List() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProfilePaths(t *testing.T) {
	p := &profiles.Profile{Name: "work", Dir: "/d/profiles/work"}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "SessionDir", got: p.SessionDir(), want: "/d/profiles/work/session"},
		{name: "ImagesDir", got: p.ImagesDir(), want: "/d/profiles/work/images"},
		{name: "SettingsPath", got: p.SettingsPath(), want: "/d/profiles/work/settings.json"},
		{name: "ServerPath", got: p.ServerPath(), want: "/d/profiles/work/server.json"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s() = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func modeOf(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
}

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}
