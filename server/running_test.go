package server_test

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"myco/profiles"
)

// Through the events endpoint: a tab that opens while a command runs gets
// the lines printed so far in its snapshot, and the rest as tool.output.
func TestReconnectMidCommandGetsItsOutput(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, "anthropic", func(s *profiles.Settings) { s.Approvals.Bash = profiles.ApprovalAllow })
	s := cs.create("mid-command")
	st := cs.stream(t, s.ID)
	// The command waits for a file the test writes, so the snapshot is
	// taken between the two lines without timing.
	gate := cs.dir + "/gate"
	cmd := `echo out line 1; echo out line 2; while [ ! -e ` + gate + ` ]; do sleep 0.05; done; echo out line 3`
	wantStatus(t, cs.send(s.ID, `[[tool:bash {"command":`+jsonString(cmd)+`}]]`), http.StatusAccepted)
	for seen := ""; !strings.Contains(seen, "out line 2"); {
		seen += data(t, nextEvent(t, st.events, "tool.output"))["text"].(string)
	}
	resp := cs.do("GET", "/api/sessions/"+s.ID+"/events", nil)
	second := make(chan sseEvent, 4096)
	go readEvents(t, resp.Body, second)
	snap := data(t, nextEvent(t, second, "snapshot"))
	running, _ := snap["running"].([]any)
	if len(running) != 1 {
		t.Fatalf("snapshot mid-command: running = %v", snap["running"])
	}
	r := running[0].(map[string]any)
	// The shell hands output over a line at a time, its newline with the
	// next line.
	if strings.TrimSpace(r["output"].(string)) != "out line 1\nout line 2" || r["name"] != "bash" || r["html"] == "" || r["message"] == "" {
		t.Errorf("running call %v", r)
	}
	if at, err := time.Parse(time.RFC3339Nano, r["started_at"].(string)); err != nil || at.After(time.Now()) {
		t.Errorf("started_at %v: %v", r["started_at"], err)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	text := r["output"].(string)
	for ev := range second {
		if ev.name == "tool.output" {
			text += data(t, ev)["text"].(string)
		}
		if ev.name == "tool.end" {
			break
		}
	}
	if want := "out line 1\nout line 2\nout line 3"; strings.TrimSpace(text) != want {
		t.Errorf("the second tab saw %q, want %q", text, want)
	}
	st.until("turn.end")
}
