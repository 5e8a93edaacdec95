package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// headlessRun is one `myco run`: its turn, driven through the server's
// API as a tab drives it, its events read from the session's stream.
type headlessRun struct {
	e    env
	opts runOptions
	api  *apiClient
	// local: the server runs in this process for this run alone, and
	// stops after it.
	local bool
	// id is the session, once made (a retry on another server goes on in
	// it); patched says --model and -n are applied to it.
	id      string
	patched bool
}

// serverGone is a server that went away before it took the run's
// message: the run may start again on another.
type serverGone struct{ err error }

func (e *serverGone) Error() string { return e.err.Error() }
func (e *serverGone) Unwrap() error { return e.err }

// beforeTurn marks err as a server gone when it says so: refused
// connections, connections closed before an answer, 503 (shutting down),
// an event stream that ended before its snapshot.
func beforeTurn(err error) error {
	var ae *apiError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, errStreamEnded),
		errors.As(err, &ae) && ae.status == http.StatusServiceUnavailable:
		return &serverGone{err}
	}
	return err
}

// turnResult is how the run's turn went.
type turnResult struct {
	session, turn string
	stop          string          // turn.end's stop_reason
	usage         json.RawMessage // turn.end's usage
	answer        string          // the last answer's ID
	failed        string          // turn.error's words
	refused       string          // why this run stopped the turn (an approval it may not give)
	interrupted   bool            // stopped by a signal (Ctrl-C)
}

// stopWait bounds how long a run waits for its turn to end after it asked
// the server to stop it.
const stopWait = 15 * time.Second

// titleWait bounds how long a run that started the server waits for the
// title of a new session, made after the turn ends: the server stops
// with the run, and would cut it short.
const titleWait = 5 * time.Second

// run runs the turn on r.api's server and prints its outcome: the answer,
// or with --json the turn's events and the result. An error before the
// server took the message may be a *serverGone.
func (r *headlessRun) run(ctx context.Context) error {
	id, err := r.session(ctx)
	if err != nil {
		return beforeTurn(err)
	}
	// The stream outlives a Ctrl-C, to see the stopped turn end.
	streamCtx, closeStream := context.WithCancel(context.WithoutCancel(ctx))
	defer closeStream()
	events, streamErr, err := r.api.events(streamCtx, id)
	if err != nil {
		return beforeTurn(err)
	}
	// The snapshot comes first: once it is here the stream is subscribed,
	// and no event of the turn is missed.
	snap, ok := <-events
	if !ok {
		return beforeTurn(streamErr())
	}
	var state struct {
		Title string `json:"title"`
	}
	json.Unmarshal(snap.data, &state)
	var posted struct {
		Turn string `json:"turn"`
	}
	err = r.api.call(ctx, http.MethodPost, sessionPath(id, "messages"), map[string]string{"text": r.opts.prompt}, http.StatusAccepted, &posted)
	if err != nil {
		return beforeTurn(fmt.Errorf("session %s: %w", id, err))
	}
	res := turnResult{session: id, turn: posted.Turn}
	if err := r.follow(ctx, &res, events, streamErr); err != nil {
		return err
	}
	ok = res.succeeded()
	if ok && r.local && state.Title == "" {
		waitTitle(events, titleWait)
	}
	text := ""
	if res.answer != "" && (ok || r.opts.asJSON) {
		// After a Ctrl-C too: the JSON result carries what was answered.
		if err := r.api.call(context.WithoutCancel(ctx), http.MethodGet, sessionPath(id, "messages", res.answer, "markdown"), nil, http.StatusOK, &text); err != nil {
			return fmt.Errorf("read the answer of session %s: %w", id, err)
		}
	}
	if r.opts.asJSON {
		if err := r.printResult(res, text); err != nil {
			return err
		}
	} else if ok && text != "" {
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if _, err := io.WriteString(r.e.stdout, text); err != nil {
			return err
		}
	}
	if !ok {
		return errors.New(res.reason())
	}
	return nil
}

