package mycotest

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

// Event is one Server-Sent Event, stamped when its blank line arrived.
type Event struct {
	At   time.Time
	ID   string
	Name string
	Data string
}

// Stream is an open event stream of one session. Its reader goroutine
// stamps and queues events as they arrive, so the stamps do not depend on
// how fast the caller reads them with Next.
type Stream struct {
	events chan Event
	cancel context.CancelFunc
	done   chan struct{}
	err    error // why the stream ended; read after done
}

// streamBuffer holds the events of a few turns: the reader must never wait
// on the caller, or the stamps would lie.
const streamBuffer = 1 << 14

// SnapshotTimeout bounds the wait for the snapshot a subscription starts
// with.
const SnapshotTimeout = 30 * time.Second

// OpenStream subscribes to session id's events and returns the stream
// with the snapshot every subscription starts with.
func (c *Client) OpenStream(ctx context.Context, id string) (*Stream, Event, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := c.Request(ctx, http.MethodGet, "/api/sessions/"+id+"/events", nil)
	if err != nil {
		cancel()
		return nil, Event{}, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		cancel()
		return nil, Event{}, fmt.Errorf("open events of %s: %w", id, err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		cancel()
		return nil, Event{}, fmt.Errorf("open events of %s: status %d: %s", id, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	s := &Stream{events: make(chan Event, streamBuffer), cancel: cancel, done: make(chan struct{})}
	go s.read(ctx, resp.Body)
	snap, err := s.Next(ctx, SnapshotTimeout, func(ev Event) bool { return ev.Name == "snapshot" })
	if err != nil {
		s.Close()
		return nil, Event{}, fmt.Errorf("events of %s: %w", id, err)
	}
	return s, snap, nil
}

// read parses the stream: "field: value" lines, a blank line ends an
// event, lines starting with ':' are comments (heartbeats).
func (s *Stream) read(ctx context.Context, body io.ReadCloser) {
	defer close(s.done)
	defer close(s.events)
	defer body.Close()
	br := bufio.NewReaderSize(body, 64<<10)
	var ev Event
	var data []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			s.err = err
			return
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if ev.Name != "" || len(data) > 0 {
				ev.At, ev.Data = time.Now(), strings.Join(data, "\n")
				select {
				case s.events <- ev:
				case <-ctx.Done():
					s.err = ctx.Err()
					return
				}
			}
			ev, data = Event{}, nil
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.ID = value
		case "event":
			ev.Name = value
		case "data":
			data = append(data, value)
		}
	}
}

// ErrStreamEnded means the server ended the stream (or died).
var ErrStreamEnded = errors.New("event stream ended")

// Next returns the first event that match accepts, dropping the others,
// waiting at most timeout.
func (s *Stream) Next(ctx context.Context, timeout time.Duration, match func(Event) bool) (Event, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				<-s.done
				return Event{}, fmt.Errorf("%w: %v", ErrStreamEnded, s.err)
			}
			if match(ev) {
				return ev, nil
			}
		case <-t.C:
			return Event{}, fmt.Errorf("no awaited event within %s", timeout)
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// Close ends the subscription and waits for the reader.
func (s *Stream) Close() {
	s.cancel()
	<-s.done
}
