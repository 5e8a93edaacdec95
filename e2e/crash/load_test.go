package crash

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"myco/e2e/internal/mycotest"
)

// sess is one session of the load, followed across kills.
type sess struct {
	idx      int
	id       string
	archiver bool // this one is archived and restored now and then

	mu    sync.Mutex
	seq   int
	acked []string // tags of the messages answered 202, all kills long
	// secrets are the lines of the private keys sent: never on disk.
	secrets []string
	// steers counts the /steer answered {steer}: taken by a running turn.
	steers int
	// The scratchpad and the title: the last value a PATCH was answered
	// 200 for, and the one sent without an answer yet (the kill cut it).
	pad, padPending     string
	title, titlePending string
}

// tag starts every message of the session: the fake's requests and the
// document are searched for it.
func (s *sess) tag() string { return fmt.Sprintf("#s%d-", s.idx) }

func (s *sess) nextTag(kind string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("%s%s%d", s.tag(), kind, s.seq)
}

func (s *sess) ack(tag string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.acked = append(s.acked, tag)
}

// worker runs one session's share of the load until ctx ends or the
// server stops answering.
type worker struct {
	s     *sess
	c     *mycotest.Client
	rec   *recorder
	rng   *rand.Rand
	ticks string // folder of the tool's tick files
	// first is the hold case this worker starts with (hold_test.go), or -1.
	first int
	// unexpected collects answers that no kill explains (a 500, say).
	unexpected []string
}

// streamingAnswer is about four seconds of text: a kill finds it streaming.
const streamingAnswer = "[[text:400]] [[delay:10ms]]"

// toolCommand prints five ticks 0.3 s apart; each tick carries the time
// it was printed and is also appended to a file outside myco, so the
// test knows what the command printed before the kill.
const toolCommand = `for i in 1 2 3 4 5; do l=\"tick-$i $(date +%%s%%N)\"; echo \"$l\"; echo \"$l\" >> %s; sleep 0.3; done`

func (w *worker) run(ctx context.Context) {
	if w.first >= 0 {
		if err := w.hold(ctx, w.first); err != nil {
			w.note(ctx, err)
			return
		}
	}
	for ctx.Err() == nil {
		var err error
		switch x := w.rng.IntN(100); {
		case x < 40:
			err = w.turn(ctx, func(tag string) string { return tag + " stream " + streamingAnswer })
		case x < 75:
			err = w.turn(ctx, w.toolMessage)
		case x < 85 || !w.s.archiver:
			err = w.patch(ctx)
		default:
			err = w.archiveRestore(ctx)
		}
		if err != nil {
			w.note(ctx, err)
			return // the server died, or the kill's cancel
		}
	}
}

// note keeps err when it is an answer no kill explains.
func (w *worker) note(ctx context.Context, err error) {
	var st *mycotest.StatusError
	if errors.As(err, &st) && ctx.Err() == nil {
		w.unexpected = append(w.unexpected, err.Error())
	}
}

func (w *worker) toolMessage(tag string) string {
	file := filepath.Join(w.ticks, tag[1:])
	return tag + ` tool [[tool:bash {"command":"` + fmt.Sprintf(toolCommand, file) + `"}]]`
}

// turn sends a message, often queues another while it runs, and waits
// for every turn it started to end.
func (w *worker) turn(ctx context.Context, text func(tag string) string) error {
	ended := w.rec.turnsEnded()
	if err := w.send(ctx, text(w.s.nextTag("m")), false); err != nil {
		return err
	}
	started := 1
	if w.rng.IntN(2) == 0 {
		if err := w.pause(ctx, 100, 1200); err != nil {
			return err
		}
		if err := w.send(ctx, w.s.nextTag("q")+" queued [[text:40]] [[delay:10ms]]", true); err != nil {
			return err
		}
		started++
	}
	if w.rng.IntN(3) == 0 {
		if err := w.pause(ctx, 100, 1200); err != nil {
			return err
		}
		own, err := w.steer(ctx)
		if err != nil {
			return err
		}
		if own {
			started++
		}
	}
	return w.rec.waitTurnEnds(ctx, ended+started)
}

// steer sends guidance with /steer: taken in by the running turn, or
// (no turn taking steers) a message that runs a turn of its own, which it
// reports.
func (w *worker) steer(ctx context.Context) (ownTurn bool, err error) {
	tag := w.s.nextTag("st")
	var answer map[string]string
	err = w.c.PostJSON(ctx, "/api/sessions/"+w.s.id+"/steer", map[string]string{"text": tag + " steer, keep going"}, http.StatusAccepted, &answer)
	if err != nil {
		return false, err
	}
	w.s.ack(tag)
	if answer["steer"] == "" {
		return true, nil
	}
	w.s.mu.Lock()
	w.s.steers++
	w.s.mu.Unlock()
	return false, nil
}

// send posts a message; one refused because a turn still runs (a queued
// one started) is queued instead.
func (w *worker) send(ctx context.Context, text string, queue bool) error {
	tag := text[:indexSpace(text)]
	path := "/api/sessions/" + w.s.id + "/messages"
	err := w.c.PostJSON(ctx, path, map[string]any{"text": text, "queue": queue}, http.StatusAccepted, nil)
	var st *mycotest.StatusError
	if !queue && errors.As(err, &st) && st.Status == http.StatusConflict {
		err = w.c.PostJSON(ctx, path, map[string]any{"text": text, "queue": true}, http.StatusAccepted, nil)
	}
	if err != nil {
		return err
	}
	w.s.ack(tag)
	return nil
}

func indexSpace(s string) int {
	for i, r := range s {
		if r == ' ' {
			return i
		}
	}
	return len(s)
}

// patch changes the scratchpad or the title.
func (w *worker) patch(ctx context.Context) error {
	s := w.s
	field, value := "scratchpad", s.nextTag("pad")+" notes"
	if w.rng.IntN(2) == 0 {
		field, value = "title", s.nextTag("title")+" title"
	}
	s.mu.Lock()
	if field == "title" {
		s.titlePending = value
	} else {
		s.padPending = value
	}
	s.mu.Unlock()
	err := w.c.SendJSON(ctx, http.MethodPatch, "/api/sessions/"+s.id, map[string]string{field: value}, http.StatusOK, nil)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if field == "title" {
		s.title, s.titlePending = value, ""
	} else {
		s.pad, s.padPending = value, ""
	}
	s.mu.Unlock()
	return w.pause(ctx, 50, 300)
}

// archiveRestore archives the session, then brings it back.
func (w *worker) archiveRestore(ctx context.Context) error {
	base := "/api/sessions/" + w.s.id
	if err := w.c.PostJSON(ctx, base+"/archive", nil, http.StatusOK, nil); err != nil {
		return err
	}
	if err := w.pause(ctx, 100, 600); err != nil {
		return err
	}
	return w.c.PostJSON(ctx, base+"/restore", nil, http.StatusOK, nil)
}

// pause shapes the load (it waits for nothing): between lo and hi ms.
func (w *worker) pause(ctx context.Context, lo, hi int) error {
	t := time.NewTimer(time.Duration(lo+w.rng.IntN(hi-lo)) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
