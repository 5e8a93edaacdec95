package webfetch

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr    string
		blocked bool
	}{
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"10.0.0.1", true},
		{"10.255.255.255", true},
		{"172.16.0.1", true},
		{"172.31.255.254", true},
		{"192.168.1.1", true},
		{"169.254.169.254", true}, // cloud metadata
		{"100.64.0.1", true},
		{"100.127.255.254", true},
		{"0.0.0.0", true},
		{"224.0.0.251", true},
		{"255.255.255.255", true},
		{"::1", true},
		{"::", true},
		{"fc00::1", true},
		{"fd12:3456::1", true},
		{"fe80::1", true},
		{"ff02::1", true},
		{"::ffff:127.0.0.1", true},
		{"::ffff:8.8.8.8", true},
		{"64:ff9b::a00:1", true}, // NAT64 of 10.0.0.1
		{"2002:a00:1::1", true},  // 6to4 of 10.0.0.1
		{"8.8.8.8", false},
		{"93.184.215.14", false},
		{"172.32.0.1", false},
		{"100.128.0.1", false},
		{"2606:4700:4700::1111", false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			err := CheckAddr(netip.MustParseAddr(tt.addr))
			if got := err != nil; got != tt.blocked {
				t.Fatalf("CheckAddr(%s) = %v, want blocked %v", tt.addr, err, tt.blocked)
			}
			if err != nil && !errors.Is(err, ErrBlockedAddress) {
				t.Fatalf("CheckAddr(%s) = %v, want ErrBlockedAddress", tt.addr, err)
			}
		})
	}
}

// site is a test server on loopback, which the fetcher reaches as
// docs.test (its Hosts seam) and only so: any other loopback server is
// refused as the internet's would be.
type site struct {
	srv  *httptest.Server
	hits atomic.Int32
}

func newSite(t *testing.T, h http.HandlerFunc) *site {
	t.Helper()
	s := &site{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) addr() netip.AddrPort { return netip.MustParseAddrPort(s.srv.Listener.Addr().String()) }

func (s *site) port() string { return fmt.Sprint(s.addr().Port()) }

// fetcherFor reaches allowed as docs.test (the first) and other.test.
func fetcherFor(opts Options, allowed ...*site) *Fetcher {
	opts.Hosts = map[string]string{}
	for i, s := range allowed {
		opts.Hosts[[]string{"docs.test", "other.test"}[i]] = s.srv.Listener.Addr().String()
	}
	opts.AllowAddr = func(ap netip.AddrPort) bool {
		for _, s := range allowed {
			if ap == s.addr() {
				return true
			}
		}
		return false
	}
	return New(opts)
}

func TestFetchRefusesLocalAddresses(t *testing.T) {
	local := newSite(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") })
	allowed := newSite(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "public") })
	f := fetcherFor(Options{}, allowed)
	f.opts.Hosts["intranet.test"] = "10.0.0.5:80"
	f.opts.Hosts["metadata.test"] = "169.254.169.254:80"
	f.opts.Hosts["loop.test"] = local.srv.Listener.Addr().String()
	urls := []string{
		"http://127.0.0.1:" + local.port() + "/",
		"http://[::1]:" + local.port() + "/",
		"http://[::ffff:127.0.0.1]:" + local.port() + "/",
		"http://localhost:" + local.port() + "/", // resolves to loopback
		"http://loop.test/",                      // a name resolving to loopback
		"http://intranet.test/",                  // a name resolving to 10/8
		"http://metadata.test/latest/meta-data/",
		"http://10.1.2.3/", "http://172.16.5.4/", "http://192.168.0.1/", "http://169.254.169.254/",
		"http://100.64.1.1/", "http://[fc00::1]/", "http://[fd00::2]:8080/", "http://0.0.0.0:" + local.port() + "/",
	}
	for _, u := range urls {
		t.Run(u, func(t *testing.T) {
			_, err := f.Fetch(context.Background(), u, nil)
			var ae *AddressError
			if !errors.Is(err, ErrBlockedAddress) || !errors.As(err, &ae) || err.Error() != ae.Error() {
				t.Fatalf("Fetch(%s) = %v, want an AddressError alone", u, err)
			}
		})
	}
	if n := local.hits.Load(); n != 0 {
		t.Fatalf("the local server was reached %d times", n)
	}
}

