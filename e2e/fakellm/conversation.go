package fakellm

import (
	"regexp"
	"strings"
)

// conversation is a request of either provider reduced to what the script
// needs: the system prompt and the messages as text, tool calls and tool
// results.
type conversation struct {
	provider     string
	model        string
	system       string
	stream       bool
	includeUsage bool // OpenAI stream_options.include_usage
	tools        int  // tools the request offers
	thinks       bool // the request asked for thinking (thinking.go)
	messages     []message
}

// message is one message of a conversation. OpenAI "tool" messages are
// folded into a user message of tool results, as Anthropic sends them.
type message struct {
	role    string // "user" or "assistant"
	texts   []string
	images  int
	tools   int      // tool calls an assistant message makes
	results []string // tool results a user message carries, as text
}

// human reports whether a person wrote m: a user message with text or an
// image and no tool result. A note added beside tool results is not a new
// human message, so it does not restart the script.
func (m message) human() bool {
	return m.role == "user" && len(m.results) == 0 && (len(m.texts) > 0 || m.images > 0)
}

// text is what the person wrote: myco's own <system-reminder> notes to the
// agent (a new shell, the date) are not theirs, so an echo leaves them out.
func (m message) text() string {
	return strings.TrimSpace(reminderPattern.ReplaceAllString(strings.Join(m.texts, "\n"), ""))
}

var reminderPattern = regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>\s*`)

// lastHuman returns the index of the last human message, or -1.
func (c *conversation) lastHuman() int {
	for i := len(c.messages) - 1; i >= 0; i-- {
		if c.messages[i].human() {
			return i
		}
	}
	return -1
}

// toolRounds counts the assistant messages after message i that called
// tools: the script's step number. Text-only assistant messages are not
// counted, so a partial reply kept after a fault replays the same step.
func (c *conversation) toolRounds(i int) int {
	n := 0
	for _, m := range c.messages[i+1:] {
		if m.role == "assistant" && m.tools > 0 {
			n++
		}
	}
	return n
}

// pendingResults returns the tool results of the last message when it is
// a user message answering tools.
func (c *conversation) pendingResults() []string {
	if len(c.messages) == 0 {
		return nil
	}
	last := c.messages[len(c.messages)-1]
	if last.role != "user" {
		return nil
	}
	return last.results
}

// humanTexts returns the text of every human message, in order.
func (c *conversation) humanTexts() []string {
	var texts []string
	for _, m := range c.messages {
		if m.human() {
			texts = append(texts, m.text())
		}
	}
	return texts
}

// asks reports whether c is a side request (a title, a summary) whose
// system prompt mentions word. The agent's own system prompt may mention
// titles and summaries too, but it comes with tools; side requests do not.
func (c *conversation) asks(word string) bool {
	return c.tools == 0 && strings.Contains(strings.ToLower(c.system), word)
}
