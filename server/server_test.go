package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"myco/server"
	"myco/server/llm"
	"myco/session"
)

const testToken = "test-token-0123456789"

// noModels is a profile with no provider configured.
type noModels struct{}

func (noModels) Client(model string) (llm.Client, string, error) {
	return nil, "", fmt.Errorf("%w: %s", llm.ErrNoProvider, model)
}
func (noModels) Configured() bool { return false }
func (noModels) Help() string     { return "Set ANTHROPIC_API_KEY." }

// testServer is a real server on a loopback port over stores in a temp dir.
type testServer struct {
	t        testing.TB
	url      string
	host     string
	dir      string
	sessions *session.Store
	images   *session.Images
	// stop shuts the server down (also done when the test ends).
	stop func()
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	return newTestServerIn(t, t.TempDir())
}

func newTestServerIn(t testing.TB, dir string) *testServer {
	t.Helper()
	return startServer(t, dir, func(o *server.Options) {
		o.Cwd = "/work"
		o.Images.SetMaxSize(1 << 20)
	})
}

// startServer runs a real server on a loopback port over stores in dir,
// with test defaults (no model provider, fast watch and heartbeat) that
// configure may change, and shuts it down when the test ends.
func startServer(t testing.TB, dir string, configure func(*server.Options)) *testServer {
	t.Helper()
	ss, err := session.Open(filepath.Join(dir, "session"), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	im, err := session.OpenImages(filepath.Join(dir, "images"))
	if err != nil {
		t.Fatal(err)
	}
	opts := server.Options{
		Profile: "test", Sessions: ss, Images: im, Token: testToken, Cwd: dir, Models: noModels{},
		WatchInterval: 50 * time.Millisecond, Heartbeat: 100 * time.Millisecond,
	}
	if configure != nil {
		configure(&opts)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(opts, ln)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go srv.Serve(ctx, ln)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			sctx, c := context.WithTimeout(context.Background(), 5*time.Second)
			defer c()
			srv.Shutdown(sctx)
		})
	}
	t.Cleanup(stop)
	return &testServer{t: t, url: srv.URL(), host: strings.TrimPrefix(srv.URL(), "http://"), dir: dir, sessions: ss, images: im, stop: stop}
}

// do sends an authenticated request from the server's own origin.
func (ts *testServer) do(method, path string, body io.Reader, hdr ...string) *http.Response {
	ts.t.Helper()
	req, err := http.NewRequest(method, ts.url+path, body)
	if err != nil {
		ts.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func decode[T any](t testing.TB, resp *http.Response) T {
	t.Helper()
	var v T
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("decode %T: %v", v, err)
	}
	return v
}

func wantStatus(t testing.TB, resp *http.Response, want int) {
	t.Helper()
	if resp.StatusCode != want {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: status %d, want %d; body %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, want, body)
	}
}

