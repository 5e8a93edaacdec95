package crash

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"myco/e2e/internal/mycotest"
)

// The rules of issue 9, "a crash loses at most a second", as the
// failures name them.
const (
	ruleAnswer = "answer-kept"      // a streaming answer is kept up to its last second, interrupted
	ruleTool   = "tool-interrupted" // a running tool call is recorded interrupted, with its output so far
	ruleThread = "thread-valid"     // every tool_use has its tool_result: the provider takes the thread
	ruleAcked  = "acked-kept"       // every message answered 202 is in the session or still queued
	rulePatch  = "patch-kept"       // every title and scratchpad answered 200 is kept
	ruleTemp   = "no-temp"          // no .tmp-* file once the session has been opened again
	ruleLock   = "no-lock"          // the session opens, restores, and takes a message with a normal answer
	ruleIdle   = "idle-on-open"     // reopening runs nothing: idle, and no model request until one is sent
	ruleSecret = "secret-off-disk"  // no line of a private key streamed is ever on disk in clear
)

// lostWindow is what a crash may lose of a streaming answer.
const lostWindow = time.Second

// checkReply is what the fake answers the message sent after a restart.
const checkReply = "still here"

// check asserts every rule for every session on the restarted server.
func (h *harness) check(ctx context.Context, k int, killAt time.Time, recs []*recorder) {
	c := h.srv.Client()
	var archived []struct {
		ID string `json:"id"`
	}
	if err := c.GetJSON(ctx, "/api/sessions?archived=1", &archived); err != nil {
		h.t.Fatalf("kill %d (seed %d): %v", k, h.seed, err)
	}
	streams := make([]*mycotest.Stream, len(h.ss))
	defer func() {
		for _, st := range streams {
			if st != nil {
				st.Close()
			}
		}
	}()
	for i, s := range h.ss {
		streams[i] = h.reopen(ctx, k, s, c, archived)
	}
	h.checkTemp(k, killAt)
	for i, s := range h.ss {
		doc, err := getDocument(ctx, c, s.id)
		if err != nil {
			h.fail(k, s, ruleLock, "%v", err)
			continue
		}
		h.checkAnswers(k, s, doc, recs[i], killAt)
		h.checkTools(k, s, doc, recs[i], killAt)
		h.checkThread(k, s, doc)
		h.checkAcked(k, s, doc)
		h.checkPatches(k, s, doc)
	}
	// Every session is open and its document read: a turn that started
	// by itself has asked the fake by now, or holds the turn slot.
	for _, s := range h.ss {
		if n := h.requestsOf(s); n > 0 {
			h.fail(k, s, ruleIdle, "the fake got %d model request(s) for the session after the restart, before any message was sent", n)
		}
	}
	for i, s := range h.ss {
		if streams[i] != nil {
			h.checkNewMessage(ctx, k, s, c, streams[i])
		}
	}
	h.checkSecrets(k, "after the restart")
}

// reopen restores the session if the kill left it archived, opens it as
// a tab would, and checks that its snapshot says idle.
func (h *harness) reopen(ctx context.Context, k int, s *sess, c *mycotest.Client, archived []struct {
	ID string `json:"id"`
}) *mycotest.Stream {
	for _, a := range archived {
		if a.ID == s.id {
			if err := c.PostJSON(ctx, "/api/sessions/"+s.id+"/restore", nil, http.StatusOK, nil); err != nil {
				h.fail(k, s, ruleLock, "restore after the restart: %v", err)
				return nil
			}
		}
	}
	if _, err := c.Get(ctx, "/s/"+s.id); err != nil {
		h.fail(k, s, ruleLock, "open the session page: %v", err)
		return nil
	}
	st, snap, err := c.OpenStream(ctx, s.id)
	if err != nil {
		h.fail(k, s, ruleLock, "%v", err)
		return nil
	}
	var data struct {
		Status string `json:"status"`
		Turn   string `json:"turn"`
	}
	if err := json.Unmarshal([]byte(snap.Data), &data); err != nil {
		h.fail(k, s, ruleIdle, "snapshot: %v: %s", err, snap.Data)
	} else if data.Status != "idle" || data.Turn != "" {
		h.fail(k, s, ruleIdle, "the snapshot after reopening says status %q, turn %q; want idle, no turn", data.Status, data.Turn)
	}
	return st
}