// session is the session the turn runs in: a new one, the one --session
// names, or a fork of --fork-from's, with --model and -n applied.
func (r *headlessRun) session(ctx context.Context) (string, error) {
	o := r.opts
	var header struct {
		ID string `json:"id"`
		// CacheNote: a fork's first request will not find its parent's
		// prompt cache (POST …/fork).
		CacheNote string `json:"cache_note"`
	}
	switch {
	case r.id != "":
		header.ID = r.id
	case o.session != "":
		id, err := r.resolve(ctx, o.session)
		if err != nil {
			return "", err
		}
		header.ID = id
	case o.forkFrom != "":
		parent, err := r.resolve(ctx, o.forkFrom)
		if err != nil {
			return "", err
		}
		body := map[string]int{}
		if o.keepTurns >= 0 {
			body["keep_turns"] = o.keepTurns
		}
		if err := r.api.call(ctx, http.MethodPost, sessionPath(parent, "fork"), body, http.StatusCreated, &header); err != nil {
			return "", fmt.Errorf("fork session %s: %w", parent, err)
		}
		if header.CacheNote != "" {
			fmt.Fprintf(r.e.stderr, "myco: the fork of %s: %s\n", parent, header.CacheNote)
		}
		r.id = header.ID
	default:
		// The agent works in the folder the run was started from, not the
		// one the server was.
		body := map[string]string{}
		if cwd, err := os.Getwd(); err == nil {
			body["cwd"] = cwd
		}
		if o.model != "" {
			body["model"] = o.model
		}
		if o.name != "" {
			body["name"] = o.name
		}
		if o.plan {
			body["mode"] = "plan"
		}
		if err := r.api.call(ctx, http.MethodPost, "/api/sessions", body, http.StatusCreated, &header); err != nil {
			return "", fmt.Errorf("create a session: %w", err)
		}
		r.id, r.patched = header.ID, true
		return header.ID, nil
	}
	r.id = header.ID
	if r.patched {
		return r.id, nil
	}
	patch := map[string]string{}
	if o.model != "" {
		patch["model"] = o.model
	}
	if o.name != "" {
		patch["name"] = o.name
	}
	if len(patch) > 0 {
		if err := r.api.call(ctx, http.MethodPatch, sessionPath(header.ID), patch, http.StatusOK, nil); err != nil {
			return "", fmt.Errorf("session %s: %w", header.ID, err)
		}
	}
	if o.plan {
		if err := r.api.call(ctx, http.MethodPut, sessionPath(header.ID, "mode"), map[string]string{"mode": "plan"}, http.StatusOK, nil); err != nil {
			return "", fmt.Errorf("session %s: plan mode: %w", header.ID, err)
		}
	}
	r.patched = true
	return header.ID, nil
}

// resolve asks the server which session an ID, its start, a name or @last
// means: its store sees this process's sessions as they are, changes not
// yet in their files included.
func (r *headlessRun) resolve(ctx context.Context, which string) (string, error) {
	var found struct {
		ID string `json:"id"`
	}
	err := r.api.call(ctx, http.MethodGet, "/api/resolve?id="+url.QueryEscape(which), nil, http.StatusOK, &found)
	var ae *apiError
	if errors.As(err, &ae) && ae.status == http.StatusNotFound {
		return "", fmt.Errorf("no session %q in profile %q", which, cmp.Or(r.opts.profile, "default"))
	}
	return found.ID, err
}

// follow reads the stream until the run's turn ends: each of the turn's
// events printed as a JSON line with --json, tool activity on stderr, an
// approval given (--allow) or refused by stopping the turn.
func (r *headlessRun) follow(ctx context.Context, res *turnResult, events <-chan sseEvent, streamErr func() error) error {
	inTurn := false
	tools := map[string]string{} // tool_use_id → name
	refused := map[string]bool{} // tool_use_id → this run refused it
	done := ctx.Done()
	var giveUp <-chan time.Time
	for {
		var ev sseEvent
		var ok bool
		select {
		case ev, ok = <-events:
		case <-done:
			done = nil
			res.interrupted = true
			r.stopTurn(res.session)
			giveUp = time.After(stopWait)
			continue
		case <-giveUp:
			return fmt.Errorf("stopped: the turn of session %s did not end within %s of the stop", res.session, stopWait)
		}
		if !ok {
			err := streamErr()
			if err == nil {
				err = errors.New("the event stream ended")
			}
			return fmt.Errorf("session %s: %w before the turn ended", res.session, err)
		}
		var d eventData
		json.Unmarshal(ev.data, &d)
		if !inTurn {
			if ev.name != "turn.start" || d.Turn != res.turn {
				continue // another turn's, or from before ours
			}
			inTurn = true
		}
		if r.opts.asJSON {
			if err := printEvent(r.e, ev); err != nil {
				return err
			}
		}
		switch ev.name {
		case "tool.start":
			tools[d.ToolUseID] = d.Name
			fmt.Fprintf(r.e.stderr, "> %s: %s\n", d.Name, toolInput(d.Name, d.Input))
		case "tool.end":
			outcome := toolOutcome(d.IsError, d.Output)
			if refused[d.ToolUseID] {
				outcome = "not run: this run may not approve it"
			}
			fmt.Fprintf(r.e.stderr, "< %s: %s\n", cmp.Or(tools[d.ToolUseID], "tool"), outcome)
		case "tool.approval":
			r.approval(res, d)
			refused[d.ToolUseID] = res.refused != ""
		case "subagent":
			if d.Status == "approval" {
				r.subagentApproval(ctx, res, d)
			}
		case "message.end":
			if d.Role == "assistant" {
				res.answer, res.stop = d.Message, d.StopReason
			}
		case "turn.error":
			if d.Turn == res.turn {
				res.failed = d.Error
			}
		case "turn.end":
			if d.Turn == res.turn {
				res.stop, res.usage = d.StopReason, d.Usage
				return nil
			}
		}
	}
}

