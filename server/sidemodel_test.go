package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/server"
	"myco/server/llm"
)

// logRecords is a slog handler that hands every record to a channel, so
// a test waits for a log line as it waits for an event.
type logRecords chan slog.Record

func (l logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l logRecords) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l logRecords) WithGroup(string) slog.Handler            { return l }
func (l logRecords) Handle(_ context.Context, r slog.Record) error {
	select {
	case l <- r.Clone():
	default: // a test that stopped reading must not stall the server
	}
	return nil
}

// line renders r as "msg key=value …".
func line(r slog.Record) string {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	return b.String()
}

// waitLog returns the first log line that starts with msg.
func (l logRecords) waitLog(t *testing.T, msg string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case r := <-l:
			if strings.HasPrefix(r.Message, msg) {
				return line(r)
			}
		case <-timeout:
			t.Fatalf("no log line %q", msg)
		}
	}
}

// newSideServer is newChatServer for one OpenAI-compatible provider on
// the fake, with the logs in a channel. Its title_model is the default
// (an Anthropic model the profile cannot call), as for a person with
// only a local model.
func newSideServer(t *testing.T, mutate ...func(*profiles.Settings)) (*chatServer, logRecords) {
	t.Helper()
	fake := fakellm.Start(t)
	settings := profiles.DefaultSettings()
	settings.DefaultModel = "openai/fake-model"
	settings.Providers = map[string]profiles.Provider{"openai": {BaseURL: fake.URL + "/v1"}}
	for _, m := range mutate {
		m(&settings)
	}
	logs := make(logRecords, 1024)
	ts := startServer(t, t.TempDir(), func(o *server.Options) {
		o.DefaultModel, o.Settings = settings.DefaultModel, profiles.NewLiveSettings(settings)
		o.Models = llm.NewRegistry(settings, nil, o.Images)
		o.Logger = slog.New(logs)
		o.RetryDelays = []time.Duration{10 * time.Millisecond, 10 * time.Millisecond}
	})
	return &chatServer{testServer: ts, fake: fake}, logs
}

// sideRequests returns the model of each side request (no tools) whose
// system prompt holds word.
func sideRequests(fake *fakellm.Server, word string) []string {
	var models []string
	for _, r := range fake.Requests() {
		body := string(r.Body)
		if r.JSON != nil && r.JSON["tools"] == nil && strings.Contains(body, word) {
			models = append(models, fmt.Sprint(r.JSON["model"]))
		}
	}
	return models
}

func TestTitleFallsBackToSessionModel(t *testing.T) {
	t.Parallel()
	cs, logs := newSideServer(t)
	s := cs.create("")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "hello [[title:Local Title]]"), http.StatusAccepted)
	if got := data(t, nextAutoTitle(t, st.events))["title"]; got != "Local Title" {
		t.Fatalf("title %q", got)
	}
	if got := sideRequests(cs.fake, "short title"); len(got) != 1 || got[0] != "fake-model" {
		t.Errorf("title requests on %v, want one on the session's model", got)
	}
	if l := logs.waitLog(t, "model passed over"); !strings.Contains(l, "anthropic/claude-haiku-4-5") {
		t.Errorf("log %q does not name the title_model passed over", l)
	}
}

func TestFastModelTitlesAndSummarises(t *testing.T) {
	t.Parallel()
	cs, _ := newSideServer(t, func(s *profiles.Settings) { s.FastModel = "openai/fake-fast" })
	s := cs.create("")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "hello [[title:Fast Title]]"), http.StatusAccepted)
	nextAutoTitle(t, st.events) // after the turn's end
	wantStatus(t, cs.post("POST", s.ID, "/compact", ""), http.StatusOK)
	if got := sideRequests(cs.fake, "short title"); len(got) != 1 || got[0] != "fake-fast" {
		t.Errorf("title requests on %v, want one on fast_model", got)
	}
	if got := sideRequests(cs.fake, "summar"); len(got) != 1 || got[0] != "fake-fast" {
		t.Errorf("summary requests on %v, want one on fast_model", got)
	}
}

func TestSummaryOnSessionModelWhenFastModelTooSmall(t *testing.T) {
	t.Parallel()
	cs, logs := newSideServer(t, func(s *profiles.Settings) {
		s.FastModel = "openai/fake-fast"
		s.Models["openai/fake-fast"] = profiles.Model{ContextWindow: 1000}
	})
	s := cs.create("small")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "hello"), http.StatusAccepted)
	st.until("turn.end")
	wantStatus(t, cs.post("POST", s.ID, "/compact", ""), http.StatusOK)
	if got := sideRequests(cs.fake, "summar"); len(got) != 1 || got[0] != "fake-model" {
		t.Errorf("summary requests on %v, want one on the session's model", got)
	}
	if l := logs.waitLog(t, "compaction summary not on fast_model"); !strings.Contains(l, "window=1000") {
		t.Errorf("log %q does not give the window", l)
	}
}

func TestFailedTitleIsLogged(t *testing.T) {
	t.Parallel()
	cs, logs := newSideServer(t, func(s *profiles.Settings) {
		s.FastModel = "broken/fake-fast"
		// A path the fake does not serve: a 404, which is not retried.
		fake := strings.TrimSuffix(s.Providers["openai"].BaseURL, "/v1")
		s.Providers["broken"] = profiles.Provider{BaseURL: fake + "/nowhere/v1"}
	})
	s := cs.create("")
	st := cs.stream(t, s.ID)
	wantStatus(t, cs.send(s.ID, "hello"), http.StatusAccepted)
	st.until("turn.end")
	if l := logs.waitLog(t, "title not made"); !strings.Contains(l, "model=broken/fake-fast") || !strings.Contains(l, "err=") {
		t.Errorf("log %q does not say which model failed and why", l)
	}
}