func getDocument(ctx context.Context, c *mycotest.Client, id string) (*document, error) {
	var doc document
	if err := c.GetJSON(ctx, "/api/sessions/"+id, &doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// checkTemp looks for temp files of any session in session/ and
// session/archived/.
func (h *harness) checkTemp(k int, killAt time.Time) {
	dir := filepath.Join(h.srv.ProfileDir(), "session")
	for _, d := range []string{dir, filepath.Join(dir, "archived")} {
		entries, err := os.ReadDir(d)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			h.t.Fatalf("kill %d (seed %d): %v", k, h.seed, err)
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".tmp-") || h.tempSeen[e.Name()] {
				continue // reported at the kill that left it
			}
			h.tempSeen[e.Name()] = true
			age := "?"
			if info, err := e.Info(); err == nil {
				age = killAt.Sub(info.ModTime()).Round(time.Millisecond).String()
			}
			for _, s := range h.ss {
				if strings.Contains(e.Name(), s.id) {
					h.fail(k, s, ruleTemp, "%s (written %s before the kill) is left in %s after the session was opened again", e.Name(), age, d)
				}
			}
		}
	}
}

// checkAnswers: each answer still streaming at the kill is kept as a
// prefix of what the client received, with at least all it had received
// a second before the kill, marked interrupted.
func (h *harness) checkAnswers(k int, s *sess, doc *document, rec *recorder, killAt time.Time) {
	for _, a := range rec.streaming() {
		received := a.text()
		if received == "" {
			if m, _, ok := doc.find(a.id); ok && m.text() != "" {
				h.fail(k, s, ruleAnswer, "answer %s: the client received no text, the session keeps %q", a.id, clip(m.text()))
			}
			continue
		}
		h.mu.Lock()
		h.streamed++
		h.mu.Unlock()
		kept, stop := "", ""
		m, _, found := doc.find(a.id)
		if found {
			kept, stop = m.text(), m.StopReason
		}
		l, err := measureLoss(a, kept, killAt)
		h.mu.Lock()
		h.losses = append(h.losses, l)
		h.mu.Unlock()
		switch {
		case !found && err != nil:
			h.fail(k, s, ruleAnswer, "answer %s is not in the session: %d characters received, the last one %s before the kill, all lost",
				a.id, l.received, killAt.Sub(a.deltas[len(a.deltas)-1].at).Round(time.Millisecond))
		case err != nil:
			h.fail(k, s, ruleAnswer, "answer %s: %v", a.id, err)
		case !found:
			// All it had streamed came within the last second, which the
			// rule allows to lose: nothing to mark.
		case stop != "interrupted" && !keptAll(received, kept):
			// Text lost, yet the answer passed off as complete.
			h.fail(k, s, ruleAnswer, "answer %s: stop_reason %q, want interrupted", a.id, stop)
		}
	}
}

// keptAll reports whether kept stands for all of received.
func keptAll(received, kept string) bool {
	upto, ok := coveredBy(received, kept)
	return ok && upto == len(received)
}

// checkTools: each tool call running at the kill has a tool_result
// marked interrupted, holding what the command had printed a second
// before the kill (the command also logs its ticks to a file).
func (h *harness) checkTools(k int, s *sess, doc *document, rec *recorder, killAt time.Time) {
	for _, run := range rec.running() {
		h.mu.Lock()
		h.toolRuns++
		h.mu.Unlock()
		use, result, ok := findToolUse(doc, run.id)
		switch {
		case !ok:
			h.fail(k, s, ruleTool, "tool call %s (started %s before the kill) is not in the session", run.id, killAt.Sub(run.startAt).Round(time.Millisecond))
			continue
		case result == nil:
			h.fail(k, s, ruleTool, "tool call %s has no tool_result after the restart", run.id)
			continue
		}
		if file := tickFileOf(use); isDots(file) {
			if err := checkDots(result.resultText(), file, killAt.Add(-lostWindow)); err != nil {
				h.fail(k, s, ruleTool, "tool call %s (dots): %v", run.id, err)
			}
			continue
		}
		switch {
		case !result.Interrupted || !result.IsError:
			if !result.Interrupted && ticksIn(result.resultText()) == 5 {
				continue // it finished just before the kill
			}
			h.fail(k, s, ruleTool, "tool call %s: tool_result has is_error %v, interrupted %v; want both true", run.id, result.IsError, result.Interrupted)
		}
		printed, err := printedTicks(use)
		if err != nil {
			h.fail(k, s, ruleTool, "tool call %s: %v", run.id, err)
			continue
		}
		if err := checkOutput(result.resultText(), printed, killAt.Add(-lostWindow)); err != nil {
			h.fail(k, s, ruleTool, "tool call %s: %v", run.id, err)
		}
	}
}

