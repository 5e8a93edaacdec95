package fakellm_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"myco/e2e/fakellm"
)

// A session's first request as an agent sends it: a tool, a system prompt
// with a breakpoint, one user message, automatic caching on the last block.
func firstTurn() messagesReq {
	return messagesReq{
		tools:  []map[string]any{toolDef("bash", 300)},
		system: []map[string]any{marked(textBlock("system", 900), "")},
		msgs:   []map[string]any{user(blocks(textBlock("question", 200)))},
		auto:   "5m",
	}
}

func TestCacheTokenEstimate(t *testing.T) {
	// 4,000 bytes of canonical JSON are 1,000 tokens; a 1,001st byte
	// starts another token.
	srv := startFrozen(t)
	block := textBlock("x", 1000)
	req := messagesReq{msgs: []map[string]any{user(blocks(block))}}
	if got := sendMessages(t, srv, req.body()); got != (figures{In: 1000}) {
		t.Errorf("4,000 bytes: %+v, want 1,000 input tokens", got)
	}
	block["text"] = block["text"].(string) + "y"
	if got := sendMessages(t, srv, req.body()); got != (figures{In: 1001}) {
		t.Errorf("4,001 bytes: %+v, want 1,001 input tokens", got)
	}
}

func TestCacheRepeatedRequestReadsWholePrefix(t *testing.T) {
	srv := startFrozen(t)
	req := firstTurn()
	total := tokens(t, req.tools[0], req.system[0], textBlock("question", 200))
	if got := sendMessages(t, srv, req.body()); got != (figures{Write: total}) {
		t.Errorf("first request %+v, want all %d tokens written", got, total)
	}
	if got := sendMessages(t, srv, req.body()); got != (figures{Read: total}) {
		t.Errorf("same request again %+v, want all %d tokens read", got, total)
	}
}

func TestCacheChangedToolReadsNothing(t *testing.T) {
	tests := []struct {
		name string
		tool json.RawMessage
	}{
		{name: "another description", tool: json.RawMessage(`{"name":"bash","description":"Run a command, now said otherwise.","input_schema":{"type":"object","required":["command"],"additionalProperties":false}}`)},
		// The bug of issue 19: the same schema with its keys in another
		// order is another prefix.
		{name: "keys in another order", tool: json.RawMessage(`{"name":"bash","description":"Run a command.","input_schema":{"type":"object","additionalProperties":false,"required":["command"]}}`)},
	}
	base := json.RawMessage(`{"name":"bash","description":"Run a command.","input_schema":{"type":"object","required":["command"],"additionalProperties":false}}`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startFrozen(t)
			req := firstTurn()
			body := func(tool json.RawMessage) map[string]any {
				b := req.body()
				b["tools"] = []any{tool}
				return b
			}
			first := sendMessages(t, srv, body(base))
			if got := sendMessages(t, srv, body(tt.tool)); got.Read != 0 || got.Write == 0 {
				t.Errorf("after the tool changed: %+v, want nothing read, all written (first %+v)", got, first)
			}
		})
	}
}

func TestCacheAppendedMessageReadsOldPrefixWritesNew(t *testing.T) {
	srv := startFrozen(t)
	req := firstTurn()
	first := sendMessages(t, srv, req.body())
	answer, next := textBlock("answer", 150), textBlock("followup", 50)
	req.msgs = append(req.msgs, assistant(blocks(answer)), user(blocks(next)))
	want := figures{Read: first.Write, Write: tokens(t, answer, next)}
	if got := sendMessages(t, srv, req.body()); got != want {
		t.Errorf("second turn %+v, want %+v", got, want)
	}
}

