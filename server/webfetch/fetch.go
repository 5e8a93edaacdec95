// Package webfetch fetches one web page for the agent's web_fetch tool
// (server/live/webfetch.go) and turns it into text a model reads: HTML
// into Markdown of its main content, plain text, JSON and Markdown as
// they are. Anything else is refused, saying its type.
//
// What it never does, whatever the URL, its redirects or DNS say:
// connect to an address of this machine or its networks (CheckAddr, on
// the address actually dialed), speak anything but http and https, go
// through a proxy, follow more than a few redirects, read more than a
// bounded body, or wait longer than a bounded time.
package webfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"myco/internal/errkind"

	"golang.org/x/net/idna"
)

// Defaults of Options.
const (
	DefaultMaxBytes     = 5 << 20
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 5
	userAgent           = "myco-web-fetch/1 (a coding agent's page reader)"
	// maxURLBytes bounds a URL: servers refuse longer ones, and a card
	// showing one would be unreadable.
	maxURLBytes = 8 << 10
)

// Errors a fetch ends with, each saying what the agent can do about it.
var (
	ErrScheme           = errkind.New(errkind.Invalid, "web_fetch fetches only http and https URLs")
	ErrBadURL           = errkind.New(errkind.Invalid, "not a URL web_fetch can fetch")
	ErrTooLarge         = errkind.New(errkind.TooLarge, "the response is larger than web_fetch reads")
	ErrTimeout          = errkind.New(errkind.Upstream, "the server did not answer in time")
	ErrTooManyRedirects = errkind.New(errkind.Upstream, "too many redirects")
	ErrUnsupportedType  = errkind.New(errkind.Invalid, "web_fetch reads only HTML, text, JSON and Markdown")
)

// RedirectError is a redirect to a host the fetch may not go to without
// the person's approval: the agent fetches URL itself, which asks.
type RedirectError struct {
	From, URL, Host string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s redirects to %s, on %s, a host not approved for this fetch", e.From, e.URL, e.Host)
}

// Options bound a Fetcher. The zero value is the defaults.
type Options struct {
	// MaxBytes bounds the body read (DefaultMaxBytes); a larger one is
	// refused rather than cut, as a cut HTML page or JSON document reads
	// as whole when it is not.
	MaxBytes int64
	// Timeout bounds one fetch, redirects and body included
	// (DefaultTimeout).
	Timeout time.Duration
	// MaxRedirects bounds the redirects followed (DefaultMaxRedirects).
	MaxRedirects int

	// Test seams. Nothing a person or the model writes reaches them: no
	// setting, flag or input sets them; Go tests do, and cmd/myco's e2e
	// build (build tag myco_e2e) for the browser tests.
	//
	// Hosts sends a host name to another address, as /etc/hosts would
	// ("docs.test" → "127.0.0.1:41234"): tests name a host the internet
	// does not have. The address check still applies to the address.
	Hosts map[string]string
	// AllowAddr passes an address the check would refuse: the test's
	// own server on loopback, and only it.
	AllowAddr func(netip.AddrPort) bool
}

// Fetcher fetches pages. One serves the whole process: its connections
// are pooled per host (each dialed through the address check).
type Fetcher struct {
	opts Options
	tr   *http.Transport
}

