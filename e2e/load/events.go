package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// event is one Server-Sent Event, stamped when its blank line arrived.
type event struct {
	at   time.Time
	id   string
	name string
	data string
}

// stream is an open event stream of one session. Its reader goroutine
// stamps and queues events; the measuring code reads them from events.
type stream struct {
	events chan event
	cancel context.CancelFunc
	done   chan struct{}
	err    error // why the stream ended; read after done
}

// streamBuffer holds the events of a few turns: the reader must never wait
// on the measuring code, or the stamps would lie.
const streamBuffer = 1 << 14

// openStream subscribes to session id's events and waits for the snapshot
// every subscription starts with.
func (c *client) openStream(ctx context.Context, id string) (*stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := c.request(ctx, http.MethodGet, "/api/sessions/"+id+"/events", nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("open events of %s: %w", id, err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("open events of %s: status %d: %s", id, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	s := &stream{events: make(chan event, streamBuffer), cancel: cancel, done: make(chan struct{})}
	go s.read(ctx, resp.Body)
	if _, err := s.next(ctx, 10*time.Second, func(ev event) bool { return ev.name == "snapshot" }); err != nil {
		s.close()
		return nil, fmt.Errorf("events of %s: %w", id, err)
	}
	return s, nil
}

// read parses the stream: "field: value" lines, a blank line ends an
// event, lines starting with ':' are comments (heartbeats).
func (s *stream) read(ctx context.Context, body io.ReadCloser) {
	defer close(s.done)
	defer close(s.events)
	defer body.Close()
	br := bufio.NewReaderSize(body, 64<<10)
	var ev event
	var data []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			s.err = err
			return
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if ev.name != "" || len(data) > 0 {
				ev.at, ev.data = time.Now(), strings.Join(data, "\n")
				select {
				case s.events <- ev:
				case <-ctx.Done():
					s.err = ctx.Err()
					return
				}
			}
			ev, data = event{}, nil
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.id = value
		case "event":
			ev.name = value
		case "data":
			data = append(data, value)
		}
	}
}

var errStreamEnded = errors.New("event stream ended")

// next returns the first event that match accepts, dropping the others,
// waiting at most timeout.
func (s *stream) next(ctx context.Context, timeout time.Duration, match func(event) bool) (event, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				<-s.done
				return event{}, fmt.Errorf("%w: %v", errStreamEnded, s.err)
			}
			if match(ev) {
				return ev, nil
			}
		case <-t.C:
			return event{}, fmt.Errorf("no awaited event within %s", timeout)
		case <-ctx.Done():
			return event{}, ctx.Err()
		}
	}
}

// close ends the subscription and waits for the reader.
func (s *stream) close() {
	s.cancel()
	<-s.done
}