func (ts *testServer) create(title string) session.Summary {
	ts.t.Helper()
	resp := ts.do("POST", "/api/sessions", strings.NewReader(`{"title":`+jsonString(title)+`}`))
	wantStatus(ts.t, resp, http.StatusCreated)
	return decode[session.Summary](ts.t, resp)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{200, 10, 10, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	tests := []struct {
		name   string
		path   string
		hdr    []string
		bearer bool
		want   int
	}{
		{name: "no token", path: "/api/sessions", want: http.StatusUnauthorized},
		{name: "wrong bearer", path: "/api/sessions", hdr: []string{"Authorization", "Bearer nope"}, want: http.StatusUnauthorized},
		{name: "bearer", path: "/api/sessions", bearer: true, want: http.StatusOK},
		{name: "wrong cookie", path: "/api/sessions", hdr: []string{"Cookie", "myco_token_" + port(ts) + "=nope"}, want: http.StatusUnauthorized},
		{name: "cookie", path: "/api/sessions", hdr: []string{"Cookie", "myco_token_" + port(ts) + "=" + testToken}, want: http.StatusOK},
		{name: "token in query sets cookie", path: "/?token=" + testToken, want: http.StatusSeeOther},
		{name: "wrong token in query", path: "/?token=nope", want: http.StatusUnauthorized},
		{name: "token in query of a scheme-relative path", path: "//evil.example/?token=" + testToken, want: http.StatusSeeOther},
		{name: "page without token", path: "/", want: http.StatusUnauthorized},
		{name: "events without token", path: "/api/sessions/x/events", want: http.StatusUnauthorized},
		{name: "static without token", path: "/static/page-home.js", want: http.StatusUnauthorized},
		{name: "the tab's icon", path: "/static/favicon.svg", bearer: true, want: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", ts.url+tt.path, nil)
			if tt.bearer {
				req.Header.Set("Authorization", "Bearer "+testToken)
			}
			for i := 0; i+1 < len(tt.hdr); i += 2 {
				req.Header.Set(tt.hdr[i], tt.hdr[i+1])
			}
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			wantStatus(t, resp, tt.want)
			if tt.want == http.StatusSeeOther {
				loc := resp.Header.Get("Location")
				if strings.Contains(loc, "token") {
					t.Errorf("redirect keeps the token: %q", loc)
				}
				if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") {
					t.Errorf("redirect leaves the server: %q", loc)
				}
				ck := resp.Header.Get("Set-Cookie")
				for _, want := range []string{"myco_token_" + port(ts) + "=" + testToken, "HttpOnly", "SameSite=Strict", "Max-Age=2592000"} {
					if !strings.Contains(ck, want) {
						t.Errorf("Set-Cookie %q lacks %q", ck, want)
					}
				}
			}
		})
	}
}

func port(ts *testServer) string { return ts.host[strings.LastIndex(ts.host, ":")+1:] }

func TestHostAndOriginChecks(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	id := ts.create("x").ID
	tests := []struct {
		name   string
		method string
		path   string
		hdr    []string
		want   int
	}{
		{"own host", "GET", "/api/sessions", []string{"Host", ts.host}, 200},
		{"localhost name", "GET", "/api/sessions", []string{"Host", "localhost:" + port(ts)}, 200},
		{"rebinding host", "GET", "/api/sessions", []string{"Host", "evil.example:" + port(ts)}, 403},
		{"other port", "GET", "/api/sessions", []string{"Host", "127.0.0.1:1"}, 403},
		{"foreign origin post", "POST", "/api/sessions/" + id + "/archive", []string{"Origin", "http://evil.example"}, 403},
		{"foreign origin patch", "PATCH", "/api/sessions/" + id, []string{"Origin", "https://evil.example"}, 403},
		{"null origin", "POST", "/api/sessions", []string{"Origin", "null"}, 403},
		{"cross-site fetch", "POST", "/api/sessions", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"own origin post", "POST", "/api/sessions", []string{"Origin", ts.url}, 201},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			if tt.method != "GET" {
				body = strings.NewReader(`{}`)
			}
			resp := ts.do(tt.method, tt.path, body, tt.hdr...)
			wantStatus(t, resp, tt.want)
		})
	}
	if ok, _ := ts.sessions.IsArchived(id); ok {
		t.Error("a refused request archived the session")
	}
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	for _, path := range []string{"/api/sessions", "/", "/nope"} {
		resp := ts.do("GET", path, nil, "Accept", "text/html")
		h := resp.Header
		csp := h.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", path, h)
		}
	}
}