// New returns a Fetcher with opts, zero fields taking their defaults.
func New(opts Options) *Fetcher {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxRedirects <= 0 {
		opts.MaxRedirects = DefaultMaxRedirects
	}
	f := &Fetcher{opts: opts}
	f.tr = &http.Transport{
		// No proxy, from the environment or anywhere: through a proxy the
		// address dialed is the proxy's, and the proxy resolves and
		// connects to the target, where no check of ours runs. A machine
		// that reaches the web only through a proxy has no web_fetch;
		// its agent can still use curl through bash, which asks.
		Proxy:                  nil,
		DialContext:            f.dial,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  opts.Timeout,
		MaxIdleConns:           16,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return f
}

// Close drops the pooled connections.
func (f *Fetcher) Close() { f.tr.CloseIdleConnections() }

// MaxBytes is the largest body read.
func (f *Fetcher) MaxBytes() int64 { return f.opts.MaxBytes }

// Timeout is the longest one fetch may take.
func (f *Fetcher) Timeout() time.Duration { return f.opts.Timeout }

// dial connects to addr, through the Hosts seam; every address tried is
// checked by control before the connection is attempted.
func (f *Fetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if to, ok := f.opts.Hosts[strings.ToLower(host)]; ok {
			addr = to
		}
	}
	d := net.Dialer{Timeout: 10 * time.Second, Control: f.control}
	return d.DialContext(ctx, network, addr)
}

// control is the address check, run by the dialer for each address it is
// about to connect to, after name resolution: what is checked is what is
// dialed.
func (f *Fetcher) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot read the address %q", ErrBlockedAddress, address)
	}
	if f.opts.AllowAddr != nil && f.opts.AllowAddr(ap) {
		return nil
	}
	return CheckAddr(ap.Addr())
}

// ParseURL reads a URL the agent gave: absolute, http or https, with a
// host and without credentials (a password in a URL would go to the
// server and into the session's record).
func ParseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if len(raw) > maxURLBytes {
		return nil, fmt.Errorf("%w: it is %d bytes long, over %d", ErrBadURL, len(raw), maxURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	if err := checkURL(u); err != nil {
		return nil, err
	}
	return u, nil
}

func checkURL(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return fmt.Errorf("%w: %q has no scheme; write it in full, as https://%s", ErrBadURL, u.String(), strings.TrimPrefix(u.String(), "//"))
	default:
		return fmt.Errorf("%w, not %s: (%s)", ErrScheme, u.Scheme, u.Redacted())
	}
	if u.Hostname() == "" {
		return fmt.Errorf("%w: %q has no host", ErrBadURL, u.Redacted())
	}
	if u.User != nil {
		return fmt.Errorf("%w: %q holds credentials (user@ or user:password@), which web_fetch does not send", ErrBadURL, u.Redacted())
	}
	return nil
}

// Host is the name approvals are given for: the URL's host, lower case,
// without its port or a trailing dot, and in its ASCII form (xn--…): a
// name that only looks like another (Cyrillic "а" for Latin "a") is not
// approved by, nor shown as, the one it mimics.
func Host(u *url.URL) string {
	return HostName(u.Hostname())
}

// HostName is Host of a host name alone.
func HostName(h string) string {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if ascii, err := idna.Lookup.ToASCII(h); err == nil {
		return ascii
	}
	return h
}

// Page is a fetched page as the agent reads it.
type Page struct {
	// URL is where the page was read: the last one, after redirects.
	URL string
	// Status is the HTTP status; the body of a 404 is read too.
	Status     int
	StatusText string
	// MediaType is the body's type (text/html), without parameters.
	MediaType string
	// Title is the HTML page's title ("" for other types).
	Title string
	// Text is the page as text: Markdown for HTML, the body as it came
	// for text, JSON and Markdown.
	Text string
	// Converted tells Text was made from HTML.
	Converted bool
}

// Fetch GETs rawURL and reads it as text. allowHost says whether a
// redirect may go to a host (nil: to any); the first host is the
// caller's to approve before it calls. A redirect to a host allowHost
// refuses ends the fetch with a *RedirectError.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string, allowHost func(host string) bool) (*Page, error) {
	u, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	client := &http.Client{Transport: f.tr, CheckRedirect: f.checkRedirect(allowHost)}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.1")
	resp, err := client.Do(req)
	if err != nil {
		return nil, f.explain(ctx, err)
	}
	defer resp.Body.Close()
	if resp.ContentLength > f.opts.MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes, over the limit of %d", ErrTooLarge, resp.ContentLength, f.opts.MaxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.opts.MaxBytes+1))
	if err != nil {
		return nil, f.explain(ctx, err)
	}
	if int64(len(body)) > f.opts.MaxBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, f.opts.MaxBytes)
	}
	page := &Page{URL: resp.Request.URL.String(), Status: resp.StatusCode, StatusText: http.StatusText(resp.StatusCode)}
	if err := read(page, resp.Header.Get("Content-Type"), body, resp.Request.URL); err != nil {
		return nil, err
	}
	return page, nil
}

