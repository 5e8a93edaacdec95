package server_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The stalled tab: one tab of a session stops reading (a sleeping
// laptop, a frozen browser) while another follows a 40,000-word answer.
// Before the hub bounded each tab, the reading tab stopped after about
// 25 s of text and never got turn.end, and a new tab got no snapshot. Now
// the reading tab gets every word and turn.end, and a tab opened after
// still gets its snapshot.
func TestStalledTabDoesNotStallTheOthers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits out a stalled tab")
	}
	cs := newChatServer(t, "anthropic")
	s := cs.create("long answer")

	// The stalled tab: a small receive window, reads its snapshot, then
	// never reads again.
	frozen, err := net.Dial("tcp", cs.host)
	if err != nil {
		t.Fatal(err)
	}
	defer frozen.Close()
	if err := frozen.(*net.TCPConn).SetReadBuffer(4096); err != nil {
		t.Fatal(err)
	}
	req := "GET /api/sessions/" + s.ID + "/events HTTP/1.1\r\nHost: " + cs.host +
		"\r\nAuthorization: Bearer " + testToken + "\r\nAccept: text/event-stream\r\n\r\n"
	if _, err := io.WriteString(frozen, req); err != nil {
		t.Fatal(err)
	}
	if err := frozen.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(frozen)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stalled tab: no snapshot: %v", err)
		}
		if line == "event: snapshot\n" {
			break
		}
	}

	// The reading tab. Its reader takes lines of any size: the answer's
	// last events carry all of its 40,000 words at once.
	resp := cs.do("GET", "/api/sessions/"+s.ID+"/events", nil)
	wantStatus(t, resp, http.StatusOK)
	events := make(chan sseEvent, 4096)
	go readLongEvents(resp.Body, events)
	const words = 40000
	// Five words a delta, as a provider sends a few tokens at a time.
	wantStatus(t, cs.send(s.ID, "[[text:40000]] [[chunk:5]]"), http.StatusAccepted)
	var text strings.Builder
	var ended bool
	timeout := time.After(10 * time.Minute) // only turns a hang into a failure
	for !ended {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the reading tab's stream ended after %d words", len(strings.Fields(text.String())))
			}
			switch ev.name {
			case "text.delta":
				text.WriteString(data(t, ev)["text"].(string))
			case "turn.end":
				ended = true
			}
		case <-timeout:
			t.Fatalf("the reading tab got %d words and no turn.end: the stalled tab stalls it", len(strings.Fields(text.String())))
		}
	}
	if n := len(strings.Fields(text.String())); n != words {
		t.Errorf("the reading tab got %d words, want %d", n, words)
	}
	if got := textOf(lastMessage(t, cs.sessions, s.ID)); got != text.String() {
		t.Errorf("the saved answer (%d bytes) differs from what the reading tab got (%d bytes)", len(got), text.Len())
	}
	// A tab opened now still gets its snapshot (cs.stream waits for it).
	cs.stream(t, s.ID)
}

// readLongEvents is readEvents for events of any size.
func readLongEvents(r io.Reader, out chan<- sseEvent) {
	defer close(out)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.name != "" {
				out <- ev
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			ev.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			ev.data += line[6:]
		}
	}
}
