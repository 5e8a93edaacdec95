package web

import (
	"testing"
	"time"
)

func TestSidebarGroups(t *testing.T) {
	v := SidebarView{Rows: []SessionRow{
		{ID: "a", Cwd: "/src/b"}, {ID: "b", Cwd: "/src/a"}, {ID: "c", Cwd: "/src/b"}, {ID: "d"},
	}}
	var got []string
	for _, g := range v.Groups() {
		s := g.Name() + ":"
		for _, r := range g.Rows {
			s += r.ID
		}
		got = append(got, s)
	}
	want := []string{"/src/b:ac", "/src/a:b", "No folder:d"}
	if len(got) != len(want) {
		t.Fatalf("groups %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("groups %q, want %q", got, want)
		}
	}
	if name := (SidebarGroup{Folder: "/home/ana/src/projects/very-long/server"}).Name(); name != "…/very-long/server" {
		t.Errorf("long folder name %q", name)
	}
}

func TestShortAgo(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		ago  time.Duration
		want string
	}{
		{10 * time.Second, "now"}, {5 * time.Minute, "5m"}, {3 * time.Hour, "3h"}, {50 * time.Hour, "2d"}, {40 * 24 * time.Hour, "Oct 21"},
	} {
		if got := shortAgo(now, now.Add(-tc.ago)); got != tc.want {
			t.Errorf("shortAgo(-%v) = %q, want %q", tc.ago, got, tc.want)
		}
	}
}