func TestSessionsAPI(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	a := ts.create("Alpha flaky test")
	b := ts.create("Beta refactor")
	if a.ID == "" || a.Threads != 1 || a.Messages != 0 {
		t.Fatalf("created %+v", a)
	}

	list := decode[[]session.Summary](t, ts.do("GET", "/api/sessions", nil))
	if len(list) != 2 || list[0].ID != b.ID {
		t.Fatalf("list %+v, want newest (%s) first", list, b.ID)
	}
	list = decode[[]session.Summary](t, ts.do("GET", "/api/sessions?q=FLAKY", nil))
	if len(list) != 1 || list[0].ID != a.ID {
		t.Fatalf("q=FLAKY gave %+v", list)
	}
	list = decode[[]session.Summary](t, ts.do("GET", "/api/sessions?q="+b.ID[len(b.ID)-6:], nil))
	if len(list) != 1 || list[0].ID != b.ID {
		t.Fatalf("q by id gave %+v", list)
	}
	// A session's name is found as its title is.
	wantStatus(t, ts.do("PATCH", "/api/sessions/"+b.ID, strings.NewReader(`{"name":"explore-phase"}`)), http.StatusOK)
	list = decode[[]session.Summary](t, ts.do("GET", "/api/sessions?q=EXPLORE", nil))
	if len(list) != 1 || list[0].ID != b.ID || list[0].Name != "explore-phase" {
		t.Fatalf("q by name gave %+v", list)
	}

	doc := decode[map[string]any](t, ts.do("GET", "/api/sessions/"+a.ID, nil))
	if doc["cwd"] != "/work" || doc["schema"] != float64(1) {
		t.Errorf("document %v", doc)
	}

	resp := ts.do("PATCH", "/api/sessions/"+a.ID, strings.NewReader(`{"title":"Renamed","scratchpad":"notes","links":[{"url":"https://go.dev","title":"Go"}]}`))
	wantStatus(t, resp, 200)
	if got := decode[session.Summary](t, resp); got.Title != "Renamed" {
		t.Errorf("patched title %q", got.Title)
	}
	stored, _ := ts.sessions.Load(a.ID)
	if stored.Title != "Renamed" || stored.Scratchpad != "notes" || len(stored.Links) != 1 {
		t.Errorf("stored %+v", stored)
	}

	wantStatus(t, ts.do("PATCH", "/api/sessions/"+a.ID, strings.NewReader(`{"links":[{"url":"javascript:alert(1)"}]}`)), 400)
	wantStatus(t, ts.do("PATCH", "/api/sessions/"+a.ID, strings.NewReader(`{"titel":"typo"}`)), 400)
	wantStatus(t, ts.do("GET", "/api/sessions/0000-nope", nil), 404)
	wantStatus(t, ts.do("GET", "/api/sessions/..%2f..%2fetc", nil), 400)
}