func TestCacheRollingBreakpoints(t *testing.T) {
	sys := marked(textBlock("system", 1200), "")
	q1, a1, q2 := textBlock("q1", 100), textBlock("a1", 100), textBlock("q2", 100)
	tests := []struct {
		name   string
		second []map[string]any
		want   figures
	}{
		{
			// The breakpoint moves from the first question to the newest
			// message: looking back from it finds the entry at q1.
			name:   "moved to the newest message",
			second: []map[string]any{user(blocks(q1)), assistant(blocks(a1)), user(blocks(marked(q2, "")))},
			want:   figures{Read: 1200 + 100, Write: 200},
		},
		{
			// More than 20 blocks since the last entry: the lookback misses
			// it, and only the system prompt's breakpoint is read.
			name: "beyond the 20-block lookback",
			second: []map[string]any{user(blocks(q1)), assistant(blocks(a1)),
				user(blocks(append(manyBlocks(20), marked(q2, ""))...))},
			want: figures{Read: 1200, Write: 100 + 100 + 20*10 + 100},
		},
		{
			// Exactly 20 blocks before the breakpoint is still within it.
			name: "at the edge of the lookback",
			second: []map[string]any{user(blocks(q1)), assistant(blocks(a1)),
				user(blocks(append(manyBlocks(18), marked(q2, ""))...))},
			want: figures{Read: 1300, Write: 100 + 18*10 + 100},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startFrozen(t)
			first := messagesReq{system: []map[string]any{sys}, msgs: []map[string]any{user(blocks(marked(q1, "")))}}
			if got := sendMessages(t, srv, first.body()); got != (figures{Write: 1300}) {
				t.Fatalf("first %+v", got)
			}
			second := messagesReq{system: []map[string]any{sys}, msgs: tt.second}
			if got := sendMessages(t, srv, second.body()); got != tt.want {
				t.Errorf("second %+v, want %+v", got, tt.want)
			}
		})
	}
}

// manyBlocks is n text blocks of 10 tokens each.
func manyBlocks(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = textBlock(strings.Repeat("b", i+1), 10)
	}
	return out
}

func TestCacheLifetime(t *testing.T) {
	tests := []struct {
		name  string
		ttl   string
		waits []time.Duration // before each request after the first
		reads []bool
	}{
		{name: "5m read within the lifetime", waits: []time.Duration{4*time.Minute + 59*time.Second}, reads: []bool{true}},
		{name: "5m expires", waits: []time.Duration{5 * time.Minute}, reads: []bool{false}},
		{name: "5m a read refreshes it", waits: []time.Duration{4 * time.Minute, 4 * time.Minute, 4 * time.Minute}, reads: []bool{true, true, true}},
		{name: "5m a rewrite after expiry is read again", waits: []time.Duration{6 * time.Minute, time.Minute}, reads: []bool{false, true}},
		{name: "1h read after 59 minutes", ttl: "1h", waits: []time.Duration{59 * time.Minute}, reads: []bool{true}},
		{name: "1h expires", ttl: "1h", waits: []time.Duration{time.Hour}, reads: []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startFrozen(t)
			req := firstTurn()
			req.system[0] = marked(textBlock("system", 900), tt.ttl)
			req.auto = cmpOr(tt.ttl, "5m")
			total := sendMessages(t, srv, req.body()).Write
			for i, wait := range tt.waits {
				srv.Advance(wait)
				got := sendMessages(t, srv, req.body())
				want := figures{Write: total}
				if tt.reads[i] {
					want = figures{Read: total}
				}
				if tt.ttl == "1h" {
					want.Write1h = want.Write
				}
				if got != want {
					t.Errorf("request %d after %v: %+v, want %+v", i+2, wait, got, want)
				}
			}
		})
	}
}

