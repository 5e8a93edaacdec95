package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"myco/e2e/fakellm"
)

// timedFake serves fakellm's handler on its own listener and notes, for
// each chat request, when it arrived and when the fake wrote its first text
// delta. Those two stamps split a turn's first-delta latency into myco's
// part and the fake's.
type timedFake struct {
	URL string
	srv *http.Server

	mu    sync.Mutex
	chats []*fakeTiming
}

// fakeTiming is one chat request as the fake saw it.
type fakeTiming struct {
	arrived, firstDelta time.Time
}

func listenTimedFake() (*timedFake, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake model server: %w", err)
	}
	f := &timedFake{URL: "http://" + ln.Addr().String()}
	fake := fakellm.New()
	f.srv = &http.Server{Handler: f.wrap(fake), ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = f.srv.Serve(ln) }() // ErrServerClosed once closed
	return f, nil
}

func (f *timedFake) Close() error { return f.srv.Close() }

// chatCount is the number of chat requests so far; chat(i) is the i-th.
func (f *timedFake) chatCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.chats)
}

func (f *timedFake) chat(i int) (fakeTiming, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.chats) {
		return fakeTiming{}, false
	}
	return *f.chats[i], true
}

// wrap stamps chat requests: those with tools. Title requests carry none.
func (f *timedFake) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived := time.Now()
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(body, &req) != nil || len(req.Tools) == 0 {
			h.ServeHTTP(w, r)
			return
		}
		t := &fakeTiming{arrived: arrived}
		f.mu.Lock()
		f.chats = append(f.chats, t)
		f.mu.Unlock()
		h.ServeHTTP(&stampWriter{ResponseWriter: w, mu: &f.mu, t: t}, r)
	})
}

// stampWriter notes when the first text delta is written; the fake
// flushes after each event, so that is when it leaves.
type stampWriter struct {
	http.ResponseWriter
	mu *sync.Mutex
	t  *fakeTiming
}

func (s *stampWriter) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"text_delta"`)) {
		now := time.Now()
		s.mu.Lock()
		if s.t.firstDelta.IsZero() {
			s.t.firstDelta = now
		}
		s.mu.Unlock()
	}
	return s.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the real writer to flush.
func (s *stampWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
