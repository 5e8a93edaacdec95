package mcphost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"myco/internal/atomicfile"
	"myco/profiles"
)

// OAuth for MCP servers over HTTP (the MCP authorization spec): a server
// that answers 401 with a Bearer challenge needs the person to sign in.
// The go-sdk's AuthorizationCodeHandler does the protocol (discovery of
// the authorization server, dynamic client registration, PKCE, the code
// exchange); this file gives it what a local app adds around it:
//
//   - A connection never waits for a person. Without a grant the
//     server's state is "sign-in needed" and the panel offers Sign in.
//   - Sign in (Login) starts a flow whose authorization URL the tab
//     opens; the authorization server sends the browser back to myco's
//     own callback page (Callback), which ends the flow.
//   - The grant (client registration, token endpoint, tokens) is kept in
//     the profile's mcp-oauth.json (0600), and refreshed tokens are
//     written back, so a restart of myco needs no new sign-in.

// ErrSignIn marks a server that needs the person to sign in.
var ErrSignIn = errors.New("sign-in needed")

// signInTimeout bounds a sign-in: the person finds the page, types a
// password, approves.
const signInTimeout = 10 * time.Minute

// grant is what a sign-in left for one server: enough to use and refresh
// its token without the person.
type grant struct {
	URL          string        `json:"url"` // the server's URL when signed in
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	TokenURL     string        `json:"token_url"`
	AuthStyle    int           `json:"auth_style,omitempty"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

// grants is the file of every server's grant, by server name.
type grants struct {
	path string // "" keeps them in memory only
	mu   sync.Mutex
	all  map[string]grant
}

func loadGrants(path string) *grants {
	g := &grants{path: path, all: map[string]grant{}}
	if path == "" {
		return g
	}
	if raw, err := os.ReadFile(path); err == nil {
		// A damaged file reads as no grants (each server asks to sign in
		// again) and is replaced at the next sign-in, not before.
		_ = json.Unmarshal(raw, &g.all)
	}
	return g
}

// get is name's grant, if one was made for url (a server moved to another
// URL signs in again: its old token is not sent to the new address).
func (g *grants) get(name, url string) (grant, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gr, ok := g.all[name]
	return gr, ok && gr.URL == url && gr.Token != nil
}

func (g *grants) put(name string, gr grant) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.all[name] = gr
	return g.saveLocked()
}

func (g *grants) drop(name string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.all[name]; !ok {
		return nil
	}
	delete(g.all, name)
	return g.saveLocked()
}

func (g *grants) saveLocked() error {
	if g.path == "" {
		return nil
	}
	raw, err := json.MarshalIndent(g.all, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(g.path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(g.path, raw, atomicfile.Options{})
}

// savingSource writes a refreshed token back to the grants.
type savingSource struct {
	src   oauth2.TokenSource
	save  func(*oauth2.Token)
	mu    sync.Mutex
	known string // the access token last saved
}

func (s *savingSource) Token() (*oauth2.Token, error) {
	tok, err := s.src.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	changed := tok.AccessToken != s.known
	s.known = tok.AccessToken
	s.mu.Unlock()
	if changed {
		s.save(tok)
	}
	return tok, nil
}

// source is the token source of a grant, refreshing at its token URL.
func (gr grant) source(client *http.Client, save func(*oauth2.Token)) oauth2.TokenSource {
	cfg := &oauth2.Config{
		ClientID: gr.ClientID, ClientSecret: gr.ClientSecret, Scopes: gr.Scopes,
		Endpoint: oauth2.Endpoint{TokenURL: gr.TokenURL, AuthStyle: oauth2.AuthStyle(gr.AuthStyle)},
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, client)
	return &savingSource{src: cfg.TokenSource(ctx, gr.Token), save: save, known: gr.Token.AccessToken}
}

// connectAuth is the OAuthHandler of a connection: it sends the grant's
// token, and on a 401 says the person must sign in, never starting a
// flow by itself.
type connectAuth struct {
	s   *server
	src oauth2.TokenSource // nil: no grant yet
}

func (a *connectAuth) TokenSource(context.Context) (oauth2.TokenSource, error) { return a.src, nil }

func (a *connectAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		// A 403 is a refusal a sign-in would not change (or a step-up
		// myco does not do): the connection fails, and retries.
		return fmt.Errorf("the server refused the request (status %d)", resp.StatusCode)
	}
	a.s.mu.Lock()
	a.s.signIn = true
	a.s.mu.Unlock()
	if a.src != nil {
		return fmt.Errorf("%w: the server refused the saved sign-in (status %d)", ErrSignIn, resp.StatusCode)
	}
	return fmt.Errorf("%w: the server asks you to sign in (status %d)", ErrSignIn, resp.StatusCode)
}

// usesOAuth reports whether cfg's connections may sign in: an HTTP server
// that sends no Authorization header of its own.
func usesOAuth(cfg profiles.MCPServer) bool {
	if cfg.URL == "" {
		return false
	}
	for k := range cfg.Headers {
		if strings.EqualFold(k, "Authorization") {
			return false
		}
	}
	return true
}

// oauthFor is the OAuthHandler of a new connection of s, nil for a server
// that does not sign in.
func (s *server) oauthFor(cfg profiles.MCPServer, client *http.Client) auth.OAuthHandler {
	if !usesOAuth(cfg) {
		return nil
	}
	a := &connectAuth{s: s}
	if gr, ok := s.h.grants.get(s.name, cfg.URL); ok {
		a.src = gr.source(client, s.saveToken(gr))
	}
	return a
}

// saveToken writes a refreshed token of gr back to the grants.
func (s *server) saveToken(gr grant) func(*oauth2.Token) {
	var mu sync.Mutex
	return func(tok *oauth2.Token) {
		mu.Lock()
		defer mu.Unlock()
		gr.Token = tok
		if err := s.h.grants.put(s.name, gr); err != nil {
			s.h.log.Warn("mcp sign-in not saved", "server", s.name, "err", err)
		}
	}
}

// flow is a sign-in waiting for the person's browser to come back.
type flow struct {
	server string
	answer chan flowAnswer
}

// flowAnswer is what the browser brought back: a code, or the
// authorization server's refusal.
type flowAnswer struct {
	res *auth.AuthorizationResult
	err error
}

// Login starts a sign-in to server name: it returns the authorization URL
// for the person to open, with redirectURL (myco's callback page) as the
// address the authorization server sends the browser back to. The flow
// then waits, up to signInTimeout, for Callback; a grant is saved and the
// server reconnects when it ends well.
func (h *Host) Login(ctx context.Context, name, redirectURL string) (string, error) {
	s := h.get(name)
	if s == nil {
		return "", fmt.Errorf("%w: no MCP server named %s", ErrNotFound, name)
	}
	cfg := s.config()
	if !usesOAuth(cfg) {
		return "", fmt.Errorf("%w: %s does not sign in with OAuth (only a url server without an Authorization header does)", ErrNoSignIn, name)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	urls := make(chan string, 1)
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName:              "myco",
			RedirectURIs:            []string{redirectURL},
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}},
		RedirectURL:         redirectURL,
		RequestRefreshToken: true,
		Client:              client,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			u, err := url.Parse(args.URL)
			if err != nil {
				return nil, err
			}
			f := &flow{server: name, answer: make(chan flowAnswer, 1)}
			state := u.Query().Get("state")
			h.flowsMu.Lock()
			h.flows[state] = f
			h.flowsMu.Unlock()
			defer func() {
				h.flowsMu.Lock()
				delete(h.flows, state)
				h.flowsMu.Unlock()
			}()
			urls <- args.URL
			select {
			case a := <-f.answer:
				return a.res, a.err
			case <-ctx.Done():
				return nil, fmt.Errorf("the sign-in was not finished within %s", signInTimeout)
			}
		},
		// The grant is kept as soon as the code is exchanged, and every
		// refresh after that (the flow itself asks for the token again,
		// which may refresh it, and refresh tokens may be single-use).
		NewTokenSource: func(_ context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			gr := grant{
				URL: cfg.URL, ClientID: c.ClientID, ClientSecret: c.ClientSecret, TokenURL: c.Endpoint.TokenURL,
				AuthStyle: int(c.Endpoint.AuthStyle), Scopes: c.Scopes, Token: tok,
			}
			if err := h.grants.put(name, gr); err != nil {
				return nil, fmt.Errorf("could not keep the sign-in: %w", err)
			}
			return gr.source(client, s.saveToken(gr)), nil
		},
	})
	if err != nil {
		return "", err
	}
	// The flow needs the server's 401 and its challenge: ask it once, as
	// a connection would, without a token.
	req, resp, err := probe(ctx, client, cfg)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusUnauthorized {
		resp.Body.Close()
		return "", fmt.Errorf("%w: %s did not ask to sign in (it answered %s)", ErrNoSignIn, name, resp.Status)
	}
	flowCtx, cancel := context.WithTimeout(s.ctx, signInTimeout)
	failed := make(chan error, 1)
	go func() {
		defer cancel()
		if err := handler.Authorize(flowCtx, req, resp); err != nil {
			h.log.Warn("mcp sign-in failed", "server", name, "err", err)
			s.mu.Lock()
			s.lastError = "sign-in failed: " + err.Error()
			s.mu.Unlock()
			h.changed()
			failed <- err
			return
		}
		h.log.Info("mcp sign-in", "server", name)
		h.Reconnect(name)
	}()
	select {
	case u := <-urls:
		return u, nil
	case err := <-failed:
		return "", fmt.Errorf("could not start the sign-in to %s: %w", name, err)
	case <-ctx.Done():
		cancel()
		return "", ctx.Err()
	}
}

// probe sends the MCP initialize request without a token.
func probe(ctx context.Context, client *http.Client, cfg profiles.MCPServer) (*http.Request, *http.Response, error) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"myco","version":"sign-in"}}}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("could not reach %s: %w", cfg.URL, err)
	}
	return req, resp, nil
}

// Callback ends the sign-in whose state the authorization server sent
// back, with its code (or its error). It returns the server's name.
func (h *Host) Callback(query url.Values) (string, error) {
	state := query.Get("state")
	// An answer is taken once: a reload of the page finds nothing.
	h.flowsMu.Lock()
	f, ok := h.flows[state]
	delete(h.flows, state)
	h.flowsMu.Unlock()
	if !ok || state == "" {
		return "", fmt.Errorf("%w: no sign-in is waiting for this answer (it was finished, or it timed out)", ErrNotFound)
	}
	if e := query.Get("error"); e != "" {
		desc := query.Get("error_description")
		if desc == "" {
			desc = e
		}
		err := fmt.Errorf("the authorization server refused: %s", desc)
		f.answer <- flowAnswer{err: err}
		return f.server, err
	}
	f.answer <- flowAnswer{res: &auth.AuthorizationResult{Code: query.Get("code"), State: state, Iss: query.Get("iss")}}
	return f.server, nil
}

// Logout forgets server name's grant and reconnects it, signed out.
func (h *Host) Logout(name string) error {
	s := h.get(name)
	if s == nil {
		return fmt.Errorf("%w: no MCP server named %s", ErrNotFound, name)
	}
	if err := h.grants.drop(name); err != nil {
		return err
	}
	s.mu.Lock()
	sess := s.session
	s.mu.Unlock()
	if sess != nil {
		_ = sess.Close() // serve sees the end and connects again, without a token
	}
	h.Reconnect(name)
	return nil
}

// SignedIn reports whether server name has a saved grant for its URL.
func (h *Host) SignedIn(name string) bool {
	s := h.get(name)
	if s == nil {
		return false
	}
	_, ok := h.grants.get(name, s.config().URL)
	return ok
}

var (
	// ErrNotFound: no such server, or no such sign-in.
	ErrNotFound = errors.New("not found")
	// ErrNoSignIn: the server does not sign in with OAuth.
	ErrNoSignIn = errors.New("no sign-in")
)
