package web_test

import (
	"testing"

	"myco/session"
	"myco/web"
)

// A failed answer shows why, in the person's words, with a Retry button;
// one that failed before any text shows its error alone. An interrupted
// answer can be retried too; a finished or replaced one cannot.
func TestFailedAnswerShowsErrorAndRetry(t *testing.T) {
	refused := "The API key was refused by anthropic. It is read from ANTHROPIC_API_KEY (settings providers.anthropic.api_key_env)."
	errorOnly := session.Message{ID: "e1", Role: "assistant", StopReason: session.StopError, Content: []session.Block{},
		Error: &session.MessageError{Kind: "auth", Message: refused, Status: 401, Provider: "anthropic"}}
	withText := agent("e2", "Half an answer")
	withText.StopReason = session.StopError
	withText.Error = &session.MessageError{Kind: "overloaded", Message: "anthropic is overloaded; retry in a moment."}
	stopped := agent("s1", "Half")
	stopped.StopReason = session.StopInterrupted
	replaced := agent("r1", "Half")
	replaced.StopReason, replaced.ReplacedBy = session.StopError, "x"

	tests := []struct {
		name      string
		in        session.Message
		wantError string // the error shown, "" for none
		wantKind  string
		wantStop  string
		wantRetry bool
	}{
		{name: "failed before any text", in: errorOnly, wantError: refused, wantKind: "auth", wantStop: "", wantRetry: true}, // the card says it
		{name: "failed with text", in: withText, wantError: "anthropic is overloaded; retry in a moment.", wantKind: "overloaded",
			wantStop: "Failed: this response ended with an error before it finished.", wantRetry: true},
		{name: "interrupted", in: stopped, wantStop: "Interrupted: this response was stopped before it finished.", wantRetry: true},
		{name: "replaced by a retry", in: replaced, wantStop: "Failed: this response ended with an error before it finished."},
		{name: "finished", in: agent("a", "done")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := parseHTML(t, render(t, web.Message(web.NewMessageView(sessionID, tt.in))))
			e := byTestID(q, "message-error")
			if got := e.Text(); got != tt.wantError {
				t.Errorf("error shown %q, want %q", got, tt.wantError)
			}
			if kind, _ := e.Attr("data-kind"); kind != tt.wantKind {
				t.Errorf("data-kind %q, want %q", kind, tt.wantKind)
			}
			if got := byTestID(q, "stop-marker").Text(); got != tt.wantStop {
				t.Errorf("stop marker %q, want %q", got, tt.wantStop)
			}
			b := byTestID(q, "retry-button")
			if (b.Length() == 1) != tt.wantRetry {
				t.Errorf("%d Retry buttons, want one: %v", b.Length(), tt.wantRetry)
			}
			if a, _ := b.Attr("data-action"); tt.wantRetry && (a != "retry" || !b.Is("button[type=button]")) {
				t.Errorf("Retry is not a button with data-action=retry: %q", a)
			}
		})
	}
}

// An answer that is only its error stays in a run of messages (it is
// not an empty message to leave out).
func TestErrorOnlyAnswerKeptInFragment(t *testing.T) {
	failed := session.Message{ID: "e1", Role: "assistant", StopReason: session.StopError, Content: []session.Block{},
		Error: &session.MessageError{Kind: "auth", Message: "refused"}}
	f, err := web.MessagesFragment(doc(session.Thread{Messages: []session.Message{human("h1", "hi"), failed}}), 0, -1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Messages) != 2 || f.Messages[1].Error == nil || f.Messages[1].Error.Message != "refused" {
		t.Errorf("fragment messages %+v", f.Messages)
	}
}

// The provider's own words (status line, URL, request ID) are behind a
// fold under the one-sentence message, never in it; an error without
// them has no fold.
func TestErrorDetailsAreFolded(t *testing.T) {
	raw := `anthropic: status 529: POST "https://api.anthropic.com/v1/messages": 200 OK {"type":"error","error":{"type":"overloaded_error"},"request_id":"req_011"} (retried twice)`
	msg := "The provider is overloaded (anthropic, 529). myco retried twice; try again in a minute."
	m := session.Message{ID: "e1", Role: "assistant", StopReason: session.StopError, Content: []session.Block{},
		Error: &session.MessageError{Kind: "overloaded", Message: msg, Status: 529, Provider: "anthropic", Details: raw}}
	q := parseHTML(t, render(t, web.Message(web.NewMessageView(sessionID, m))))
	if got := byTestID(q, "message-error").Text(); got != msg {
		t.Errorf("error shown %q, want %q", got, msg)
	}
	d := byTestID(q, "message-error-details")
	if !d.Is("details") || d.Find("summary").Text() != "Details" || d.Find("pre").Text() != raw {
		t.Errorf("details: %q, want a closed <details> with the raw error", d.Text())
	}
	if _, open := d.Attr("open"); open {
		t.Error("the details are open")
	}
	m.Error.Details = ""
	q = parseHTML(t, render(t, web.Message(web.NewMessageView(sessionID, m))))
	if n := byTestID(q, "message-error-details").Length(); n != 0 {
		t.Errorf("%d detail folds for an error without details", n)
	}
}
