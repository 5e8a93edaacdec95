package fakellm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"
	"unicode/utf8"
)

// errCut asks the handler to drop the connection mid-stream.
var errCut = errors.New("fakellm: cut")

// emitter writes one provider's stream events. play drives it, so both
// wire formats get the same chunking, delays and faults.
type emitter interface {
	begin() error
	text(delta string) error
	toolStart(i int, id, name string) error
	toolDelta(i int, partialJSON string) error
	finish(stop string, u usage) error
	malformed() error
	streamError() error
}

// play streams r through e. It returns errCut when the connection must be
// dropped, and the request's context error when the client went away.
func play(ctx context.Context, e emitter, r reply) error {
	if err := hold(ctx, r.fault, "hang"); err != nil { // silent.go
		return err
	}
	if err := e.begin(); err != nil {
		return err
	}
	deltas := chunkWords(r.text, r.chunk)
	p := pacer{ctx: ctx, delay: r.delay}
	if err := playThinking(&p, e, r); err != nil {
		return err
	}
	if r.fault != nil {
		// Half the text arrives before the fault, so a client can be
		// checked for keeping what came before it.
		deltas = deltas[:(len(deltas)+1)/2]
	}
	for _, d := range deltas {
		if err := p.next(func() error { return e.text(d) }); err != nil {
			return err
		}
	}
	if r.fault != nil {
		if err := hold(ctx, r.fault, "silent"); err != nil { // silent.go
			return err
		}
		return inject(e, r.fault)
	}
	if err := playTool(&p, e, r); err != nil {
		return err
	}
	return e.finish(r.stop, r.usage)
}

func playTool(p *pacer, e emitter, r reply) error {
	if r.tool == nil {
		return nil
	}
	for i, call := range append([]toolCall{*r.tool}, r.more...) {
		id := r.toolID
		if i > 0 {
			id = fmt.Sprintf("%s_%d", r.toolID, i)
		}
		if err := e.toolStart(i, id, call.name); err != nil {
			return err
		}
		for _, piece := range pieces(string(call.input), 12) {
			if err := p.next(func() error { return e.toolDelta(i, piece) }); err != nil {
				return err
			}
		}
	}
	return nil
}

func inject(e emitter, f *fault) error {
	switch f.kind {
	case "malformed":
		return e.malformed()
	case "error":
		return e.streamError()
	}
	return errCut
}

// pacer waits the scripted delay between deltas (not before the first),
// and stops waiting when the client goes away.
type pacer struct {
	ctx   context.Context
	delay time.Duration
	sent  int
}

func (p *pacer) next(send func() error) error {
	if p.sent > 0 && p.delay > 0 {
		t := time.NewTimer(p.delay)
		select {
		case <-p.ctx.Done():
			t.Stop()
			return p.ctx.Err()
		case <-t.C:
		}
	}
	p.sent++
	return send()
}

// wordPattern is a word with the spaces after it, so the deltas of a text
// join back to exactly that text.
var wordPattern = regexp.MustCompile(`^\s*\S+\s*|^\s+`)

// chunkWords splits text into deltas of n words (1 when n is 0).
func chunkWords(text string, n int) []string {
	n = max(n, 1)
	var deltas []string
	for text != "" {
		end := 0
		for range n {
			loc := wordPattern.FindStringIndex(text[end:])
			if loc == nil {
				break
			}
			end += loc[1]
		}
		deltas = append(deltas, text[:end])
		text = text[end:]
	}
	return deltas
}

// pieces splits s into pieces of about size bytes, never inside a rune.
func pieces(s string, size int) []string {
	var out []string
	for len(s) > size {
		cut := size
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

// sseWriter writes Server-Sent Events and flushes each one, so every
// delta reaches the client as its own read.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	return &sseWriter{w: w, rc: http.NewResponseController(w)}
}

// send writes one event; an empty name writes only the data line, as
// OpenAI does.
func (s *sseWriter) send(name string, data any) error {
	payload, err := json.Marshal(data)
	if err != nil {
		return err
	}
	if name != "" {
		return s.raw(fmt.Sprintf("event: %s\ndata: %s\n\n", name, payload))
	}
	return s.raw(fmt.Sprintf("data: %s\n\n", payload))
}

func (s *sseWriter) raw(text string) error {
	if _, err := s.w.Write([]byte(text)); err != nil {
		return err
	}
	return s.rc.Flush()
}
