package web

import (
	"encoding/json"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// FetchApproval is what a web_fetch approval shows: the host it asks
// for, which "allow for this session" allows (server/live/webfetch.go),
// and the whole URL, which is what the host is told.
type FetchApproval struct {
	Host string
	URL  string
}

// newFetchApproval reads web_fetch's input; an input without a URL it
// can read still shows, as the URL it has.
func newFetchApproval(input []byte) *FetchApproval {
	var in struct {
		URL string `json:"url"`
	}
	_ = json.Unmarshal(input, &in)
	f := &FetchApproval{URL: strings.TrimSpace(in.URL)}
	if u, err := url.Parse(f.URL); err == nil {
		// As server/webfetch.Host names it: what the person approves.
		f.Host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		if ascii, err := idna.Lookup.ToASCII(f.Host); err == nil {
			f.Host = ascii
		}
	}
	if f.Host == "" {
		f.Host = "this host"
	}
	return f
}

// Note says what allowing gives away, and where a host is allowed for
// good.
func (f *FetchApproval) Note() string {
	return "The URL goes to " + f.Host + ", and the page into this conversation. " +
		"To never be asked about a host, add it to web_fetch.allowed_hosts in settings.json."
}
