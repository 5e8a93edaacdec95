package server_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"myco/static"
)

// TestStaticCaching: pages link the assets under this build's version,
// which the browser may keep for good; the bare name is revalidated by
// ETag; both come gzipped to a browser that takes it.
func TestStaticCaching(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	want, err := fs.ReadFile(static.FS, "page-home.js")
	if err != nil {
		t.Fatal(err)
	}
	versioned := static.URL("page-home.js")
	tests := []struct {
		name      string
		path      string
		gzip      bool
		wantCache string
	}{
		{"versioned", versioned, false, "public, max-age=31536000, immutable"},
		{"versioned gzipped", versioned, true, "public, max-age=31536000, immutable"},
		{"bare name", "/static/page-home.js", false, "no-cache"},
		{"bare name gzipped", "/static/page-home.js", true, "no-cache"},
		{"another build's version", "/static/0123456789ab/page-home.js", false, "no-cache"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := "identity"
			if tt.gzip {
				enc = "gzip, deflate, br, zstd"
			}
			resp := ts.do("GET", tt.path, nil, "Accept-Encoding", enc)
			wantStatus(t, resp, http.StatusOK)
			if got := resp.Header.Get("Cache-Control"); got != tt.wantCache {
				t.Errorf("Cache-Control = %q, want %q", got, tt.wantCache)
			}
			if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, "text/javascript") {
				t.Errorf("Content-Type = %q", got)
			}
			if got := resp.Header.Get("Vary"); got != "Accept-Encoding" {
				t.Errorf("Vary = %q", got)
			}
			body := readBody(t, resp, tt.gzip)
			if !bytes.Equal(body, want) {
				t.Errorf("body is %d bytes, want the file's %d", len(body), len(want))
			}
			etag := resp.Header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			again := ts.do("GET", tt.path, nil, "Accept-Encoding", enc, "If-None-Match", etag)
			wantStatus(t, again, http.StatusNotModified)
		})
	}
}

func readBody(t *testing.T, resp *http.Response, gzipped bool) []byte {
	t.Helper()
	if got := resp.Header.Get("Content-Encoding"); (got == "gzip") != gzipped {
		t.Fatalf("Content-Encoding = %q, gzipped want %v", got, gzipped)
	}
	var r io.Reader = resp.Body
	if gzipped {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStaticETagsDiffer: the gzipped and plain bodies are two
// representations, and an ETag names one of them.
func TestStaticETagsDiffer(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	plain := ts.do("GET", "/static/style.css", nil, "Accept-Encoding", "identity").Header.Get("ETag")
	gz := ts.do("GET", "/static/style.css", nil, "Accept-Encoding", "gzip").Header.Get("ETag")
	if plain == "" || plain == gz {
		t.Errorf("ETags plain %q and gzipped %q", plain, gz)
	}
	refused := ts.do("GET", "/static/style.css", nil, "Accept-Encoding", "gzip;q=0")
	if refused.Header.Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 got gzip")
	}
}

// TestStaticMissing: a name that is not an asset, versioned or not, is a
// plain 404, and a path cannot climb out of the assets.
func TestStaticMissing(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	for _, p := range []string{"/static/app.js", static.URL("nope.js"), "/static/../go.mod", "/static/" + static.Version() + "/../embed.go"} {
		t.Run(p, func(t *testing.T) {
			wantStatus(t, ts.do("GET", p, nil), http.StatusNotFound)
		})
	}
}

// TestPageLinksVersionedAssets: a page links its entry and stylesheets
// under this build's version.
func TestPageLinksVersionedAssets(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	resp := ts.do("GET", "/", nil)
	wantStatus(t, resp, http.StatusOK)
	b, _ := io.ReadAll(resp.Body)
	for _, name := range []string{"page-home.js", "style.css", "chroma.css", "favicon.svg"} {
		if !bytes.Contains(b, []byte(`"`+static.URL(name)+`"`)) {
			t.Errorf("the home page does not link %s", static.URL(name))
		}
	}
}
