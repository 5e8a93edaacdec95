package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"myco/profiles"
	"myco/session"
)

// syncBuffer is a bytes.Buffer safe to read while run writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var urlLine = regexp.MustCompile(`http://127\.0\.0\.1:\d+/\S*\?token=\w+`)

// waitURL waits for the line with the URL that run prints when serving.
func waitURL(t *testing.T, out *syncBuffer, done <-chan error) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if m := urlLine.FindString(out.String()); m != "" {
			return m
		}
		select {
		case err := <-done:
			t.Fatalf("run ended early: %v; output %q", err, out.String())
		case <-deadline:
			t.Fatalf("no URL printed: %q", out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestServeWritesServerInfoAndReusesIt(t *testing.T) {
	c := newCLI(t)
	id := c.create("default", "Resumable")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	getenv := func(k string) string {
		if k == "MYCO_HOME" {
			return c.home
		}
		return ""
	}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--no-open"}, getenv, nil, &out, &errOut) }()
	link := waitURL(t, &out, done)

	p, _ := profiles.Lookup(c.home, "default")
	info, err := profiles.ReadServerInfo(p.ServerPath())
	if err != nil || !strings.HasPrefix(link, info.URL) || !strings.Contains(link, info.Token) {
		t.Fatalf("server.json %+v (%v) does not match %s", info, err, link)
	}
	if fi, _ := os.Stat(p.ServerPath()); fi.Mode().Perm() != 0o600 {
		t.Errorf("server.json mode %v", fi.Mode().Perm())
	}
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Jar: jar}).Get(link) // the redirect drops the token; the cookie carries it
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %v %v", link, resp, err)
	}
	resp.Body.Close()

	// A second myco on the profile opens the page on the running one.
	var out2 bytes.Buffer
	err = run(context.Background(), []string{"--no-open", "--resume", id[:len(id)-6]}, getenv, nil, &out2, &bytes.Buffer{})
	if err != nil || !strings.Contains(out2.String(), "already running") || !strings.Contains(out2.String(), info.URL+"/s/"+id+"?token=") {
		t.Errorf("second run: %v %q", err, out2.String())
	}
	err = run(context.Background(), []string{"--no-open", "--resume", "ffffffff"}, getenv, nil, &out2, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `no session "ffffffff"`) {
		t.Errorf("resume unknown: %v", err)
	}

	// Renaming from the CLI goes through the running server, which may hold
	// the session's lock.
	var out3 bytes.Buffer
	if err := run(context.Background(), []string{"sessions", "title", id, "Renamed from a shell"}, getenv, nil, &out3, &bytes.Buffer{}); err != nil {
		t.Errorf("title: %v", err)
	}
	if doc, _ := c.store("default").Load(id); doc.Title != "Renamed from a shell" {
		t.Errorf("title after rename: %q", doc.Title)
	}

	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
	if _, err := os.Stat(p.ServerPath()); !os.IsNotExist(err) {
		t.Errorf("server.json left after a clean exit: %v", err)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "server.lock")); err != nil {
		t.Errorf("server.lock: %v", err)
	}
	// What the next start reads instead of every document.
	if _, err := os.Stat(filepath.Join(p.SessionDir(), session.ListingCacheName)); err != nil {
		t.Errorf("listing cache: %v", err)
	}
}

func TestMalformedSettingsStopStartWithFileAndLine(t *testing.T) {
	c := newCLI(t)
	c.create("default", "x")
	path := filepath.Join(c.home, "profiles", "default", "settings.json")
	bad := []byte("{\n  \"default_model\": \"anthropic/x\",\n  \"approvals\": {\"bash\": \"sometimes\"}\n}\n")
	os.WriteFile(path, bad, 0o600)
	_, errOut, code := c.run("--no-open")
	if code != 1 || !strings.Contains(errOut, path) || !strings.Contains(errOut, ":3:") {
		t.Errorf("code %d, stderr %q", code, errOut)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, bad) {
		t.Error("settings.json was changed")
	}
}

// A key set twice stops the start like any settings error, at the second
// one; a key myco does not know is a warning on stderr, with its line, and
// myco starts.
func TestSettingsKeysAtStart(t *testing.T) {
	c := newCLI(t)
	c.create("default", "x")
	path := filepath.Join(c.home, "profiles", "default", "settings.json")
	dup := []byte("{\n  \"think\": \"low\",\n  \"todo\": true,\n  \"think\": \"high\"\n}\n")
	os.WriteFile(path, dup, 0o600)
	if _, errOut, code := c.run("--no-open"); code != 1 || !strings.Contains(errOut, path+":4:3: think is set twice (first on line 2)") {
		t.Errorf("duplicate key: code %d, stderr %q", code, errOut)
	}

	os.WriteFile(path, []byte("{\n  \"defualt_model\": \"anthropic/x\"\n}\n"), 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	getenv := func(k string) string {
		if k == "MYCO_HOME" {
			return c.home
		}
		return ""
	}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--no-open"}, getenv, nil, &out, &errOut) }()
	waitURL(t, &out, done)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
	want := "myco: warning: settings " + path + ":2:3: unknown key defualt_model is ignored (did you mean default_model?)"
	if !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
}
