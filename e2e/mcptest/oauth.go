package mcptest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// OAuthServer is an MCP server over Streamable HTTP at /mcp that takes
// only bearer tokens it issued, with the authorization server the MCP
// authorization spec describes beside it, all on one handler: protected
// resource metadata, authorization server metadata, dynamic client
// registration, /authorize (which approves at once, as a person who
// clicks "Allow" would, and redirects back with a code) and /token
// (authorization code with PKCE S256, and refresh).
type OAuthServer struct {
	// Base is the server's own URL (scheme and host), set by the caller
	// once it listens.
	Base string

	mcp http.Handler

	mu      sync.Mutex
	clients map[string][]string // client ID → redirect URIs
	codes   map[string]issued   // code → what it was issued for
	access  map[string]bool     // valid access tokens
	refresh map[string]bool     // valid refresh tokens
	// Refused makes /authorize send the browser back with access_denied.
	Refused bool
	// Tokens counts the access tokens issued (sign-ins and refreshes).
	Tokens int
	// ExpiresIn is the lifetime of an access token, in seconds (3600 when
	// 0); refresh tokens are used once (rotation).
	ExpiresIn int
}

type issued struct {
	client, redirect, challenge string
}

// NewOAuthServer serves NewServer(name) behind the authorization.
func NewOAuthServer(name string) *OAuthServer {
	srv := NewServer(name)
	return &OAuthServer{
		mcp:     mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil),
		clients: map[string][]string{}, codes: map[string]issued{}, access: map[string]bool{}, refresh: map[string]bool{},
	}
}

// Issued is how many access tokens were issued.
func (o *OAuthServer) Issued() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.Tokens
}

// Revoke forgets every token issued, as a server whose grant was revoked.
func (o *OAuthServer) Revoke() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.access, o.refresh = map[string]bool{}, map[string]bool{}
}

func (o *OAuthServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp":
		writeJSON(w, http.StatusOK, map[string]any{"resource": o.Base + "/mcp", "authorization_servers": []string{o.Base}})
	case "/.well-known/oauth-authorization-server":
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer": o.Base, "authorization_endpoint": o.Base + "/authorize", "token_endpoint": o.Base + "/token",
			"registration_endpoint": o.Base + "/register", "response_types_supported": []string{"code"},
			"grant_types_supported":            []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
			"scopes_supported": []string{"tools", "offline_access"},
		})
	case "/register":
		o.register(w, r)
	case "/authorize":
		o.authorize(w, r)
	case "/token":
		o.token(w, r)
	case "/mcp":
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		o.mu.Lock()
		ok := o.access[tok]
		o.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+o.Base+`/.well-known/oauth-protected-resource/mcp", scope="tools"`)
			http.Error(w, "sign in first", http.StatusUnauthorized)
			return
		}
		o.mcp.ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (o *OAuthServer) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	id := rand.Text()
	o.mu.Lock()
	o.clients[id] = req.RedirectURIs
	o.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (o *OAuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	o.mu.Lock()
	uris, known := o.clients[q.Get("client_id")]
	refused := o.Refused
	o.mu.Unlock()
	redirect := q.Get("redirect_uri")
	if !known || !slices.Contains(uris, redirect) || q.Get("code_challenge_method") != "S256" || q.Get("response_type") != "code" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	back, err := url.Parse(redirect)
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	v := back.Query()
	v.Set("state", q.Get("state"))
	if refused {
		v.Set("error", "access_denied")
		v.Set("error_description", "The person said no.")
	} else {
		code := rand.Text()
		o.mu.Lock()
		o.codes[code] = issued{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge")}
		o.mu.Unlock()
		v.Set("code", code)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (o *OAuthServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		code := r.PostForm.Get("code")
		is, ok := o.codes[code]
		delete(o.codes, code)
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || is.client != r.PostForm.Get("client_id") || is.redirect != r.PostForm.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != is.challenge {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
	case "refresh_token":
		if !o.refresh[r.PostForm.Get("refresh_token")] {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(o.refresh, r.PostForm.Get("refresh_token"))
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access, refresh := rand.Text(), rand.Text()
	o.access[access], o.refresh[refresh] = true, true
	o.Tokens++
	expires := o.ExpiresIn
	if expires == 0 {
		expires = 3600
	}
	writeJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": expires, "refresh_token": refresh, "scope": "tools offline_access"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