func TestArchiveRestoreAPI(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	s := ts.create("to archive")
	side := filepath.Join(ts.dir, "session", s.ID+".console")
	os.WriteFile(side, []byte("$ ls\n"), 0o600)

	wantStatus(t, ts.do("POST", "/api/sessions/"+s.ID+"/archive", nil), 200)
	if _, err := os.Stat(filepath.Join(ts.dir, "session", "archived", s.ID+".json")); err != nil {
		t.Fatalf("document not in archived/: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ts.dir, "session", "archived", s.ID+".console")); err != nil {
		t.Fatalf("sidecar not in archived/: %v", err)
	}
	wantStatus(t, ts.do("POST", "/api/sessions/"+s.ID+"/archive", nil), 409)
	if l := decode[[]session.Summary](t, ts.do("GET", "/api/sessions", nil)); len(l) != 0 {
		t.Errorf("active list after archive: %+v", l)
	}
	if l := decode[[]session.Summary](t, ts.do("GET", "/api/sessions?archived=1", nil)); len(l) != 1 {
		t.Errorf("archived list: %+v", l)
	}
	wantStatus(t, ts.do("PATCH", "/api/sessions/"+s.ID, strings.NewReader(`{"title":"x"}`)), 409)

	wantStatus(t, ts.do("POST", "/api/sessions/"+s.ID+"/restore", nil), 200)
	if _, err := os.Stat(filepath.Join(ts.dir, "session", s.ID+".json")); err != nil {
		t.Fatalf("document not back in session/: %v", err)
	}
	wantStatus(t, ts.do("POST", "/api/sessions/"+s.ID+"/restore", nil), 409)
}

func TestLockedElsewhereIsConflict(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	s := ts.create("busy")
	// A second store on the same folder stands in for another process:
	// flock excludes another open file description just the same.
	other, err := session.Open(filepath.Join(ts.dir, "session"), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := other.Lock(s.ID, session.Owner{PID: 4242, URL: "http://127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	resp := ts.do("POST", "/api/sessions/"+s.ID+"/archive", nil)
	wantStatus(t, resp, 409)
	body := decode[map[string]any](t, resp)
	if body["pid"] != float64(4242) || body["url"] != "http://127.0.0.1:9" || !strings.Contains(body["error"].(string), "4242") {
		t.Errorf("409 body %v", body)
	}
}

func TestDamagedDocumentIsReportedAndKept(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	id := "0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90"
	path := filepath.Join(ts.dir, "session", id+".json")
	bad := []byte(`{"schema": 1, "id": "` + id + `", "title": "half`)
	os.WriteFile(path, bad, 0o600)
	list := decode[[]session.Summary](t, ts.do("GET", "/api/sessions", nil))
	if len(list) != 1 || list[0].Damaged == "" {
		t.Fatalf("list %+v", list)
	}
	wantStatus(t, ts.do("GET", "/api/sessions/"+id, nil), 409)
	wantStatus(t, ts.do("POST", "/api/sessions/"+id+"/archive", nil), 409)
	wantStatus(t, ts.do("PATCH", "/api/sessions/"+id, strings.NewReader(`{"title":"fix"}`)), 409)
	if got, _ := os.ReadFile(path); !bytes.Equal(got, bad) {
		t.Errorf("damaged document changed: %q", got)
	}
}

func TestImagesAPI(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	img := pngBytes(t)
	resp := ts.do("POST", "/api/images", bytes.NewReader(img), "Content-Type", "application/octet-stream")
	wantStatus(t, resp, 200)
	ref := decode[session.ImageRef](t, resp)
	if ref.MediaType != "image/png" || len(ref.SHA256) != 64 {
		t.Fatalf("ref %+v", ref)
	}

	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("image", "cat.txt") // the name is not trusted
	fw.Write(img)
	mw.Close()
	resp = ts.do("POST", "/api/images", &form, "Content-Type", mw.FormDataContentType())
	wantStatus(t, resp, 200)
	if got := decode[session.ImageRef](t, resp); got != ref {
		t.Errorf("multipart ref %+v, want %+v", got, ref)
	}

	wantStatus(t, ts.do("POST", "/api/images", strings.NewReader("<svg onload=alert(1)>"), "Content-Type", "image/png"), 400)
	wantStatus(t, ts.do("POST", "/api/images", bytes.NewReader(make([]byte, 2<<20)), "Content-Type", "image/png"), 413)

	resp = ts.do("GET", "/images/"+ref.SHA256, nil)
	wantStatus(t, resp, 200)
	got, _ := io.ReadAll(resp.Body)
	if !bytes.Equal(got, img) || resp.Header.Get("Content-Type") != "image/png" {
		t.Errorf("served %d bytes as %q", len(got), resp.Header.Get("Content-Type"))
	}
	if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("image CSP %q", resp.Header.Get("Content-Security-Policy"))
	}
	missing := strings.Repeat("ab", 32)
	resp = ts.do("GET", "/images/"+missing, nil)
	wantStatus(t, resp, 404)
	if body := decode[map[string]string](t, resp); !strings.Contains(body["error"], missing) {
		t.Errorf("missing image error %q does not name it", body["error"])
	}
	wantStatus(t, ts.do("GET", "/images/..%2f..%2fsettings.json", nil), 400)
}

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	id, name, data string
}

func readEvents(t *testing.T, r io.Reader, out chan<- sseEvent) {
	sc := bufio.NewScanner(r)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.name != "" {
				out <- ev
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			ev.data += line[6:]
		}
	}
	close(out)
}

func nextEvent(t *testing.T, events <-chan sseEvent, name string) sseEvent {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("stream ended before %q", name)
			}
			t.Logf("event %s %s %s", ev.id, ev.name, ev.data)
			if ev.name == name {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %q event", name)
		}
	}
}

// nextAutoTitle is the next title event that is not the first words
// (which name a session at once, until the automatic title comes).
func nextAutoTitle(t *testing.T, events <-chan sseEvent) sseEvent {
	t.Helper()
	for {
		ev := nextEvent(t, events, "title")
		if !strings.Contains(ev.data, `"first_words":true`) {
			return ev
		}
	}
}

