package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// Cache-Control of the tab's assets. Under this build's version
// (/static/{version}/…, what pages link) a file never changes, so the
// browser keeps it and asks no more; under its bare name (/static/app.js,
// an old bookmark or another tool) it is revalidated by its ETag.
const (
	cacheImmutable   = "public, max-age=31536000, immutable"
	cacheRevalidated = "no-cache"
)

// assets are the embedded files as served: each one's bytes, gzipped once
// when first asked for, and its ETag. Hand-written rather than echo's Gzip
// middleware, which compresses every response anew and sets neither ETag
// nor caching; http.ServeContent answers If-None-Match and Range.
type assets struct {
	fsys    fs.FS
	version func() string // this build's, computed on first use
	mu      sync.Mutex
	files   map[string]*asset
}

type asset struct {
	name string
	body []byte
	etag string
	gz   func() []byte // gzipped body, made once
}

func newAssets(fsys fs.FS, version func() string) *assets {
	return &assets{fsys: fsys, version: version, files: map[string]*asset{}}
}

// get is the asset name, read and hashed on first use.
func (a *assets) get(name string) (*asset, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if f, ok := a.files[name]; ok {
		return f, nil
	}
	body, err := fs.ReadFile(a.fsys, name)
	if err != nil {
		return nil, fmt.Errorf("read asset %s: %w", name, err)
	}
	sum := sha256.Sum256(body)
	f := &asset{name: name, body: body, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
	f.gz = sync.OnceValue(func() []byte { return gzipped(body) })
	a.files[name] = f
	return f, nil
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // the level is valid
	zw.Write(b)                                              // a bytes.Buffer does not fail
	zw.Close()
	return buf.Bytes()
}

// split parses the path under /static/: a name, and whether it came under
// this build's version. A path under another version (a tab left open
// across an upgrade) gets today's file, revalidated, not kept.
func (a *assets) split(p string) (name string, immutable bool) {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	first, rest, ok := strings.Cut(p, "/")
	if !ok {
		return p, false
	}
	return rest, first == a.version()
}

// staticFile serves the embedded assets, gzipped when the browser takes it.
func (s *Server) staticFile(a *assets) echo.HandlerFunc {
	return func(c echo.Context) error {
		name, immutable := a.split(c.Param("*"))
		f, err := a.get(name)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
			return echo.NewHTTPError(http.StatusNotFound, "no such file")
		}
		if err != nil {
			return err
		}
		f.serve(c.Response(), c.Request(), immutable)
		return nil
	}
}

func (f *asset) serve(w http.ResponseWriter, r *http.Request, immutable bool) {
	h := w.Header()
	ct := mime.TypeByExtension(path.Ext(f.name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	h.Set("Cache-Control", cacheRevalidated)
	if immutable {
		h.Set("Cache-Control", cacheImmutable)
	}
	h.Add("Vary", "Accept-Encoding")
	body, etag := f.body, f.etag
	if acceptsGzip(r) {
		// The gzipped body is another representation: its own ETag.
		body, etag = f.gz(), strings.TrimSuffix(etag, `"`)+`-gz"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// acceptsGzip reads Accept-Encoding as browsers send it ("gzip, deflate,
// br, zstd"); a gzip;q=0 refusal is honoured.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			return strings.ReplaceAll(params, " ", "") != "q=0"
		}
	}
	return false
}
