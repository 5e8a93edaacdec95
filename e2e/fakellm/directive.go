package fakellm

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// directivePattern matches [[name]] and [[name:argument]]. The argument
// ends at the first "]]", so JSON inside a directive must not contain "]]".
var directivePattern = regexp.MustCompile(`(?s)\[\[\s*([a-z_]+)\s*(?::(.*?))?\]\]`)

// script is what the directives of one human message ask for.
type script struct {
	steps    []step // replies for successive model calls; empty means echo
	usage    *usage
	delay    time.Duration
	chunk    int
	fault    *fault // applies to every call of the conversation
	stop     string // stop reason override, Anthropic words
	title    string
	hasSteps bool
	goal     []goalEntry // [[goal: …]]: one entry per goal turn (goal.go)
}

// step is the reply to one model call. A nil text means "the default for
// this position" (see plan.go).
type step struct {
	text     *string
	tool     *toolCall
	more     []toolCall // further calls in the same answer
	fault    *fault
	think    *string // reasoning before the reply, when the request asks for it
	redacted bool    // a redacted_thinking block first (Anthropic)
}

type toolCall struct {
	name  string
	input json.RawMessage
}

// usage is what a reply reports. in counts the input after the last
// cache breakpoint (OpenAI: the prompt tokens not cached), cacheWrite1h
// the part of cacheWrite written for an hour.
type usage struct {
	in, out, cacheRead, cacheWrite int
	cacheWrite1h                   int
	scripted                       bool // [[usage:…]] set it, not the cache
}

// withInput takes the input figures of the simulated cache, unless a
// [[usage:…]] directive gave them: the directive always wins.
func (u usage) withInput(sim usage) usage {
	if u.scripted {
		return u
	}
	sim.out = u.out
	return sim
}

// fault is a failure to inject. times == 0 means every attempt fails;
// otherwise only the first times attempts do.
type fault struct {
	kind   string // "http", "cut", "malformed", "error"
	status int
	times  int
}

// parseScript reads every directive in text. An unknown or malformed
// directive is an error, so a typo in a test fails loudly instead of
// silently getting the echo reply.
func parseScript(text string) (script, error) {
	var s script
	var message step
	for _, m := range directivePattern.FindAllStringSubmatch(text, -1) {
		if err := s.add(&message, m[1], strings.TrimSpace(m[2])); err != nil {
			return script{}, fmt.Errorf("fakellm: directive [[%s]]: %w", m[1], err)
		}
	}
	if !s.hasSteps && (message.text != nil || message.tool != nil) {
		s.steps = []step{message}
	}
	return s, nil
}

func (s *script) add(message *step, name, arg string) error {
	switch name {
	case "steps":
		return s.addSteps(arg)
	case "goal":
		return s.addGoal(arg)
	case "usage":
		u, err := parseUsage(arg)
		s.usage = &u
		return err
	case "delay":
		d, err := time.ParseDuration(arg)
		if err != nil || d < 0 {
			return fmt.Errorf("want a duration like 20ms, got %q", arg)
		}
		s.delay = d
		return nil
	case "chunk":
		n, err := positive(arg)
		s.chunk = n
		return err
	case "fault":
		f, err := parseFault(arg)
		s.fault = &f
		return err
	case "stop":
		if arg == "" {
			return fmt.Errorf("want a stop reason")
		}
		s.stop = anthropicStop(arg)
		return nil
	case "title":
		s.title = arg
		return nil
	case "silent", "hang": // silent.go
		return s.addSilence(name, arg)
	case "summary_fault":
		_, err := parseFault(arg)
		return err
	case "summary_words":
		_, err := positive(arg)
		return err
	}
	return addReply(message, name, arg)
}

func (s *script) addSteps(arg string) error {
	s.hasSteps = true
	s.steps = nil
	for part := range strings.SplitSeq(arg, ";;") {
		name, rest, _ := strings.Cut(strings.TrimSpace(part), ":")
		var st step
		var err error
		if name == "fault" {
			var f fault
			f, err = parseFault(strings.TrimSpace(rest))
			st.fault = &f
		} else {
			err = addReply(&st, strings.TrimSpace(name), strings.TrimSpace(rest))
		}
		if err != nil {
			return fmt.Errorf("step %d: %w", len(s.steps)+1, err)
		}
		s.steps = append(s.steps, st)
	}
	return nil
}

