package server_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"myco/server"
)

// shortTimeouts is a server whose connections time out in a fifth of a
// second, so a test sees what a real one does after a minute.
func shortTimeouts(t *testing.T) *testServer {
	return startServer(t, t.TempDir(), func(o *server.Options) {
		o.HeaderTimeout, o.BodyTimeout, o.IdleTimeout = 200*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond
	})
}

// closedByServer waits for conn to be closed by the other end: it reads,
// discarding whatever comes (a 400 for a cut body), until EOF or a reset.
// The bound only turns a hang into a failure.
func closedByServer(conn net.Conn) error {
	if err := conn.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
		return err
	}
	_, err := io.Copy(io.Discard, conn)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return errors.New("still held by the server")
	}
	return nil // EOF (nil from io.Copy) or a reset: closed
}

// Before, 200 idle keep-alive connections were all still held after more
// than 60 s: the server had no IdleTimeout.
func TestIdleKeepAliveConnectionsAreClosed(t *testing.T) {
	t.Parallel()
	ts := shortTimeouts(t)
	forEachConn(t, ts, 200, func(conn net.Conn) error {
		if _, err := io.WriteString(conn, "GET /api/sessions HTTP/1.1\r\nHost: "+ts.host+"\r\nAuthorization: Bearer "+testToken+"\r\n\r\n"); err != nil {
			return err
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		if resp.Close {
			return errors.New("the server closed the connection at once: not a keep-alive test")
		}
		return closedByServer(conn)
	})
}

// Before, 200 request bodies that never finished were all still held: the
// server read them for as long as the client cared to send a byte now and
// then.
func TestSlowRequestBodiesAreClosed(t *testing.T) {
	t.Parallel()
	ts := shortTimeouts(t)
	forEachConn(t, ts, 200, func(conn net.Conn) error {
		head := "POST /api/sessions HTTP/1.1\r\nHost: " + ts.host + "\r\nAuthorization: Bearer " + testToken +
			"\r\nOrigin: " + ts.url + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"title\": \""
		if _, err := io.WriteString(conn, head); err != nil {
			return err
		}
		return closedByServer(conn)
	})
}

// A request whose headers never end is closed too (ReadHeaderTimeout,
// which myco always had; kept here with the others).
func TestSlowHeadersAreClosed(t *testing.T) {
	t.Parallel()
	ts := shortTimeouts(t)
	forEachConn(t, ts, 20, func(conn net.Conn) error {
		if _, err := io.WriteString(conn, "GET /api/sessions HTTP/1.1\r\nHost: "+ts.host+"\r\n"); err != nil {
			return err
		}
		return closedByServer(conn)
	})
}

// An event stream outlives every timeout: it has no body, and its
// heartbeat keeps it alive. Ten heartbeats at 100 ms outlast the 200 ms
// timeouts five times over.
func TestEventStreamOutlivesTimeouts(t *testing.T) {
	t.Parallel()
	ts := shortTimeouts(t)
	s := ts.create("quiet")
	resp := ts.do("GET", "/api/sessions/"+s.ID+"/events", nil)
	wantStatus(t, resp, 200)
	sc := bufio.NewScanner(resp.Body)
	beats := 0
	for beats < 10 && sc.Scan() {
		if strings.HasPrefix(sc.Text(), ":") {
			beats++
		}
	}
	if beats < 10 {
		t.Fatalf("the stream ended after %d heartbeats: %v", beats, sc.Err())
	}
	// And a POST with a body that arrives in time still works.
	wantStatus(t, ts.do("POST", "/api/sessions", strings.NewReader(`{"title":"in time"}`), "Origin", ts.url), 201)
}

// forEachConn dials n connections to ts at once and runs check on each.
func forEachConn(t *testing.T, ts *testServer, n int, check func(net.Conn) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		conn, err := net.Dial("tcp", ts.host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		wg.Go(func() {
			if err := check(conn); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if failed++; failed <= 3 {
			t.Error(err)
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d connections failed", failed, n)
	}
}