// eventData holds the fields of the events a run acts on.
type eventData struct {
	Turn       string          `json:"turn"`
	Message    string          `json:"message"`
	Role       string          `json:"role"`
	StopReason string          `json:"stop_reason"`
	Usage      json.RawMessage `json:"usage"`
	Error      string          `json:"error"`
	ToolUseID  string          `json:"tool_use_id"`
	Name       string          `json:"name"`
	Input      json.RawMessage `json:"input"`
	IsError    bool            `json:"is_error"`
	Output     string          `json:"output"`
	// A subagent event's: the sub-agent's session, its state and title.
	Session string `json:"session"`
	Status  string `json:"status"`
	Detail  string `json:"detail"`
	Title   string `json:"title"`
}

// approvalKind is the kind of approval a tool needs, as settings and
// --allow name it.
func approvalKind(tool string) string {
	switch tool {
	case "write_file", "edit_file":
		return "edit"
	case "remember":
		return "memory"
	}
	return tool
}

// approval answers a tool call that waits for the person: once, when
// --allow names its kind; otherwise the run may not, and it stops the
// turn and says why.
func (r *headlessRun) approval(res *turnResult, d eventData) {
	kind := approvalKind(d.Name)
	if slices.Contains(r.opts.allow, kind) {
		err := r.api.call(context.Background(), http.MethodPost, sessionPath(res.session, "approvals", d.ToolUseID), map[string]string{"decision": "once"}, http.StatusOK, nil)
		if err == nil {
			fmt.Fprintf(r.e.stderr, "myco: approved %s once (--allow %s)\n", d.Name, kind)
			return
		}
		res.refused = fmt.Sprintf("could not approve %s: %v", d.Name, err)
	} else if slices.Contains(allowKinds, kind) {
		res.refused = fmt.Sprintf("the agent asked to run %s and this run may not: pass --allow %s", d.Name, kind)
	} else {
		res.refused = fmt.Sprintf("the agent asked to run %s, which needs an approval a headless run cannot give", d.Name)
	}
	if res.failed == "" && !res.interrupted {
		r.stopTurn(res.session)
	}
}

