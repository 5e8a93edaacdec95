package web_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"myco/session"
	"myco/web"
)

const (
	sonnet = "anthropic/claude-sonnet-4-5"
	haiku  = "anthropic/claude-haiku-4-5"
	local  = "ollama/llama3"
)

// testPrices are list prices in dollars per million tokens: input,
// output, cache read, cache write. The local model has none.
var testPrices = map[string][4]float64{
	sonnet: {3, 15, 0.30, 3.75},
	haiku:  {1, 5, 0.10, 1.25},
}

// testPricer prices as profiles.Settings.Cost does, from testPrices.
func testPricer() web.Pricer {
	return func(model string, u session.Usage) (float64, bool) {
		p, ok := testPrices[model]
		if !ok {
			return 0, false
		}
		return (float64(u.InputTokens)*p[0] + float64(u.OutputTokens)*p[1] +
			float64(u.CacheReadInputTokens)*p[2] + float64(u.CacheCreationInputTokens)*p[3]) / 1e6, true
	}
}

func answer(id, model string, in, out, read, write int64) session.Message {
	m := agent(id, id)
	m.Model = model
	m.Usage = &session.Usage{InputTokens: in, OutputTokens: out, CacheReadInputTokens: read, CacheCreationInputTokens: write}
	return m
}

