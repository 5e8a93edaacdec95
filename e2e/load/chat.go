package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"myco/e2e/internal/mycotest"
)

// turnTimeout bounds one turn, from the POST to turn.end.
const turnTimeout = 2 * time.Minute

// turnResult is one chat turn as its event stream showed it. Durations
// are from the moment the message was sent.
type turnResult struct {
	sent, firstAt time.Time     // when the POST was sent, the first delta arrived
	accepted      time.Duration // the 202: the message is durable
	firstDelta    time.Duration
	end           time.Duration // turn.end
	deltas        int           // text.delta events (the server merges piled-up ones)
	text          string        // the deltas joined
	stopReason    string
}

// newSession creates an empty session and returns its ID.
func (c *client) newSession(ctx context.Context) (string, error) {
	var header struct {
		ID string `json:"id"`
	}
	if err := c.PostJSON(ctx, "/api/sessions", map[string]any{}, http.StatusCreated, &header); err != nil {
		return "", err
	}
	if header.ID == "" {
		return "", fmt.Errorf("POST /api/sessions: no id in the answer")
	}
	return header.ID, nil
}

// turn sends text to session id and follows the turn on s to its end.
func (c *client) turn(ctx context.Context, s *mycotest.Stream, id, text string) (turnResult, error) {
	start := time.Now()
	r := turnResult{sent: start}
	var posted struct {
		Turn string `json:"turn"`
	}
	if err := c.PostJSON(ctx, "/api/sessions/"+id+"/messages", map[string]string{"text": text}, http.StatusAccepted, &posted); err != nil {
		return r, err
	}
	r.accepted = time.Since(start)
	started := false
	var got strings.Builder
	for {
		ev, err := s.Next(ctx, turnTimeout, func(mycotest.Event) bool { return true })
		if err != nil {
			return r, fmt.Errorf("turn %s of %s: %w", posted.Turn, id, err)
		}
		var data struct {
			Turn       string `json:"turn"`
			Text       string `json:"text"`
			Error      string `json:"error"`
			StopReason string `json:"stop_reason"`
		}
		if err := json.Unmarshal([]byte(ev.Data), &data); err != nil {
			return r, fmt.Errorf("event %s of %s: %w: %s", ev.Name, id, err, ev.Data)
		}
		switch {
		case ev.Name == "turn.start" && data.Turn == posted.Turn:
			started = true
		case ev.Name == "text.delta" && started:
			if r.deltas == 0 {
				r.firstAt, r.firstDelta = ev.At, ev.At.Sub(start)
			}
			r.deltas++
			got.WriteString(data.Text)
		case ev.Name == "turn.error" && data.Turn == posted.Turn:
			return r, fmt.Errorf("turn %s of %s failed: %s", posted.Turn, id, data.Error)
		case ev.Name == "turn.end" && data.Turn == posted.Turn:
			r.end, r.text, r.stopReason = ev.At.Sub(start), got.String(), data.StopReason
			return r, nil
		}
	}
}

// lastText is the text of the last message of session id as stored.
func (c *client) lastText(ctx context.Context, id string) (string, error) {
	var doc struct {
		Threads []struct {
			Messages []struct {
				Role    string `json:"role"`
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		} `json:"threads"`
	}
	if err := c.GetJSON(ctx, "/api/sessions/"+id, &doc); err != nil {
		return "", err
	}
	if len(doc.Threads) == 0 {
		return "", fmt.Errorf("session %s has no thread", id)
	}
	msgs := doc.Threads[len(doc.Threads)-1].Messages
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != "assistant" {
		return "", fmt.Errorf("session %s does not end with an answer", id)
	}
	var b strings.Builder
	for _, bl := range msgs[len(msgs)-1].Content {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		}
	}
	return b.String(), nil
}

// checkTurn compares what the stream delivered with what was stored and
// with the length the fake was asked for.
func (c *client) checkTurn(ctx context.Context, id string, r turnResult, words int) error {
	stored, err := c.lastText(ctx, id)
	if err != nil {
		return err
	}
	switch {
	case r.stopReason != "end_turn":
		return fmt.Errorf("session %s: stop reason %q, want end_turn", id, r.stopReason)
	case r.text != stored:
		return fmt.Errorf("session %s: streamed %d bytes in %d deltas, stored %d bytes: they differ", id, len(r.text), r.deltas, len(stored))
	case len(strings.Fields(stored)) != words:
		return fmt.Errorf("session %s: answer has %d words, want %d", id, len(strings.Fields(stored)), words)
	}
	return nil
}

// concurrentResult is n sessions each streaming one turn at once.
type concurrentResult struct {
	wall    time.Duration // first POST to last turn.end
	turns   []turnResult
	intact  int // streams whose joined deltas equal the stored answer
	failure []error
}

// concurrentTurns opens n sessions and their streams, then sends one
// message to each at the same moment.
func (c *client) concurrentTurns(ctx context.Context, n, words int, text string) (concurrentResult, error) {
	ids := make([]string, n)
	streams := make([]*mycotest.Stream, n)
	defer func() {
		for _, s := range streams {
			if s != nil {
				s.Close()
			}
		}
	}()
	for i := range n {
		id, err := c.newSession(ctx)
		if err != nil {
			return concurrentResult{}, err
		}
		s, _, err := c.OpenStream(ctx, id)
		if err != nil {
			return concurrentResult{}, err
		}
		ids[i], streams[i] = id, s
	}
	res := concurrentResult{turns: make([]turnResult, n)}
	errs := make([]error, n)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-gate
			res.turns[i], errs[i] = c.turn(ctx, streams[i], ids[i], text)
		})
	}
	start := time.Now()
	close(gate)
	wg.Wait()
	res.wall = time.Since(start)
	for i, err := range errs {
		if err == nil {
			err = c.checkTurn(ctx, ids[i], res.turns[i], words)
		}
		if err != nil {
			res.failure = append(res.failure, err)
			continue
		}
		res.intact++
	}
	return res, nil
}
