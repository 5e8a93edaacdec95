package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"myco/server/llm"
	"myco/server/webfetch"
	"myco/session"
)

// web_fetch: the agent reads a web page (server/webfetch fetches it and
// turns HTML into Markdown). The rules:
//
//   - Before its first fetch from a host in a session the person is
//     asked, with the host and URL on the card: allow once, allow this
//     host for the session, or deny. settings web_fetch.allowed_hosts
//     names hosts never asked for. A session's hosts are approvals like
//     bash's: a sub-agent starts with its parent's (subagent.go copies
//     s.allowed, where a host is webHostKey(host)).
//   - A redirect to another host is followed only when that host is
//     allowed too; else the agent is told where it leads, and fetching
//     that URL asks.
//   - Plan mode allows it: it only reads (plan.go). Whatever it reads
//     goes to the model, which is why it asks as bash does.
//   - The page is cut at max_chars characters from offset; the outcome
//     says so and how to ask for the rest. Each call fetches anew.

const webFetchTool = "web_fetch"

// Limits of the text one call returns, in characters (runes).
const (
	defaultWebChars = 20_000
	maxWebChars     = 100_000
)

var webFetchToolDef = llm.Tool{
	Name: webFetchTool,
	Description: `Fetch a web page (http or https, GET) and read it as text: HTML comes back as Markdown of its main ` +
		`content, plain text, JSON and Markdown as they are; images and other binary files are refused. The person ` +
		`approves each new host. Local and private network addresses are never fetched. Long pages are cut at ` +
		`max_chars characters (default 20000); the result says where, and offset reads on from there.`,
	InputSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"url":       map[string]any{"type": "string", "description": "The absolute http:// or https:// URL to fetch."},
			"offset":    map[string]any{"type": "integer", "minimum": 0, "description": "The character of the page's text to start at (default 0), to read on from where a cut result stopped."},
			"max_chars": map[string]any{"type": "integer", "minimum": 1, "maximum": maxWebChars, "description": "How many characters of text to return at most (default 20000, at most 100000)."},
		},
		"required": []string{"url"},
	},
}

type webFetchInput struct {
	URL      string `json:"url"`
	Offset   int    `json:"offset"`
	MaxChars int    `json:"max_chars"`
}

// webHostKey is the key in s.allowed of a host allowed for the session.
func webHostKey(host string) string { return webFetchTool + ":" + host }

// webHostAllowed reports whether host is fetched without asking: the
// settings name it, or the person allowed it for this session.
func (s *Session) webHostAllowed(host string) bool {
	if s.m.settings().WebFetch.Allows(host) {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.allowed[webHostKey(host)]
}

func (s *Session) runWebFetch(ctx context.Context, use session.Block) toolOutcome {
	var in webFetchInput
	dec := json.NewDecoder(bytes.NewReader(rawJSON(use.Input)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || strings.TrimSpace(in.URL) == "" {
		why := "url is missing"
		if err != nil {
			why = err.Error()
		}
		return toolOutcome{output: `web_fetch needs {"url": "https://…"} (offset and max_chars are optional): ` + why + ".", isError: true}
	}
	if in.Offset < 0 || in.MaxChars < 0 || in.MaxChars > maxWebChars {
		return toolOutcome{output: fmt.Sprintf("web_fetch: offset must be 0 or more, and max_chars 1 to %d.", maxWebChars), isError: true}
	}
	u, err := webfetch.ParseURL(in.URL)
	if err != nil {
		return toolOutcome{output: "Not fetched: " + err.Error() + ".", isError: true}
	}
	host := webfetch.Host(u)
	if err := webfetch.CheckHost(host); err != nil {
		return toolOutcome{output: "Not fetched: " + err.Error() + ".", isError: true} // asking would be for nothing
	}
	if !s.webHostAllowed(host) {
		a := &approval{ToolUseID: use.ID, Name: use.Name, Input: rawJSON(use.Input), allowAs: webHostKey(host)}
		if ok, out := s.askApproval(ctx, a,
			"The person denied fetching "+u.Redacted()+". Do not retry it; ask them what they want instead.",
			"Not run: the person stopped the turn."); !ok {
			return out
		}
	}
	s.enter(StatusTool, webFetchTool)
	page, err := s.m.opts.WebFetcher.Fetch(ctx, u.String(), s.webHostAllowed)
	var redirect *webfetch.RedirectError
	switch {
	case ctx.Err() != nil:
		return toolOutcome{output: "Not fetched: the person stopped the turn.", isError: true}
	case errors.As(err, &redirect):
		return toolOutcome{output: fmt.Sprintf("Not followed: %s redirects to %s, on %s, a host the person has not approved. "+
			"Call web_fetch with that URL if you need it: the person is asked.", redirect.From, redirect.URL, redirect.Host), isError: true}
	case err != nil:
		return toolOutcome{output: "Not fetched: " + u.Redacted() + ": " + err.Error() + ".", isError: true}
	}
	return toolOutcome{output: formatPage(u.String(), page, in), isError: page.Status >= 400}
}

// formatPage is a fetched page as the agent reads it: a header that says
// where it came from and what was done to it, then the text, cut to
// max_chars from offset with a note that says how to read on.
func formatPage(asked string, p *webfetch.Page, in webFetchInput) string {
	limit := in.MaxChars
	if limit == 0 {
		limit = defaultWebChars
	}
	text := []rune(p.Text)
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\n", p.URL)
	if p.URL != asked {
		fmt.Fprintf(&b, "(redirected from %s)\n", asked)
	}
	if p.Title != "" {
		fmt.Fprintf(&b, "Title: %s\n", p.Title)
	}
	if p.Status != 200 {
		fmt.Fprintf(&b, "Status: %d %s\n", p.Status, p.StatusText)
	}
	kind := p.MediaType
	if p.Converted {
		kind += ", converted to Markdown (main content only)"
	}
	fmt.Fprintf(&b, "Type: %s\n", kind)
	switch {
	case len(text) == 0:
		b.WriteString("\n[The page has no text.]")
		return b.String()
	case in.Offset >= len(text):
		fmt.Fprintf(&b, "\n[offset %d is past the end: the page's text has %d characters.]", in.Offset, len(text))
		return b.String()
	}
	end := min(len(text), in.Offset+limit)
	if in.Offset > 0 || end < len(text) {
		fmt.Fprintf(&b, "Characters %d to %d of %d\n", in.Offset, end, len(text))
	}
	b.WriteString("\n")
	b.WriteString(string(text[in.Offset:end]))
	if end < len(text) {
		next, _ := json.Marshal(map[string]any{"url": asked, "offset": end})
		fmt.Fprintf(&b, "\n\n[Cut at character %d of %d. For more, call web_fetch with %s (max_chars up to %d).]", end, len(text), next, maxWebChars)
	}
	return b.String()
}