func TestFetchRefusesRedirects(t *testing.T) {
	local := newSite(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") })
	other := newSite(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "other page") })
	origin := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-loopback":
			http.Redirect(w, r, "http://127.0.0.1:"+local.port()+"/", http.StatusFound)
		case "/to-private":
			http.Redirect(w, r, "http://10.0.0.1/admin", http.StatusMovedPermanently)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case "/to-other":
			http.Redirect(w, r, "http://other.test/page", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/same-host":
			http.Redirect(w, r, "/final", http.StatusFound)
		default:
			fmt.Fprint(w, "final page")
		}
	})
	f := fetcherFor(Options{}, origin, other)
	approved := func(host string) bool { return host == "docs.test" }
	tests := []struct {
		path string
		want error
	}{
		{"/to-loopback", ErrBlockedAddress},
		{"/to-private", ErrBlockedAddress},
		{"/to-file", ErrScheme},
		{"/loop", ErrTooManyRedirects},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			// Every host approved: what stops these is the check itself.
			_, err := f.Fetch(context.Background(), "http://docs.test"+tt.path, nil)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Fetch(%s) = %v, want %v", tt.path, err, tt.want)
			}
		})
	}
	if n := local.hits.Load(); n != 0 {
		t.Fatalf("the local server was reached %d times", n)
	}

	// A redirect to a host nobody approved is not followed: the agent is
	// told where it leads, and fetching that asks.
	_, err := f.Fetch(context.Background(), "http://docs.test/to-other", approved)
	var re *RedirectError
	if !errors.As(err, &re) || re.Host != "other.test" || re.URL != "http://other.test/page" {
		t.Fatalf("redirect to another host: %v, want a RedirectError to other.test", err)
	}
	if n := other.hits.Load(); n != 0 {
		t.Fatalf("the unapproved host was reached %d times", n)
	}
	// Approved, it is followed.
	page, err := f.Fetch(context.Background(), "http://docs.test/to-other", func(string) bool { return true })
	if err != nil || page.Text != "other page" || page.URL != "http://other.test/page" {
		t.Fatalf("approved redirect: %+v, %v", page, err)
	}
	page, err = f.Fetch(context.Background(), "http://docs.test/same-host", approved)
	if err != nil || page.Text != "final page" {
		t.Fatalf("same-host redirect: %+v, %v", page, err)
	}
}

func TestParseURLRefuses(t *testing.T) {
	tests := []struct {
		url  string
		want error
	}{
		{"file:///etc/passwd", ErrScheme},
		{"ftp://example.com/x", ErrScheme},
		{"gopher://example.com/", ErrScheme},
		{"javascript:alert(1)", ErrScheme},
		{"data:text/plain,hi", ErrScheme},
		{"example.com/page", ErrBadURL},
		{"http:///nohost", ErrBadURL},
		{"https://user:pw@example.com/", ErrBadURL},
		{"http://exa mple.com/", ErrBadURL},
		{"https://example.com/" + strings.Repeat("a", 9000), ErrBadURL},
	}
	f := New(Options{})
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			if _, err := ParseURL(tt.url); !errors.Is(err, tt.want) {
				t.Fatalf("ParseURL(%q) = %v, want %v", tt.url, err, tt.want)
			}
			if _, err := f.Fetch(context.Background(), tt.url, nil); !errors.Is(err, tt.want) {
				t.Fatalf("Fetch(%q) = %v, want %v", tt.url, err, tt.want)
			}
		})
	}
}

func TestHost(t *testing.T) {
	for raw, want := range map[string]string{
		"https://Docs.Python.org./3/": "docs.python.org",
		"http://example.com:8080/":    "example.com",
		"https://аpple.com/":          "xn--pple-43d.com", // Cyrillic а
		"https://bücher.example/":     "xn--bcher-kva.example",
		"http://[::1]:80/":            "::1",
	} {
		u, err := ParseURL(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := Host(u); got != want {
			t.Errorf("Host(%s) = %q, want %q", raw, got, want)
		}
	}
}

func TestFetchBodyLimit(t *testing.T) {
	big := strings.Repeat("x", 2000)
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no Content-Length: the limit holds as it reads
		}
		fmt.Fprint(w, big)
	})
	f := fetcherFor(Options{MaxBytes: 1000}, s)
	for _, path := range []string{"/sized", "/chunked"} {
		if _, err := f.Fetch(context.Background(), "http://docs.test"+path, nil); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%s: %v, want ErrTooLarge", path, err)
		}
	}
	f = fetcherFor(Options{MaxBytes: 2000}, s)
	if p, err := f.Fetch(context.Background(), "http://docs.test/chunked", nil); err != nil || p.Text != big {
		t.Fatalf("a body of exactly the limit: %v", err)
	}
}

