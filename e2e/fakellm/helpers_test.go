package fakellm_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"myco/e2e/fakellm"
)

// event is one Server-Sent Event as a client reads it.
type event struct {
	name string
	data string
}

// result is a raw HTTP exchange with the fake.
type result struct {
	status  int
	body    []byte
	events  []event
	readErr error // what reading the body ended with (a cut stream)
}

func post(t *testing.T, url string, body any) result {
	t.Helper()
	payload, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, readErr := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, body: raw, events: parseSSE(raw), readErr: readErr}
}

func parseSSE(raw []byte) []event {
	var events []event
	var cur event
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name != "" || cur.data != "" {
				events = append(events, cur)
			}
			cur = event{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		}
	}
	return events
}

// user and assistant build Anthropic messages.
func user(content any) map[string]any { return map[string]any{"role": "user", "content": content} }
func assistant(content any) map[string]any {
	return map[string]any{"role": "assistant", "content": content}
}

func anthropicReq(system string, msgs ...map[string]any) map[string]any {
	return map[string]any{"model": "claude-test", "max_tokens": 100, "stream": true, "system": system, "messages": msgs}
}

func openaiReq(msgs ...map[string]any) map[string]any {
	return map[string]any{"model": "gpt-test", "stream": true, "stream_options": map[string]any{"include_usage": true}, "messages": msgs}
}

func callAnthropic(t *testing.T, srv *fakellm.Server, system string, msgs ...map[string]any) result {
	t.Helper()
	return post(t, srv.URL+"/v1/messages", anthropicReq(system, msgs...))
}

func callOpenAI(t *testing.T, srv *fakellm.Server, msgs ...map[string]any) result {
	t.Helper()
	return post(t, srv.URL+"/v1/chat/completions", openaiReq(msgs...))
}

func decode(t *testing.T, data string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("event data %q: %v", data, err)
	}
	return m
}

// path walks decoded JSON: path(m, "delta", "text").
func path(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// anthropicDeltas returns the text deltas of an Anthropic stream.
func anthropicDeltas(t *testing.T, r result) []string {
	t.Helper()
	var deltas []string
	for _, e := range r.events {
		if e.name == "content_block_delta" {
			if s, ok := path(decode(t, e.data), "delta", "text").(string); ok {
				deltas = append(deltas, s)
			}
		}
	}
	return deltas
}

// openaiDeltas returns the content deltas of an OpenAI stream.
func openaiDeltas(t *testing.T, r result) []string {
	t.Helper()
	var deltas []string
	for _, e := range r.events {
		if e.data == "[DONE]" {
			continue
		}
		if s, ok := path(decode(t, e.data), "choices", 0, "delta", "content").(string); ok && s != "" {
			deltas = append(deltas, s)
		}
	}
	return deltas
}

func names(r result) []string {
	var out []string
	for _, e := range r.events {
		out = append(out, e.name)
	}
	return out
}

// eventData returns the decoded data of the first event called name.
func eventData(t *testing.T, r result, name string) map[string]any {
	t.Helper()
	for _, e := range r.events {
		if e.name == name {
			return decode(t, e.data)
		}
	}
	t.Fatalf("no %s event in %v", name, names(r))
	return nil
}
