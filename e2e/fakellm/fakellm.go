// Package fakellm is a fake model server for tests. It speaks the
// streaming wire formats of the Anthropic Messages API (POST /v1/messages)
// and of OpenAI chat completions (POST /v1/chat/completions) exactly as the
// official SDKs expect, and answers as the [[directives]] in the last human
// message script it: text, tool calls, usage figures, delays and faults.
// README.md lists the directives. It records every request it receives.
//
// It imports nothing of myco, so tests drive the real clients against it
// as they would drive a provider.
package fakellm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// maxBody bounds a request body; images make bodies large, not this large.
const maxBody = 64 << 20

var errStreamRequired = errors.New("fakellm: stream required (set \"stream\": true)")

// Server is a running fake model server.
type Server struct {
	// URL is the server's root, http://127.0.0.1:PORT. Anthropic clients
	// take it as their base URL; OpenAI clients take URL + "/v1".
	URL string

	mux      *http.ServeMux
	srv      *http.Server
	mu       sync.Mutex
	requests []*Recorded
	attempts map[string]int // faulted attempts per conversation, for xN
	cache    *promptCache   // the providers' prompt caches (cache.go)
}

// Recorded is one request the server received.
type Recorded struct {
	Provider string          `json:"provider"` // "anthropic", "openai", or "" for other paths
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Header   http.Header     `json:"header"`
	Body     json.RawMessage `json:"body"` // the raw body; a JSON string when it was not JSON
	// JSON is Body decoded, nil when the body is not a JSON object.
	JSON map[string]any `json:"-"`
	// Usage is the usage the fake reported for the request, nil when it
	// answered none (an error status).
	Usage *Usage `json:"usage,omitempty"`
}

// Usage is the usage the fake reported, in Anthropic's terms: for OpenAI,
// prompt_tokens is InputTokens + CacheReadInputTokens and cached_tokens is
// CacheReadInputTokens.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	// Scripted is set when a [[usage:…]] directive gave the figures
	// instead of the simulated cache.
	Scripted bool `json:"scripted,omitempty"`
}

// New returns a server that is not listening: serve it on your own
// listener, or use Listen or Start.
func New(opts ...Option) *Server {
	s := &Server{mux: http.NewServeMux(), attempts: map[string]int{}, cache: newPromptCache()}
	for _, o := range opts {
		o(s)
	}
	s.mux.HandleFunc("POST /v1/messages", s.withBody(s.handleAnthropic))
	s.mux.HandleFunc("POST /v1/chat/completions", s.withBody(s.handleOpenAI))
	s.mux.HandleFunc("GET /v1/models", s.handleModels)
	s.mux.HandleFunc("GET /_requests", s.handleRequests)
	s.mux.HandleFunc("POST /_reset", s.handleReset)
	s.mux.HandleFunc("GET /_cache", s.handleCache)
	s.mux.HandleFunc("DELETE /_cache", s.handleClearCache)
	s.mux.HandleFunc("POST /_clock", s.handleClock)
	s.mux.HandleFunc("/", handleNotFound)
	return s
}

// Listen starts a server on addr ("127.0.0.1:0" picks a free port).
func Listen(addr string, opts ...Option) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fakellm: listen: %w", err)
	}
	s := New(opts...)
	s.URL = "http://" + ln.Addr().String()
	// A cut stream is an aborted handler by design: not worth a log line.
	s.srv = &http.Server{Handler: s, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = s.srv.Serve(ln) }() // ErrServerClosed once Close is called
	return s, nil
}

// Start starts a server on a free loopback port for the test and closes it
// when the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := Listen("127.0.0.1:0", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Close stops the server and drops open streams.
func (s *Server) Close() error {
	if s.srv == nil {
		return nil
	}
	return s.srv.Close()
}

// ServeHTTP records model requests (every path but /_…) and answers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/_") {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			http.Error(w, "fakellm: read body: "+err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), recordKey{}, s.record(r, body)))
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	s.mux.ServeHTTP(w, r)
}

// Requests returns every model request received since the start or the
// last Reset, oldest first.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Recorded
	for _, rec := range s.requests {
		out = append(out, *rec)
	}
	return out
}

// Reset forgets the recorded requests, the fault attempt counts and the
// prompt cache (the clock keeps its time).
func (s *Server) Reset() {
	s.mu.Lock()
	s.requests = nil
	s.attempts = map[string]int{}
	s.mu.Unlock()
	s.ClearCache()
}

// recordKey carries a request's *Recorded in its context, for the handler
// to note the usage it reports.
type recordKey struct{}

// noteUsage records the usage reported for r.
func (s *Server) noteUsage(r *http.Request, u usage) {
	rec, _ := r.Context().Value(recordKey{}).(*Recorded)
	if rec == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Usage = &Usage{InputTokens: u.in, OutputTokens: u.out, CacheReadInputTokens: u.cacheRead,
		CacheCreationInputTokens: u.cacheWrite, Scripted: u.scripted}
}

func (s *Server) record(r *http.Request, body []byte) *Recorded {
	rec := Recorded{Provider: providerOf(r.URL.Path), Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone()}
	if json.Valid(body) {
		rec.Body = json.RawMessage(body)
		_ = json.Unmarshal(body, &rec.JSON) // stays nil unless an object
	} else {
		rec.Body, _ = json.Marshal(string(body))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, &rec)
	return &rec
}

func providerOf(path string) string {
	switch path {
	case "/v1/messages":
		return providerAnthropic
	case "/v1/chat/completions":
		return providerOpenAI
	}
	return ""
}

func (s *Server) withBody(h func(http.ResponseWriter, *http.Request, []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body) // ServeHTTP already read it into memory
		h(w, r, body)
	}
}

func (s *Server) handleRequests(w http.ResponseWriter, _ *http.Request) {
	reqs := s.Requests()
	if reqs == nil {
		reqs = []Recorded{}
	}
	writeJSON(w, http.StatusOK, reqs)
}

func (s *Server) handleReset(w http.ResponseWriter, _ *http.Request) {
	s.Reset()
	w.WriteHeader(http.StatusNoContent)
}

func handleNotFound(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusNotFound, map[string]any{
		"type":  "error",
		"error": map[string]any{"type": "not_found_error", "message": fmt.Sprintf("fakellm: no route for %s %s", r.Method, r.URL.Path)},
	})
}

// finishStream ends a stream as play asked: a cut drops the connection
// without the end of the chunked body, as a network failure would.
func finishStream(w http.ResponseWriter, err error) {
	if errors.Is(err, errCut) {
		_ = http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler)
	}
}

func faultMessage(f *fault) string {
	return fmt.Sprintf("fakellm: injected fault %d", f.status)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", "req_fake")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
