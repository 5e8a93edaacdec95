package profiles_test

import (
	"testing"

	"myco/profiles"
)

func TestHome(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    string
		wantErr bool
	}{
		{
			name: "MYCO_HOME comes first",
			env:  map[string]string{"MYCO_HOME": "/m", "XDG_DATA_HOME": "/x", "HOME": "/h"},
			want: "/m",
		},
		{
			name: "MYCO_HOME is cleaned",
			env:  map[string]string{"MYCO_HOME": "/m/./data/"},
			want: "/m/data",
		},
		{
			name: "XDG_DATA_HOME comes next",
			env:  map[string]string{"XDG_DATA_HOME": "/x", "HOME": "/h"},
			want: "/x/myco",
		},
		{
			name: "relative XDG_DATA_HOME is ignored as the XDG spec says",
			env:  map[string]string{"XDG_DATA_HOME": "rel", "HOME": "/h"},
			want: "/h/.local/share/myco",
		},
		{
			name: "HOME comes last",
			env:  map[string]string{"HOME": "/h"},
			want: "/h/.local/share/myco",
		},
		{
			name:    "nothing set",
			env:     map[string]string{},
			wantErr: true,
		},
		{
			name:    "only a relative XDG_DATA_HOME",
			env:     map[string]string{"XDG_DATA_HOME": "rel"},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := profiles.Home(func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr {
				t.Fatalf("Home() error = %v, want error %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Home() = %q, want %q", got, tt.want)
			}
		})
	}
}

// The person's own instruction file follows the XDG Base Directory spec:
// $XDG_CONFIG_HOME when it is absolute, else ~/.config.
func TestPersonalInstructions(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"xdg", map[string]string{"XDG_CONFIG_HOME": "/cfg", "HOME": "/home/ana"}, "/cfg/myco/AGENTS.md"},
		{"relative xdg is ignored", map[string]string{"XDG_CONFIG_HOME": "cfg", "HOME": "/home/ana"}, "/home/ana/.config/myco/AGENTS.md"},
		{"home", map[string]string{"HOME": "/home/ana"}, "/home/ana/.config/myco/AGENTS.md"},
		{"neither", map[string]string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := profiles.PersonalInstructions(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("PersonalInstructions = %q, want %q", got, tt.want)
			}
		})
	}
}
