package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"myco/profiles"
)

// apiClient calls the profile's server as a tab or a script does
// (docs/API.md), with the token of server.json.
type apiClient struct {
	info profiles.ServerInfo
	http *http.Client // requests that answer at once
	// stream has no timeout: an event stream lasts the whole turn.
	stream *http.Client
}

func newAPIClient(info profiles.ServerInfo) *apiClient {
	return &apiClient{info: info, http: &http.Client{Timeout: 30 * time.Second}, stream: &http.Client{}}
}

// apiError is a refusal from the server: its status and its words.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

// call sends body (nil: none) as JSON and decodes a want answer into out
// (nil: ignored).
func (c *apiClient) call(ctx context.Context, method, path string, body any, want int, out any) error {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.info.URL+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.info.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("the running myco (%s) did not answer: %w", c.info.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		var e struct{ Error string }
		json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&e)
		if e.Error == "" {
			e.Error = resp.Status
		}
		return &apiError{status: resp.StatusCode, msg: e.Error}
	}
	if out == nil {
		return nil
	}
	if s, ok := out.(*string); ok {
		data, err := io.ReadAll(resp.Body)
		*s = string(data)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("the running myco's answer: %w", err)
	}
	return nil
}

// sseEvent is one event of a session's stream: its name and JSON data.
type sseEvent struct {
	name string
	data json.RawMessage
}

// events opens session id's event stream. The events, its snapshot first,
// arrive on the channel, which is closed when the stream ends; err then
// says why (nil: ctx ended it).
func (c *apiClient) events(ctx context.Context, id string) (<-chan sseEvent, func() error, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.info.URL+sessionPath(id, "events"), nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.info.Token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.stream.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("the running myco (%s) did not answer: %w", c.info.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		var e struct{ Error string }
		json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&e)
		return nil, nil, &apiError{status: resp.StatusCode, msg: cmp.Or(e.Error, resp.Status)}
	}
	ch := make(chan sseEvent, 64)
	var readErr error
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer close(ch)
		defer resp.Body.Close()
		readErr = readSSE(ctx, resp.Body, ch)
	}()
	return ch, func() error { <-ended; return readErr }, nil
}

// errStreamEnded is an event stream the server ended.
var errStreamEnded = errors.New("the server ended the event stream")

// readSSE reads Server-Sent Events from r into ch until r ends: `event:`
// and `data:` lines make an event, a blank line sends it, comments (the
// heartbeat) and `id:` lines are skipped.
func readSSE(ctx context.Context, r io.Reader, ch chan<- sseEvent) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var name string
	var data []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, io.EOF) {
				return errStreamEnded
			}
			return fmt.Errorf("reading the event stream: %w", err)
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if name != "" || len(data) > 0 {
				ev := sseEvent{name: name, data: json.RawMessage(strings.Join(data, "\n"))}
				select {
				case ch <- ev:
				case <-ctx.Done():
					return nil
				}
			}
			name, data = "", nil
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event:"):
			name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}