// findToolUse finds the tool_use block id and the tool_result that
// answers it in the next message.
func findToolUse(doc *document, id string) (use, result *block, ok bool) {
	for ti := range doc.Threads {
		msgs := doc.Threads[ti].Messages
		for i := range msgs {
			for bi := range msgs[i].Content {
				b := &msgs[i].Content[bi]
				if b.Type != "tool_use" || b.ID != id {
					continue
				}
				if i+1 < len(msgs) {
					for ri := range msgs[i+1].Content {
						if r := &msgs[i+1].Content[ri]; r.Type == "tool_result" && r.ToolUseID == id {
							return b, r, true
						}
					}
				}
				return b, nil, true
			}
		}
	}
	return nil, nil, false
}

// tick is one line the tool's command printed: tick-N and the time.
type tick struct {
	line string
	at   time.Time
}

var tickLine = regexp.MustCompile(`^tick-\d+ (\d+)$`)

func parseTicks(text string) []tick {
	var out []tick
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if m := tickLine.FindStringSubmatch(line); m != nil {
			ns, _ := strconv.ParseInt(m[1], 10, 64)
			out = append(out, tick{line: line, at: time.Unix(0, ns)})
		}
	}
	return out
}

func ticksIn(text string) int { return len(parseTicks(text)) }

var tickFile = regexp.MustCompile(`>> (\S+);`)

// tickFileOf is the file a tool call's command logs to, "" if none.
func tickFileOf(use *block) string {
	var input struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(use.Input, &input) != nil {
		return ""
	}
	if m := tickFile.FindStringSubmatch(input.Command); m != nil {
		return m[1]
	}
	return ""
}

// printedTicks reads the file the command logged its ticks to.
func printedTicks(use *block) ([]tick, error) {
	var input struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(use.Input, &input); err != nil {
		return nil, fmt.Errorf("tool_use input: %w", err)
	}
	m := tickFile.FindStringSubmatch(input.Command)
	if m == nil {
		return nil, fmt.Errorf("no tick file in the command %q", input.Command)
	}
	data, err := os.ReadFile(m[1])
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // it printed nothing
	}
	return parseTicks(string(data)), err
}

// checkOutput: the output kept is the ticks printed, in order, up to
// some point, and includes every tick printed by the deadline.
func checkOutput(kept string, printed []tick, by time.Time) error {
	got := parseTicks(kept)
	for i, tk := range got {
		if i >= len(printed) || printed[i].line != tk.line {
			return fmt.Errorf("the output kept %q is not what the command printed (%d ticks)", clip(kept), len(printed))
		}
	}
	due := 0
	for _, tk := range printed {
		if !tk.at.After(by) {
			due++
		}
	}
	if len(got) < due {
		return fmt.Errorf("the output kept has %d tick(s); the command had printed %d a second before the kill: %q", len(got), due, clip(kept))
	}
	return nil
}

// checkThread: every tool_use is answered by a tool_result in the next
// message, as the providers (and the fake) require.
func (h *harness) checkThread(k int, s *sess, doc *document) {
	for ti, th := range doc.Threads {
		for i, m := range th.Messages {
			for _, b := range m.Content {
				if b.Type != "tool_use" {
					continue
				}
				if _, r, _ := findToolUse(doc, b.ID); r == nil {
					h.fail(k, s, ruleThread, "thread %d message %d: tool_use %s has no tool_result in the next message", ti, i, b.ID)
				}
			}
		}
	}
}