// addReply handles the directives that say what a reply contains. In one
// message [[say:…]] or [[text:N]] may come with [[tool:…]]: the text is then
// what the model says before it calls the tool.
func addReply(st *step, name, arg string) error {
	switch name {
	case "say":
		st.text = &arg
		return nil
	case "text":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return fmt.Errorf("want a word count, got %q", arg)
		}
		words := loremWords(n)
		st.text = &words
		return nil
	case "tool":
		t, err := parseTool(arg)
		if st.tool != nil { // a second call in the same answer
			st.more = append(st.more, t)
			return err
		}
		st.tool = &t
		return err
	case "think":
		if arg == "" {
			return fmt.Errorf("want the words to think")
		}
		st.think = &arg
		return nil
	case "redacted_thinking":
		st.redacted = true
		return nil
	}
	return fmt.Errorf("unknown directive (see e2e/fakellm/README.md)")
}

func parseTool(arg string) (toolCall, error) {
	name, input, _ := strings.Cut(arg, " ")
	input = strings.TrimSpace(input)
	if name == "" {
		return toolCall{}, fmt.Errorf("want a tool name")
	}
	if input == "" {
		input = "{}"
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(input), &obj); err != nil {
		return toolCall{}, fmt.Errorf("tool input must be a JSON object: %w", err)
	}
	// ⟦ and ⟧ in the input are [[ and ]] in the call: a prompt the call
	// carries (a sub-agent's task) can hold directives of its own.
	input = strings.NewReplacer("⟦", "[[", "⟧", "]]").Replace(input)
	return toolCall{name: name, input: json.RawMessage(input)}, nil
}

func parseUsage(arg string) (usage, error) {
	u := usage{scripted: true}
	for kv := range strings.SplitSeq(arg, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return u, fmt.Errorf("want key=N, got %q", kv)
		}
		switch strings.TrimSpace(k) {
		case "in":
			u.in = n
		case "out":
			u.out = n
		case "cache_read":
			u.cacheRead = n
		case "cache_write":
			u.cacheWrite = n
		default:
			return u, fmt.Errorf("unknown usage key %q (in, out, cache_read, cache_write)", k)
		}
	}
	return u, nil
}

// parseFault reads "429", "529x2", "cut", "malformed", "error", "cutx1"…
func parseFault(arg string) (fault, error) {
	kind, times := arg, 0
	if i := strings.LastIndex(arg, "x"); i > 0 {
		n, err := strconv.Atoi(arg[i+1:])
		if err != nil || n < 1 {
			return fault{}, fmt.Errorf("want a count after x, got %q", arg)
		}
		kind, times = arg[:i], n
	}
	switch kind {
	case "cut", "malformed", "error":
		return fault{kind: kind, times: times}, nil
	}
	status, err := strconv.Atoi(kind)
	if err != nil || status < 400 || status > 599 {
		return fault{}, fmt.Errorf("want an HTTP status 400-599, cut, malformed or error, got %q", arg)
	}
	return fault{kind: "http", status: status, times: times}, nil
}

func positive(arg string) (int, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("want a positive number, got %q", arg)
	}
	return n, nil
}

// anthropicStop accepts either provider's words and returns Anthropic's,
// so one script drives both wire formats.
func anthropicStop(reason string) string {
	switch reason {
	case "stop":
		return "end_turn"
	case "tool_calls":
		return "tool_use"
	case "length":
		return "max_tokens"
	}
	return reason
}

// stripDirectives removes every directive, for echoes and titles.
func stripDirectives(text string) string {
	return strings.Join(strings.Fields(directivePattern.ReplaceAllString(text, " ")), " ")
}

// titleIn returns the value of the last [[title:…]] in text, if any.
func titleIn(text string) (string, bool) {
	title, found := "", false
	for _, m := range directivePattern.FindAllStringSubmatch(text, -1) {
		if m[1] == "title" {
			title, found = strings.TrimSpace(m[2]), true
		}
	}
	return title, found
}

var lorem = strings.Fields(`alpha bravo charlie delta echo foxtrot golf hotel
india juliett kilo lima mike november oscar papa quebec romeo sierra tango
uniform victor whiskey xray yankee zulu`)

// loremWords is n deterministic words, so tests can predict the reply.
func loremWords(n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = lorem[i%len(lorem)]
	}
	return strings.Join(words, " ")
}