// checkRedirect re-checks each redirect as the first URL was (scheme,
// host, credentials), bounds their number and asks allowHost about a
// new host. The address check runs again when the redirect dials.
func (f *Fetcher) checkRedirect(allowHost func(string) bool) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > f.opts.MaxRedirects {
			return fmt.Errorf("%w: more than %d, the last to %s", ErrTooManyRedirects, f.opts.MaxRedirects, req.URL.Redacted())
		}
		if err := checkURL(req.URL); err != nil {
			return fmt.Errorf("a redirect to %s: %w", req.URL.Redacted(), err)
		}
		host := Host(req.URL)
		if host != Host(via[0].URL) && allowHost != nil && !allowHost(host) {
			return &RedirectError{From: via[len(via)-1].URL.String(), URL: req.URL.String(), Host: host}
		}
		return nil
	}
}

// explain turns a transport error into what the agent is told: the
// address check's, a redirect's, the time limit's.
func (f *Fetcher) explain(ctx context.Context, err error) error {
	var re *RedirectError
	var ae *AddressError
	switch {
	case errors.As(err, &re):
		return re
	case errors.As(err, &ae):
		return ae // without the dial's "dial tcp 10.0.0.5:80:" around it
	case errors.Is(err, ErrBlockedAddress), errors.Is(err, ErrScheme), errors.Is(err, ErrBadURL), errors.Is(err, ErrTooManyRedirects):
		// The url.Error around them repeats the URL: the inner error says it.
		var ue *url.Error
		if errors.As(err, &ue) {
			return ue.Err
		}
		return err
	}
	var ne net.Error
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w: no complete answer within %s", ErrTimeout, f.opts.Timeout)
	}
	return err
}

// read fills page from a body of contentType.
func read(page *Page, contentType string, body []byte, base *url.URL) error {
	media, params, err := mime.ParseMediaType(contentType)
	if contentType == "" || err != nil {
		// No type, or one that cannot be read: the bytes say what they are.
		media, params, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	media = strings.ToLower(media)
	page.MediaType = media
	switch {
	case isHTML(media):
		title, md, err := toMarkdown(body, params["charset"], base)
		if err != nil {
			return err
		}
		page.Title, page.Text, page.Converted = title, md, true
	case isText(media):
		text := decodeText(body, params["charset"])
		if strings.ContainsRune(text, 0) {
			return fmt.Errorf("%w: it says %s, but the body holds binary data", ErrUnsupportedType, media)
		}
		page.Text = text
	default:
		return fmt.Errorf("%w; this is %s", ErrUnsupportedType, media)
	}
	return nil
}

func isHTML(media string) bool {
	return media == "text/html" || media == "application/xhtml+xml"
}

// isText says whether a type is text a model can read as it is.
func isText(media string) bool {
	if strings.HasPrefix(media, "image/") {
		return false // an SVG is XML, but a picture to the person who linked it
	}
	if strings.HasPrefix(media, "text/") {
		return true
	}
	switch media {
	case "application/json", "application/ld+json", "application/x-ndjson", "application/xml",
		"application/javascript", "application/x-javascript", "application/ecmascript",
		"application/yaml", "application/x-yaml", "application/toml", "application/x-sh",
		"application/sql", "application/graphql":
		return true
	}
	return strings.HasSuffix(media, "+json") || strings.HasSuffix(media, "+xml")
}