// checkAcked: every message answered 202 (steers too) is a human message
// of the session or still queued, and only once in the latest thread and
// the queue (a compaction's carried copies are in an earlier thread too).
func (h *harness) checkAcked(k int, s *sess, doc *document) {
	have := map[string]bool{}
	for _, th := range doc.Threads {
		for _, m := range th.Messages {
			if m.Human {
				have[firstWord(m.text())] = true
			}
		}
	}
	for _, q := range doc.Queued {
		have[firstWord(q.Text)] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, tag := range s.acked {
		if !have[tag] {
			h.fail(k, s, ruleAcked, "message %s was answered 202 and is neither in the session nor queued", tag)
		} else if n := keptTimes(doc, tag+" "); n > 1 {
			h.fail(k, s, ruleAcked, "message %s is kept %d times in the latest thread and the queue", tag, n)
		}
	}
}

func firstWord(s string) string {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i]
	}
	return s
}

// checkPatches: the title and scratchpad are the last ones answered 200,
// or the one whose PATCH the kill cut short.
func (h *harness) checkPatches(k int, s *sess, doc *document) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if doc.Scratchpad != s.pad && (s.padPending == "" || doc.Scratchpad != s.padPending) {
		h.fail(k, s, rulePatch, "scratchpad %q, want %q (answered 200) or %q (cut short)", doc.Scratchpad, s.pad, s.padPending)
	}
	if doc.Title != s.title && (s.titlePending == "" || doc.Title != s.titlePending) {
		h.fail(k, s, rulePatch, "title %q, want %q (answered 200) or %q (cut short)", doc.Title, s.title, s.titlePending)
	}
	s.pad, s.padPending, s.title, s.titlePending = doc.Scratchpad, "", doc.Title, ""
}

// requestsOf counts the fake's model requests that carry the session's
// messages.
func (h *harness) requestsOf(s *sess) int {
	n := 0
	for _, r := range h.fake.Requests() {
		if fromKey(r.Header, h.key) && strings.Contains(string(r.Body), s.tag()) {
			n++
		}
	}
	return n
}

// fromKey reports whether a request carries the API key key.
func fromKey(header http.Header, key string) bool {
	return header.Get("X-Api-Key") == key || header.Get("Authorization") == "Bearer "+key
}

// checkNewMessage sends a message and waits for a normal answer: the
// lock is free, and the thread is one the provider takes (the fake
// answers 400 to a broken one, as the real API does).
func (h *harness) checkNewMessage(ctx context.Context, k int, s *sess, c *mycotest.Client, st *mycotest.Stream) {
	tag := s.nextTag("c")
	var posted struct {
		Turn string `json:"turn"`
	}
	err := c.PostJSON(ctx, "/api/sessions/"+s.id+"/messages", map[string]any{"text": tag + " after kill [[say:" + checkReply + "]]"}, http.StatusAccepted, &posted)
	if err != nil {
		rule := ruleLock
		var se *mycotest.StatusError
		if errors.As(err, &se) && se.Status == http.StatusConflict {
			rule = ruleIdle // a turn runs that nobody asked for
		}
		h.fail(k, s, rule, "a new message after the restart: %v", err)
		return
	}
	s.ack(tag)
	var failure string
	ev, err := st.Next(ctx, guard, func(ev mycotest.Event) bool {
		var d struct {
			Turn  string `json:"turn"`
			Error string `json:"error"`
		}
		_ = json.Unmarshal([]byte(ev.Data), &d)
		if ev.Name == "turn.error" && (d.Turn == posted.Turn || d.Turn == "") {
			failure = d.Error
		}
		return ev.Name == "turn.end" && d.Turn == posted.Turn
	})
	if err != nil {
		h.fail(k, s, ruleLock, "no turn.end for the message sent after the restart: %v", err)
		return
	}
	var end struct {
		StopReason string `json:"stop_reason"`
	}
	_ = json.Unmarshal([]byte(ev.Data), &end)
	if failure != "" || end.StopReason != "end_turn" {
		h.fail(k, s, ruleThread, "the message sent after the restart ended with %q: %s", end.StopReason, failure)
		return
	}
	if h.requestsOf(s) == 0 {
		// The harness, not myco: idle-on-open would pass for nothing.
		h.t.Fatalf("kill %d (seed %d): the fake recorded no request of key %s for s%d's answer: the key filter is broken", k, h.seed, h.key, s.idx)
	}
	// The answer itself is not read back: GET returns the document as
	// stored, and a live session folds its journal into it only now and
	// then (docs/FORMAT.md, "The journal"). turn.end with end_turn is the
	// normal answer.
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:60] + "…" + s[len(s)-40:]
	}
	return s
}