// A server that answers nothing, or stops in the middle of its body, is
// given up on at the time limit.
func TestFetchTimeLimit(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stall-body" {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "the start")
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done() // until the client gives up
	})
	f := fetcherFor(Options{Timeout: 300 * time.Millisecond}, s)
	for _, path := range []string{"/stall-headers", "/stall-body"} {
		if _, err := f.Fetch(context.Background(), "http://docs.test"+path, nil); !errors.Is(err, ErrTimeout) {
			t.Fatalf("%s: %v, want ErrTimeout", path, err)
		}
	}
}

func TestFetchTypes(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			w.Write(png)
		case "/untyped-image":
			w.Header()["Content-Type"] = nil // sniffed
			w.Write(png)
		case "/binary":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte{0, 1, 2, 3})
		case "/lying":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("ELF\x00\x00\x01"))
		case "/svg":
			w.Header().Set("Content-Type", "image/svg+xml")
			fmt.Fprint(w, "<svg/>")
		case "/json":
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			fmt.Fprint(w, `{"name": "myco", "tools": ["bash"]}`)
		case "/md":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprint(w, "# Title\n\nSome *text*.\n")
		case "/latin1":
			w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
			w.Write([]byte("caf\xe9"))
		case "/missing":
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, "no such page")
		}
	})
	f := fetcherFor(Options{}, s)
	for path, media := range map[string]string{"/image": "image/png", "/untyped-image": "image/png", "/binary": "application/octet-stream", "/lying": "text/plain", "/svg": "image/svg+xml"} {
		_, err := f.Fetch(context.Background(), "http://docs.test"+path, nil)
		if !errors.Is(err, ErrUnsupportedType) || !strings.Contains(err.Error(), media) {
			t.Errorf("%s: %v, want ErrUnsupportedType naming %s", path, err, media)
		}
	}
	for path, want := range map[string]string{
		"/json":    `{"name": "myco", "tools": ["bash"]}`,
		"/md":      "# Title\n\nSome *text*.\n",
		"/latin1":  "café",
		"/missing": "no such page",
	} {
		p, err := f.Fetch(context.Background(), "http://docs.test"+path, nil)
		if err != nil || p.Text != want || p.Converted {
			t.Errorf("%s: %+v, %v; want the text %q as it came", path, p, err, want)
		}
	}
	p, _ := f.Fetch(context.Background(), "http://docs.test/missing", nil)
	if p == nil || p.Status != http.StatusNotFound {
		t.Errorf("a 404's page: %+v, want status 404", p)
	}
}

// An HTML page is its main content as Markdown: navigation, sidebar,
// footer, scripts and styles left out, links made absolute.
func TestHTMLToMarkdownGolden(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("testdata", "article.html"))
	if err != nil {
		t.Fatal(err)
	}
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	})
	f := fetcherFor(Options{}, s)
	p, err := f.Fetch(context.Background(), "http://docs.test/guides/pathlib", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := "title: " + p.Title + "\n\n" + p.Text + "\n"
	golden := filepath.Join("testdata", "article.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Fatalf("Markdown differs from %s (run with -update to rewrite it):\n%s", golden, got)
	}
	if !p.Converted || p.MediaType != "text/html" {
		t.Fatalf("page %+v: want converted text/html", p)
	}
	for _, absent := range []string{"tracker", "font-family", "Privacy", "Something else"} {
		if strings.Contains(p.Text, absent) {
			t.Errorf("the Markdown keeps %q, which is not the page's content", absent)
		}
	}
}

// The check is on the address dialed: a listener the test opens on
// loopback is refused even when a name the fetcher was given leads there.
func TestControlChecksDialedAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	f := New(Options{Hosts: map[string]string{"rebind.test": ln.Addr().String()}})
	_, err = f.Fetch(context.Background(), "http://rebind.test/", nil)
	if !errors.Is(err, ErrBlockedAddress) {
		t.Fatalf("Fetch = %v, want ErrBlockedAddress", err)
	}
}

// A page too short for readability to call an article is converted
// whole, without its menus, footer and forms.
func TestShortPageConvertedWhole(t *testing.T) {
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Index</title></head><body><nav><a href="/">Home</a></nav>`+
			`<h1>Index</h1><ul><li><a href="/a">A page</a></li></ul><form><input name=q><button>Search</button></form>`+
			`<footer>© someone</footer></body></html>`)
	})
	p, err := fetcherFor(Options{}, s).Fetch(context.Background(), "http://docs.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Index\n\n- [A page](http://docs.test/a)"; p.Text != want || p.Title != "Index" {
		t.Fatalf("page %q (title %q), want %q", p.Text, p.Title, want)
	}
}