// A read found by looking back refreshes the entry it read, though the
// request has no breakpoint there: a fork from that point, later, still
// reads it.
func TestCacheLookbackReadRefreshes(t *testing.T) {
	srv := startFrozen(t)
	sys := marked(textBlock("system", 1200), "")
	q1 := textBlock("q1", 100)
	first := messagesReq{system: []map[string]any{sys}, msgs: []map[string]any{user(blocks(marked(q1, "")))}}
	sendMessages(t, srv, first.body())
	srv.Advance(4 * time.Minute)
	next := messagesReq{system: []map[string]any{sys}, msgs: []map[string]any{user(blocks(q1)), assistant(blocks(textBlock("a1", 100))), user(blocks(marked(textBlock("q2", 100), "")))}}
	if got := sendMessages(t, srv, next.body()); got.Read != 1300 {
		t.Fatalf("second %+v, want 1,300 read", got)
	}
	srv.Advance(4 * time.Minute) // 8 minutes after the entry at q1 was written
	fork := messagesReq{system: []map[string]any{sys}, msgs: []map[string]any{user(blocks(q1)), assistant(blocks(textBlock("other", 100))), user(blocks(marked(textBlock("q3", 100), "")))}}
	if got, want := sendMessages(t, srv, fork.body()), (figures{Read: 1300, Write: 200}); got != want {
		t.Errorf("fork %+v, want %+v", got, want)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func TestCacheOneHourSystemFiveMinuteMessages(t *testing.T) {
	srv := startFrozen(t)
	req := firstTurn()
	req.system[0] = marked(textBlock("system", 900), "1h")
	head := tokens(t, req.tools[0], req.system[0])
	tail := tokens(t, textBlock("question", 200))
	if got, want := sendMessages(t, srv, req.body()), (figures{Write: head + tail, Write1h: head}); got != want {
		t.Errorf("first %+v, want %+v", got, want)
	}
	// After half an hour the messages' entry has expired, the system
	// prompt's has not.
	srv.Advance(30 * time.Minute)
	if got, want := sendMessages(t, srv, req.body()), (figures{Read: head, Write: tail}); got != want {
		t.Errorf("after 30 minutes %+v, want %+v", got, want)
	}
}

func TestCacheRefusesWhatTheAPIRefuses(t *testing.T) {
	sys := textBlock("system", 900)
	q := textBlock("q", 10)
	tests := []struct {
		name string
		req  messagesReq
		want string
	}{
		{name: "five breakpoints", want: "maximum of 4 blocks with cache_control",
			req: messagesReq{system: []map[string]any{marked(sys, "")}, msgs: []map[string]any{user(blocks(marked(q, ""), marked(q, ""), marked(q, ""), marked(q, "")))}}},
		{name: "automatic caching is the fifth", want: "Found 5", req: messagesReq{auto: "5m",
			system: []map[string]any{marked(sys, "")}, msgs: []map[string]any{user(blocks(marked(q, ""), marked(q, ""), marked(q, ""), q))}}},
		{name: "1h after 5m", want: "ttl '1h' must not come after",
			req: messagesReq{system: []map[string]any{marked(sys, "5m")}, msgs: []map[string]any{user(blocks(marked(q, "1h")))}}},
		{name: "automatic 1h after a 5m system", want: "ttl '1h' must not come after",
			req: messagesReq{auto: "1h", system: []map[string]any{marked(sys, "")}, msgs: []map[string]any{user(blocks(q))}}},
		{name: "unknown ttl", want: "ttl", req: messagesReq{system: []map[string]any{marked(sys, "2h")}, msgs: []map[string]any{user(blocks(q))}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startFrozen(t)
			r := post(t, srv.URL+"/v1/messages", tt.req.body())
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), tt.want) {
				t.Errorf("status %d %s, want 400 with %q", r.status, r.body, tt.want)
			}
		})
	}
}

func TestCacheBelowMinimumNotCached(t *testing.T) {
	small := messagesReq{system: []map[string]any{marked(textBlock("system", 500), "")}, msgs: []map[string]any{user(blocks(textBlock("q", 100)))}, auto: "5m"}
	t.Run("default 1024", func(t *testing.T) {
		srv := startFrozen(t)
		for i := range 2 {
			if got := sendMessages(t, srv, small.body()); got != (figures{In: 600}) {
				t.Errorf("request %d: %+v, want 600 input tokens and no cache", i+1, got)
			}
		}
		if n := len(srv.CacheStats().Entries); n != 0 {
			t.Errorf("%d entries stored", n)
		}
	})
	t.Run("a short breakpoint before a long one", func(t *testing.T) {
		srv := startFrozen(t)
		long := small
		long.msgs = []map[string]any{user(blocks(textBlock("q", 600)))}
		if got := sendMessages(t, srv, long.body()); got != (figures{Write: 1100}) {
			t.Errorf("first %+v", got)
		}
		// The 500-token system prompt was not stored on its own: another
		// question reads nothing.
		other := small
		other.msgs = []map[string]any{user(blocks(textBlock("other", 600)))}
		if got := sendMessages(t, srv, other.body()); got != (figures{Write: 1100}) {
			t.Errorf("another question %+v, want nothing read", got)
		}
	})
	t.Run("MinCacheTokens lowers it", func(t *testing.T) {
		srv := startFrozen(t, fakellm.MinCacheTokens(100))
		sendMessages(t, srv, small.body())
		if got := sendMessages(t, srv, small.body()); got != (figures{Read: 600}) {
			t.Errorf("again %+v, want 600 read", got)
		}
	})
}