func TestEventsSnapshotAndTitle(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	s := ts.create("Before")
	resp := ts.do("GET", "/api/sessions/"+s.ID+"/events", nil, "Last-Event-ID", "not-a-number")
	wantStatus(t, resp, 200)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events := make(chan sseEvent, 16)
	go readEvents(t, resp.Body, events)
	snap := nextEvent(t, events, "snapshot")
	var data map[string]any
	json.Unmarshal([]byte(snap.data), &data)
	if data["title"] != "Before" || data["status"] != "idle" {
		t.Errorf("snapshot %v", data)
	}

	wantStatus(t, ts.do("PATCH", "/api/sessions/"+s.ID, strings.NewReader(`{"title":"After"}`)), 200)
	ev := nextEvent(t, events, "title")
	if !strings.Contains(ev.data, `"After"`) || !(numeric(ev.id) > numeric(snap.id)) {
		t.Errorf("title event %+v after snapshot id %s", ev, snap.id)
	}

	// A change by another process (here: the store directly, as the CLI
	// would) reaches the open stream too.
	if _, err := ts.sessions.Update(s.ID, func(d *session.Document) error { d.Title = "From CLI"; return nil }); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, events, "title"); !strings.Contains(ev.data, "From CLI") {
		t.Errorf("watched title event %+v", ev)
	}
}

func numeric(s string) int64 {
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	return n
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

func TestSearchAPI(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	s := ts.create("Parser work")
	if _, err := ts.sessions.Update(s.ID, func(d *session.Document) error {
		d.Scratchpad = "remember the flaky parser test"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ts.create("Other")
	groups := decode[[]session.Group](t, ts.do("GET", "/api/search?q=flaky+parser", nil))
	if len(groups) != 1 || groups[0].Session != s.ID || groups[0].Total != 1 || groups[0].Hits[0].Kind != session.HitScratchpad {
		t.Errorf("groups %+v", groups)
	}
	one := decode[[]session.Group](t, ts.do("GET", "/api/search?q=flaky&session="+s.ID, nil))
	if len(one) != 1 || one[0].Session != s.ID {
		t.Errorf("one session's group: %+v", one)
	}
	if groups := decode[[]session.Group](t, ts.do("GET", "/api/search?q=nowhere", nil)); groups == nil || len(groups) != 0 {
		t.Errorf("groups for nothing: %+v", groups)
	}
	wantStatus(t, ts.do("GET", "/api/search?q=", nil), 400)
	wantStatus(t, ts.do("GET", "/api/search?q=flaky&session=0193c7b2-0000-7000-8000-00000000dead", nil), 404)
}

// TestSearchPartialMore: "N more in this session" fetches that session's
// group with every hit; the list shows three.
func TestSearchPartialMore(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	s := ts.create("Flood")
	if _, err := ts.sessions.Update(s.ID, func(d *session.Document) error {
		for i := range 5 {
			d.Threads[0].Messages = append(d.Threads[0].Messages, session.Message{
				ID: fmt.Sprintf("m%d", i), Role: "user", Human: true,
				Content: []session.Block{{Type: session.BlockText, Text: "zebra again"}},
			})
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	count := func(path string) (hits, more int) {
		t.Helper()
		resp := ts.do("GET", path, nil)
		wantStatus(t, resp, 200)
		body, _ := io.ReadAll(resp.Body)
		return strings.Count(string(body), `data-testid="search-hit"`), strings.Count(string(body), "2 more in this session")
	}
	if hits, more := count("/partials/search?q=zebra"); hits != 3 || more != 1 {
		t.Errorf("list: %d hits, %d mores; want 3 and one", hits, more)
	}
	if hits, more := count("/partials/search?q=zebra&session=" + s.ID); hits != 5 || more != 0 {
		t.Errorf("one session: %d hits, %d mores; want 5 and none", hits, more)
	}
}

func TestEventStreamHeartbeat(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	s := ts.create("quiet")
	resp := ts.do("GET", "/api/sessions/"+s.ID+"/events", nil)
	wantStatus(t, resp, 200)
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("stream ended")
			}
			if strings.HasPrefix(l, ":") {
				return // a comment line: the stream stays alive with nothing to say
			}
		case <-timeout:
			t.Fatal("no heartbeat comment on an idle stream")
		}
	}
}