// subagentApproval answers what a sub-agent of the run's turn waits for,
// as approval answers the turn's own: the run reads the sub-agent's
// pending approvals from its stream's snapshot and approves each once
// when --allow names its kind; otherwise it stops the whole turn (its
// sub-agents with it) and says why.
func (r *headlessRun) subagentApproval(ctx context.Context, res *turnResult, d eventData) {
	kind := approvalKind(d.Detail)
	if !slices.Contains(r.opts.allow, kind) {
		res.refused = fmt.Sprintf("a sub-agent (%s) asked to run %s and this run may not: pass --allow %s", d.Title, d.Detail, kind)
		if !slices.Contains(allowKinds, kind) {
			res.refused = fmt.Sprintf("a sub-agent (%s) asked to run %s, which needs an approval a headless run cannot give", d.Title, d.Detail)
		}
		if res.failed == "" && !res.interrupted {
			r.stopTurn(res.session)
		}
		return
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	events, _, err := r.api.events(sctx, d.Session)
	if err == nil {
		var snap struct {
			Approvals []struct {
				ToolUseID string `json:"tool_use_id"`
				Name      string `json:"name"`
			} `json:"approvals"`
		}
		ev, ok := <-events
		if !ok || ev.name != "snapshot" || json.Unmarshal(ev.data, &snap) != nil {
			err = errors.New("its event stream gave no snapshot")
		}
		for _, a := range snap.Approvals {
			if approvalKind(a.Name) != kind {
				continue
			}
			if err = r.api.call(sctx, http.MethodPost, sessionPath(d.Session, "approvals", a.ToolUseID), map[string]string{"decision": "once"}, http.StatusOK, nil); err != nil {
				break
			}
			fmt.Fprintf(r.e.stderr, "myco: approved %s once for a sub-agent (%s) (--allow %s)\n", a.Name, d.Title, kind)
		}
	}
	if err != nil {
		res.refused = fmt.Sprintf("could not approve %s for a sub-agent (%s): %v", d.Detail, d.Title, err)
		if res.failed == "" && !res.interrupted {
			r.stopTurn(res.session)
		}
	}
}

// stopTurn asks the server to stop the session's turn; its end comes on
// the stream.
func (r *headlessRun) stopTurn(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := r.api.call(ctx, http.MethodPost, sessionPath(id, "stop"), nil, http.StatusOK, nil)
	var ae *apiError
	if err != nil && !(errors.As(err, &ae) && ae.status == http.StatusConflict) {
		fmt.Fprintf(r.e.stderr, "myco: could not stop the turn of session %s: %v\n", id, err)
	}
}

// succeeded reports whether the turn ended with a whole answer.
func (res *turnResult) succeeded() bool {
	return res.failed == "" && res.refused == "" && !res.interrupted &&
		(res.stop == "end_turn" || res.stop == "stop_sequence")
}

// reason says why a turn that did not succeed failed, in one line.
func (res *turnResult) reason() string {
	switch {
	case res.refused != "":
		return res.refused
	case res.interrupted:
		return "stopped: the turn of session " + res.session + " was interrupted"
	case res.failed != "":
		return "the turn failed: " + res.failed
	case res.stop == "interrupted":
		return "the turn was stopped (from a tab, or the server stopped)"
	case res.stop == "max_tokens":
		return "the answer was cut short at the model's output limit (max_tokens)"
	}
	return fmt.Sprintf("the turn ended without an answer (stop reason %q)", res.stop)
}

// printResult prints the run's last JSON line: the session, the answer,
// how the turn ended and its usage.
func (r *headlessRun) printResult(res turnResult, answer string) error {
	out := struct {
		Event      string          `json:"event"`
		Session    string          `json:"session"`
		Name       string          `json:"name,omitempty"`
		Turn       string          `json:"turn"`
		OK         bool            `json:"ok"`
		Answer     string          `json:"answer"`
		StopReason string          `json:"stop_reason"`
		Usage      json.RawMessage `json:"usage,omitempty"`
		Error      string          `json:"error,omitempty"`
	}{Event: "run.end", Session: res.session, Name: r.opts.name, Turn: res.turn, OK: res.succeeded(),
		Answer: answer, StopReason: res.stop, Usage: res.usage}
	if !out.OK {
		out.Error = res.reason()
	}
	data, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = r.e.stdout.Write(append(data, '\n'))
	return err
}

// printEvent prints a stream event as one JSON line, its name first:
// {"event":"text.delta","message":…,"text":…}.
func printEvent(e env, ev sseEvent) error {
	name, _ := json.Marshal(ev.name)
	var data bytes.Buffer
	line := append([]byte(`{"event":`), name...)
	switch {
	case json.Compact(&data, ev.data) != nil || data.Len() == 0 || data.Bytes()[0] != '{':
		raw, _ := json.Marshal(string(ev.data))
		line = append(append(append(line, `,"data":`...), raw...), '}')
	case data.Len() == 2: // {}
		line = append(line, '}')
	default:
		line = append(append(line, ','), data.Bytes()[1:]...)
	}
	_, err := e.stdout.Write(append(line, '\n'))
	return err
}

// waitTitle waits for the session's title event, for at most d.
func waitTitle(events <-chan sseEvent, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok || ev.name == "title" {
				return
			}
		case <-t.C:
			return
		}
	}
}

// toolInput is a tool call's input in one short line: a command, a path,
// or the input as JSON.
func toolInput(name string, input json.RawMessage) string {
	var in map[string]any
	json.Unmarshal(input, &in)
	for _, k := range []string{"command", "path", "description"} {
		if s, ok := in[k].(string); ok && s != "" {
			return short(s)
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, input) != nil {
		return ""
	}
	return short(b.String())
}

// toolOutcome is a tool call's outcome in one short line.
func toolOutcome(isError bool, output string) string {
	if !isError {
		return "ok"
	}
	return "failed: " + short(output)
}

// short is s on one line, at most 100 characters.
func short(s string) string {
	s = oneLine(s)
	if utf8.RuneCountInString(s) <= 100 {
		return s
	}
	r := []rune(s)
	return string(r[:99]) + "…"
}

// sessionPath is /api/sessions/ID/parts…, each part escaped.
func sessionPath(id string, parts ...string) string {
	p := "/api/sessions/" + url.PathEscape(id)
	for _, part := range parts {
		p += "/" + url.PathEscape(part)
	}
	return p
}