func TestCacheKeyedByModelAndThinking(t *testing.T) {
	srv := startFrozen(t)
	req := firstTurn()
	total := sendMessages(t, srv, req.body()).Write
	head := tokens(t, req.tools[0], req.system[0])

	other := req
	other.model = "claude-other"
	if got := sendMessages(t, srv, other.body()); got != (figures{Write: total}) {
		t.Errorf("another model %+v, want nothing read", got)
	}
	// Turning thinking on keeps the tools and system prompt cached, not
	// the messages.
	thinks := req
	thinks.extra = map[string]any{"max_tokens": 4000, "thinking": map[string]any{"type": "enabled", "budget_tokens": 2000}}
	if got := sendMessages(t, srv, thinks.body()); got != (figures{Read: head, Write: total - head}) {
		t.Errorf("thinking on %+v, want %d read", got, head)
	}
}

func TestCacheUsageDirectiveWins(t *testing.T) {
	srv := startFrozen(t)
	req := firstTurn()
	sendMessages(t, srv, req.body())
	req.msgs = []map[string]any{user("hello [[usage:in=7,out=3]]")}
	r := post(t, srv.URL+"/v1/messages", req.body())
	want := map[string]any{"input_tokens": 7.0, "output_tokens": 3.0, "cache_read_input_tokens": 0.0, "cache_creation_input_tokens": 0.0}
	if diff := cmp.Diff(want, path(eventData(t, r, "message_delta"), "usage")); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	// The cache still saw it: the system prompt was read, the question
	// written.
	if got := srv.CacheStats().Totals.CacheReadInputTokens; got != tokens(t, req.tools[0], req.system[0]) {
		t.Errorf("simulated reads %d", got)
	}
	if u := srv.Requests()[1].Usage; u == nil || !u.Scripted || u.InputTokens != 7 {
		t.Errorf("recorded usage %+v", u)
	}
}

func TestCacheControlEndpoints(t *testing.T) {
	srv := startFrozen(t)
	req := firstTurn()
	total := sendMessages(t, srv, req.body()).Write

	var stats fakellm.CacheStats
	getJSON(t, srv.URL+"/_cache", &stats)
	head := tokens(t, req.tools[0], req.system[0])
	want := []fakellm.CacheEntry{
		{Provider: "anthropic", Model: "claude-test", Tokens: head, TTL: "5m0s", ExpiresIn: "5m0s"},
		{Provider: "anthropic", Model: "claude-test", Tokens: total, TTL: "5m0s", ExpiresIn: "5m0s"},
	}
	if diff := cmp.Diff(want, stats.Entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if stats.Totals != (fakellm.CacheTotals{Requests: 1, CacheCreationInputTokens: total}) || stats.MinCacheTokens != 1024 || !stats.Now.Equal(t0) {
		t.Errorf("stats %+v", stats)
	}

	// POST /_clock moves the clock: the entries expire.
	r := post(t, srv.URL+"/_clock", map[string]any{"advance": "5m"})
	if r.status != 200 || !strings.Contains(string(r.body), t0.Add(5*time.Minute).Format(time.RFC3339)) {
		t.Errorf("POST /_clock: %d %s", r.status, r.body)
	}
	if r := post(t, srv.URL+"/_clock", map[string]any{"advance": "soon"}); r.status != 400 {
		t.Errorf("a bad duration: %d", r.status)
	}
	if got := sendMessages(t, srv, req.body()); got.Read != 0 {
		t.Errorf("after 5 minutes %+v", got)
	}

	// The request log says what each answer reported.
	var reqs []fakellm.Recorded
	getJSON(t, srv.URL+"/_requests", &reqs)
	if len(reqs) != 2 || reqs[0].Usage == nil || reqs[0].Usage.CacheCreationInputTokens != total || reqs[0].Usage.Scripted {
		t.Errorf("recorded %+v", reqs)
	}

	// DELETE /_cache forgets every entry, and so does Reset.
	do(t, http.MethodDelete, srv.URL+"/_cache", http.StatusNoContent)
	if got := sendMessages(t, srv, req.body()); got.Read != 0 {
		t.Errorf("after DELETE /_cache %+v", got)
	}
	srv.Reset()
	if st := srv.CacheStats(); len(st.Entries) != 0 || st.Totals != (fakellm.CacheTotals{}) {
		t.Errorf("after Reset %+v", st)
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func do(t *testing.T, method, url string, want int) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != want {
		t.Errorf("%s %s: %d, want %d", method, url, resp.StatusCode, want)
	}
}
