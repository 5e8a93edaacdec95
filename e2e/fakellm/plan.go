package fakellm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// quoteLimit is how much of a tool result the reply quotes.
const quoteLimit = 200

// reply is what the fake answers to one model call.
type reply struct {
	id     string
	model  string
	text   string
	tool   *toolCall
	toolID string
	// more are further calls of the same answer (several [[tool:…]] in
	// one message), each with an ID of toolID and its number.
	more  []toolCall
	stop  string // Anthropic words; the OpenAI writer maps them
	usage usage
	delay time.Duration
	chunk int
	fault *fault // nil, or the fault this attempt suffers
	// think is the reasoning said before the reply (thinking.go); redacted
	// puts a redacted_thinking block first. Both only when asked for.
	think    string
	redacted bool
}

// plan decides the reply to c from the directives of its last human
// message. The error is the 400 a bad directive gets.
func (s *Server) plan(c *conversation) (reply, error) {
	switch {
	case c.asks("title"):
		return c.simpleReply(titleFor(c)), nil
	case c.asks("summar"):
		return s.summaryReply(c)
	}
	h := c.lastHuman()
	human := ""
	if h >= 0 {
		human = c.messages[h].text()
	}
	sc, err := parseScript(human)
	if err != nil {
		return reply{}, err
	}
	sc.goalSteps(human) // a goal turn's own steps (goal.go)
	round := c.toolRounds(h)
	r := c.scriptedReply(sc, human, round)
	r.fault = s.faultFor(sc, human, round)
	return r, nil
}

// scriptedReply builds the reply for tool round `round` of the script.
func (c *conversation) scriptedReply(sc script, human string, round int) reply {
	var st step
	if round < len(sc.steps) {
		st = sc.steps[round]
	}
	r := reply{model: c.model, delay: sc.delay, chunk: sc.chunk, tool: st.tool, more: st.more, stop: "end_turn"}
	r.id, r.toolID = c.ids(human, round)
	switch {
	case st.text != nil:
		r.text = *st.text
	case st.tool != nil:
		r.text = "Calling " + st.tool.name + "."
	case len(c.pendingResults()) > 0:
		r.text = quote(c.pendingResults())
	case round >= len(sc.steps) && len(sc.steps) > 0:
		r.text = "Done." // the script is over: end the turn
	default:
		r.text = echo(human)
	}
	if c.thinks && st.think != nil {
		r.think = *st.think
	}
	r.redacted = c.thinks && st.redacted
	if r.tool != nil {
		r.stop = "tool_use"
	}
	if sc.stop != "" {
		r.stop = sc.stop
	}
	r.usage = c.usageFor(sc.usage, r)
	return r
}

// simpleReply answers title and summary calls: no directive applies to
// them, so a fault scripted for the chat never hits them and never uses up
// an attempt.
func (c *conversation) simpleReply(text string) reply {
	r := reply{model: c.model, text: text, stop: "end_turn"}
	r.id, r.toolID = c.ids(text, 0)
	r.usage = c.usageFor(nil, r)
	return r
}

// faultFor returns the fault this attempt suffers, if any. A step's own
// fault is counted per step, a message-wide one per conversation.
func (s *Server) faultFor(sc script, human string, round int) *fault {
	f, key := sc.fault, human
	if round < len(sc.steps) && sc.steps[round].fault != nil {
		f, key = sc.steps[round].fault, fmt.Sprintf("%s\x00step %d", human, round)
	}
	if f == nil || !s.attempt(key, f.times) {
		return nil
	}
	return f
}

// attempt counts one attempt under key and reports whether it fails: all
// do when times is 0, else the first times.
func (s *Server) attempt(key string, times int) bool {
	if times == 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts[key]++
	return s.attempts[key] <= times
}

// ids derives the message and tool call IDs from the conversation, so a
// rerun gives the same IDs and two calls in one thread never share one.
func (c *conversation) ids(seed string, round int) (msgID, toolID string) {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d\x00%d", c.provider, seed, len(c.messages), round))
	h := hex.EncodeToString(sum[:12])
	if c.provider == providerOpenAI {
		return "chatcmpl-fake" + h, "call_fake" + h
	}
	return "msg_fake" + h, "toolu_fake" + h
}

func (c *conversation) usageFor(u *usage, r reply) usage {
	if u != nil {
		return *u
	}
	out := len(strings.Fields(r.text))
	if r.tool != nil {
		out += 10
	}
	return usage{out: out} // the input comes from the cache (handlers)
}

// titleFor answers a title request: the last [[title:…]] anywhere in the
// conversation, else the first five words of the first human message.
func titleFor(c *conversation) string {
	title, found := "", false
	for _, m := range c.messages {
		if t, ok := titleIn(m.text()); ok {
			title, found = t, true
		}
	}
	if found {
		return title
	}
	texts := c.humanTexts()
	if len(texts) == 0 {
		return "Untitled"
	}
	if words := firstWords(stripDirectives(texts[0]), 5); words != "" {
		return words
	}
	return "Untitled"
}

// summaryFor answers a summary request with the first eight words of each
// human message, then "keep: …" with what the instructions' <keep> tag
// asks to keep (/compact TEXT), so a test sees it reached the model.
func summaryFor(c *conversation) string {
	var parts []string
	for _, t := range c.humanTexts() {
		if words := firstWords(stripDirectives(t), 8); words != "" {
			parts = append(parts, words)
		}
	}
	if m := keepPattern.FindStringSubmatch(c.system); m != nil {
		parts = append(parts, "keep: "+strings.TrimSpace(m[1]))
	}
	return "Summary: " + strings.Join(parts, " / ")
}

var keepPattern = regexp.MustCompile(`(?s)<keep>(.*?)</keep>`)

func echo(human string) string {
	said := stripDirectives(human)
	if said == "" {
		return "You said nothing."
	}
	return "You said: " + truncate(said, quoteLimit)
}

func quote(results []string) string {
	lines := make([]string, len(results))
	for i, r := range results {
		lines[i] = "Tool result: " + truncate(r, quoteLimit)
	}
	return strings.Join(lines, "\n")
}

func firstWords(s string, n int) string {
	words := strings.Fields(s)
	return strings.Join(words[:min(n, len(words))], " ")
}

// truncate cuts s to n runes.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// summaryDirective finds [[summary_fault:…]] and [[summary_words:N]] in
// any message of a summary request: compaction sends the whole thread, so
// a test writes them in an earlier human message.
var summaryDirective = regexp.MustCompile(`\[\[\s*(summary_fault|summary_words)\s*:\s*([^\]]+?)\s*\]\]`)

// summaryReply answers a summary request: the deterministic summary,
// padded to [[summary_words:N]] words, or the [[summary_fault:…]] fault.
func (s *Server) summaryReply(c *conversation) (reply, error) {
	text := summaryFor(c)
	var f *fault
	for _, m := range c.messages {
		for _, d := range summaryDirective.FindAllStringSubmatch(m.text(), -1) {
			switch d[1] {
			case "summary_words":
				n, err := positive(d[2])
				if err != nil {
					return reply{}, err
				}
				text += " " + loremWords(n)
			case "summary_fault":
				pf, err := parseFault(d[2])
				if err != nil {
					return reply{}, err
				}
				if s.attempt("summary\x00"+d[0], pf.times) {
					f = &pf
				}
			}
		}
	}
	r := c.simpleReply(text)
	r.fault = f
	return r, nil
}