func TestUsageFigures(t *testing.T) {
	tests := []struct {
		name                       string
		u                          web.UsageView
		text, hit, cost, line, row string
	}{
		{
			name: "nothing", text: "in 0 · out 0", hit: "", cost: "$0.00", line: "in 0 · out 0 · $0.00", row: "",
		},
		{
			name: "no cache", u: web.UsageView{Input: 1234, Output: 56, USD: 0.004542},
			text: "in 1,234 · out 56", hit: "0% cache hit", cost: "$0.0045",
			line: "in 1,234 · out 56 · 0% cache hit · $0.0045", row: "$0.0045 · 0% cached",
		},
		{
			// 9,000 of 10,200 input tokens from the cache: 88.2%, shown 88%.
			name: "cache read and write", u: web.UsageView{Input: 1000, Output: 500, CacheRead: 9000, CacheWrite: 200, USD: 0.01395},
			text: "in 1,000 · out 500 · cache read 9,000 · cache write 200", hit: "88% cache hit", cost: "$0.0140",
			line: "in 1,000 · out 500 · cache read 9,000 · cache write 200 · 88% cache hit · $0.0140", row: "$0.0140 · 88% cached",
		},
		{
			name: "a hit just short of all is not 100%", u: web.UsageView{Input: 4, CacheRead: 996, USD: 12.345},
			text: "in 4 · out 0 · cache read 996", hit: "99% cache hit", cost: "$12.35",
			line: "in 4 · out 0 · cache read 996 · 99% cache hit · $12.35", row: "$12.35 · 99% cached",
		},
		{
			name: "large", u: web.UsageView{Input: 12345678, Output: 999, CacheRead: 1000000, USD: 1234.5},
			text: "in 12,345,678 · out 999 · cache read 1,000,000", hit: "7% cache hit", cost: "$1,235",
			line: "in 12,345,678 · out 999 · cache read 1,000,000 · 7% cache hit · $1,235", row: "$1,235 · 7% cached",
		},
		{
			name: "tiny", u: web.UsageView{Input: 3, USD: 0.000009},
			text: "in 3 · out 0", hit: "0% cache hit", cost: "< $0.0001",
			line: "in 3 · out 0 · 0% cache hit · < $0.0001", row: "< $0.0001 · 0% cached",
		},
		{
			name: "price unknown", u: web.UsageView{Input: 10, Output: 2, CacheRead: 30, Unpriced: true, USD: 1},
			text: "in 10 · out 2 · cache read 30", hit: "75% cache hit", cost: "price unknown",
			line: "in 10 · out 2 · cache read 30 · 75% cache hit · price unknown", row: "price unknown · 75% cached",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []string{tt.u.Text(), tt.u.HitText(), tt.u.CostText(), tt.u.Line(), tt.u.RowText()}
			want := []string{tt.text, tt.hit, tt.cost, tt.line, tt.row}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("text, hit, cost, line, row (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSessionUsageCost(t *testing.T) {
	tests := []struct {
		name string
		doc  *session.Document
		want web.UsageView
	}{
		{name: "none", doc: doc(), want: web.UsageView{}},
		{
			// $3 × 1,000 + $15 × 500 + $0.30 × 9,000 + $3.75 × 200, per million.
			name: "cache at its own prices",
			doc:  doc(session.Thread{Messages: []session.Message{human("h1", "hi"), answer("a1", sonnet, 1000, 500, 9000, 200)}}),
			want: web.UsageView{Input: 1000, Output: 500, CacheRead: 9000, CacheWrite: 200, USD: 0.01395, Models: []string{sonnet}},
		},
		{
			// Each answer at its own model's price, not the session's now.
			name: "each answer at its own model's price",
			doc: func() *session.Document {
				d := doc(session.Thread{Messages: []session.Message{
					human("h1", "hi"), answer("a1", sonnet, 1000, 0, 0, 0),
					human("h2", "more"), answer("a2", haiku, 1000, 0, 0, 0),
				}})
				d.Model = local
				return d
			}(),
			want: web.UsageView{Input: 2000, USD: 0.004, Models: []string{haiku, sonnet}},
		},
		{
			name: "a model without a price makes the cost unknown",
			doc: doc(session.Thread{Messages: []session.Message{
				answer("a1", sonnet, 1000, 0, 0, 0), answer("a2", local, 10, 1, 0, 0),
			}}),
			want: web.UsageView{Input: 1010, Output: 1, USD: 0.003, Unpriced: true, Models: []string{sonnet, local}},
		},
		{
			// Documents before answers kept "provider/id" hold the
			// provider's bare ID, or none: priced with the session's.
			name: "older answers: bare ID or none take the session's provider or model",
			doc: func() *session.Document {
				d := doc(session.Thread{Messages: []session.Message{
					answer("a1", "claude-haiku-4-5", 1000, 0, 0, 0), answer("a2", "", 1000, 0, 0, 0),
				}})
				d.Model = sonnet
				return d
			}(),
			want: web.UsageView{Input: 2000, USD: 0.004, Models: []string{sonnet, haiku}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := web.NewSessionView(tt.doc, web.SessionViewOptions{Price: testPricer()})
			if diff := cmp.Diff(tt.want, v.Usage, cmp.Comparer(closeUSD)); diff != "" {
				t.Errorf("Usage (-want +got):\n%s", diff)
			}
			if panel := web.NewPanelView(tt.doc, false, testPricer()); !cmp.Equal(v.Usage, panel.Usage, cmp.Comparer(closeUSD)) {
				t.Errorf("panel %+v, page %+v: the side panel event must show what the page shows", panel.Usage, v.Usage)
			}
		})
	}
}

func closeUSD(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

func TestTurnUsageLines(t *testing.T) {
	steer := human("s1", "use the small one")
	steer.Steer = true
	goal := session.Message{ID: "g1", Role: "user", Goal: &session.GoalTurn{Turn: 1, Of: 3}, Content: []session.Block{{Type: session.BlockText, Text: "Goal"}}}
	failed := answer("f1", sonnet, 100, 0, 0, 0)
	failed.StopReason, failed.ReplacedBy = session.StopError, "r1"
	errorOnly := session.Message{ID: "e1", Role: "assistant", StopReason: session.StopError, Content: []session.Block{}}
	undone := answer("u2", sonnet, 10, 1, 0, 0)
	undone.Undone = true
	tests := []struct {
		name string
		msgs []session.Message
		want map[string]string // after → start: line text
	}{
		{
			name: "one line per turn, after its last answer, with all its answers",
			msgs: []session.Message{
				human("h1", "go"), answer("a1", sonnet, 100, 10, 0, 0), toolResult("t1", "x", `"ok"`, false, 1), answer("a2", sonnet, 5, 20, 100, 0),
				human("h2", "again"), answer("a3", sonnet, 1, 1, 0, 0),
			},
			want: map[string]string{
				"a2": "h1: in 105 · out 30 · cache read 100 · 48% cache hit · $0.0008",
				"a3": "h2: in 1 · out 1 · 0% cache hit · < $0.0001",
			},
		},
		{
			name: "a steer joins the running turn; a goal's turn begins one",
			msgs: []session.Message{
				human("h1", "go"), answer("a1", sonnet, 1000, 0, 0, 0), steer, answer("a2", sonnet, 1000, 0, 0, 0),
				goal, answer("a3", haiku, 1000, 0, 0, 0),
			},
			want: map[string]string{
				"a2": "h1: in 2,000 · out 0 · 0% cache hit · $0.0060",
				"a3": "g1: in 1,000 · out 0 · 0% cache hit · $0.0010",
			},
		},
		{
			name: "a retry begins a turn at its answer; a turn without usage has no line",
			msgs: []session.Message{
				human("h1", "go"), failed, answer("r1", sonnet, 1000, 0, 0, 0),
				human("h2", "more"), errorOnly,
			},
			want: map[string]string{
				"f1": "h1: in 100 · out 0 · 0% cache hit · $0.0003",
				"r1": "r1: in 1,000 · out 0 · 0% cache hit · $0.0030",
			},
		},
		{
			// The card of a failure saved after the turn's answers (a
			// round limit) comes after turn.end rendered the line.
			name: "the line follows the last answer that reported usage",
			msgs: []session.Message{human("h1", "go"), answer("a1", sonnet, 1000, 0, 0, 0), errorOnly},
			want: map[string]string{"a1": "h1: in 1,000 · out 0 · 0% cache hit · $0.0030"},
		},
		{
			name: "a model without a price",
			msgs: []session.Message{human("h1", "go"), answer("a1", local, 7, 3, 0, 0)},
			want: map[string]string{"a1": "h1: in 7 · out 3 · 0% cache hit · price unknown"},
		},
		{
			name: "an undone turn's line is hidden with it",
			msgs: []session.Message{human("h1", "go"), answer("u1", sonnet, 1, 1, 0, 0), undone},
			want: map[string]string{"u2": "h1 hidden: in 11 · out 2 · 0% cache hit · < $0.0001"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := web.MessagesFragment(doc(session.Thread{Messages: tt.msgs}), 0, -1, 0, testPricer())
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, m := range f.Messages {
				if l := m.TurnUsage; l != nil {
					key := l.Start
					if l.Undone {
						key += " hidden"
					}
					got[l.After] = key + ": " + l.Usage.Line()
					if l.After != m.ID {
						t.Errorf("line after %s is on message %s", l.After, m.ID)
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// A run that starts in the middle of a turn ("Load earlier" cut there)
// still shows the whole turn's figures on its line.
func TestTurnUsageLineCountsTheWholeTurn(t *testing.T) {
	msgs := []session.Message{human("h1", "go"), answer("a1", sonnet, 100, 0, 0, 0), human("s", "x"), answer("a2", sonnet, 100, 0, 0, 0)}
	msgs[2].Steer = true
	f, err := web.MessagesFragment(doc(session.Thread{Messages: msgs}), 0, -1, 2, testPricer())
	if err != nil {
		t.Fatal(err)
	}
	last := f.Messages[len(f.Messages)-1]
	if last.TurnUsage == nil || last.TurnUsage.Usage.Input != 200 {
		t.Errorf("line %+v, want the turn's 200 input tokens", last.TurnUsage)
	}
}

// The page and turn.end render the last turn's line alike, and /usage
// shows that turn's and the session's figures from the document.
func TestLastTurnUsageRenders(t *testing.T) {
	d := doc(session.Thread{Messages: []session.Message{
		human("h1", "go"), answer("a1", sonnet, 1000, 500, 9000, 200),
		human("h2", "more"), answer("a2", sonnet, 1000, 500, 9000, 200),
	}})
	d.Model = haiku // changed since: the answers keep sonnet's price
	html, err := web.RenderTurnUsage(d, testPricer())
	if err != nil {
		t.Fatal(err)
	}
	line := parseHTML(t, html).Find(`[data-testid="turn-usage"]`)
	if start, _ := line.Attr("data-turn-start"); start != "h2" {
		t.Errorf("turn start %q, want h2", start)
	}
	if after, _ := line.Attr("data-after"); after != "a2" {
		t.Errorf("after %q, want a2", after)
	}
	if got := textOf(line); got != "in 1,000 · out 500 · cache read 9,000 · cache write 200 · 88% cache hit · $0.0140" {
		t.Errorf("line %q", got)
	}
	page := parseHTML(t, render(t, web.SessionPage(web.NewSessionView(d, web.SessionViewOptions{Price: testPricer()}))))
	onPage, _ := page.Find(`[data-testid="turn-usage"][data-turn-start="h2"]`).Html()
	fromEvent, _ := line.Html()
	if onPage != fromEvent {
		t.Errorf("page line %q, turn.end line %q", onPage, fromEvent)
	}
	if n := page.Find(`[data-testid="turn-usage"]`).Length(); n != 2 {
		t.Errorf("%d lines on the page, want one per turn", n)
	}
	if got := byTestID(page, "session-cost").Text(); got != "$0.0279" {
		t.Errorf("panel cost %q, want $0.0279", got)
	}
	if got := byTestID(page, "session-hit").Text(); got != "88%" {
		t.Errorf("panel hit %q", got)
	}

	card := parseHTML(t, render(t, web.UsageCard(web.NewUsageCardView(d, testPricer()))))
	for id, want := range map[string]string{
		"usage-turn":    "in 1,000 · out 500 · cache read 9,000 · cache write 200 · 88% cache hit · $0.0140",
		"usage-session": "in 2,000 · out 1,000 · cache read 18,000 · cache write 400 · 88% cache hit · $0.0279",
	} {
		if got := textOf(byTestID(card, id)); got != want {
			t.Errorf("/usage %s %q, want %q", id, got, want)
		}
	}
	if html, err := web.RenderTurnUsage(doc(session.Thread{Messages: []session.Message{human("h", "x")}}), nil); err != nil || html != "" {
		t.Errorf("no answer yet: %q, %v; want no line", html, err)
	}
}

func TestSessionRowCost(t *testing.T) {
	sum := session.Summary{ID: "x", Title: "t", Model: sonnet, Usage: []session.ModelUsage{
		{Model: sonnet, Usage: session.Usage{InputTokens: 1000, OutputTokens: 500, CacheReadInputTokens: 9000, CacheCreationInputTokens: 200}},
	}}
	rows := web.WithCost(web.NewSessionRows([]session.Summary{sum}), []session.Summary{sum}, testPricer())
	if got := rows[0].Usage.RowText(); got != "$0.0140 · 88% cached" {
		t.Errorf("row %q", got)
	}
	d := parseHTML(t, render(t, web.SessionRows(web.HomeView{Rows: rows})))
	if got := textOf(byTestID(d, "row-cost")); got != "$0.0140 · 88% cached" {
		t.Errorf("rendered row %q", got)
	}
}

// textOf is s's text as a browser lays it out: runs of white space are one
// space (the HTML between figures has line breaks).
func textOf(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }

// A turn that ended in a compaction (automatic, after the answer) left the
// new thread only the summary and carried messages: its line is the
// earlier thread's last turn.
func TestLastTurnUsageAfterCompaction(t *testing.T) {
	a := answer("a1", sonnet, 6000, 20, 0, 0)
	d := doc(
		session.Thread{Messages: []session.Message{human("h1", "go"), a}},
		session.Thread{Summary: "s", CompactedFrom: new(int), Carried: 2, Messages: []session.Message{human("h1", "go"), a}},
	)
	v, ok := web.LastTurnUsage(d, testPricer())
	if !ok || v.After != "a1" || v.Usage.Input != 6000 {
		t.Errorf("LastTurnUsage = %+v, %v; want the line after a1 with its 6,000 tokens", v, ok)
	}
	d.Threads = append(d.Threads, session.Thread{Messages: []session.Message{human("h2", "more")}})
	if v, ok := web.LastTurnUsage(d, testPricer()); ok {
		t.Errorf("a turn with no answer yet: %+v, want none", v)
	}
}

// A compaction in the middle of a turn (after a tool round, over the
// threshold) leaves the turn's first answers in the old thread and the
// rest in the new one. The turn has one line, after its last answer,
// counting both parts: the live page (turn.end) and a reload agree.
func TestTurnCutByCompactionHasOneLine(t *testing.T) {
	a1 := answer("a1", sonnet, 6000, 20, 0, 0)
	a1.StopReason = "tool_use"
	goOn := session.Message{ID: "c1", Role: "user", At: t0, Content: []session.Block{{Type: session.BlockText, Text: "Continue."}}}
	d := doc(
		session.Thread{Messages: []session.Message{human("h1", "go"), a1, {ID: "r1", Role: "user"}}},
		session.Thread{Summary: "s", CompactedFrom: new(int), Carried: 1, Messages: []session.Message{
			human("h1", "go"), goOn, answer("a2", sonnet, 700, 30, 0, 0)}},
	)
	v, ok := web.LastTurnUsage(d, testPricer())
	if !ok || v.Start != "h1" || v.After != "a2" || v.Usage.Input != 6700 || v.Usage.Output != 50 {
		t.Errorf("turn.end's line = %+v, %v; want h1's turn after a2, in 6,700 out 50", v, ok)
	}
	page := parseHTML(t, render(t, web.SessionPage(web.NewSessionView(d, web.SessionViewOptions{Price: testPricer()}))))
	lines := page.Find(`[data-testid="turn-usage"]`)
	if lines.Length() != 1 {
		t.Fatalf("%d usage lines on the page, want the turn's one", lines.Length())
	}
	if after, _ := lines.Attr("data-after"); after != "a2" {
		t.Errorf("the line follows %q, want a2", after)
	}
	if got := textOf(lines); !strings.HasPrefix(got, "in 6,700 · out 50") {
		t.Errorf("line %q, want both parts counted", got)
	}
	// The earlier thread, opened, shows no line for the part it holds.
	frag, err := web.MessagesFragment(d, 0, 0, 50, testPricer())
	if err != nil {
		t.Fatal(err)
	}
	if n := parseHTML(t, render(t, web.Messages(frag))).Find(`[data-testid="turn-usage"]`).Length(); n != 0 {
		t.Errorf("the earlier thread shows %d lines for the turn's first part, want none", n)
	}
}
