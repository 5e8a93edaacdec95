package tools

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"myco/session"
)

// session_meta actions.
const (
	MetaSetTitle        = "set_title"
	MetaAddLink         = "add_link"
	MetaRemoveLink      = "remove_link"
	MetaReadScratchpad  = "read_scratchpad"
	MetaWriteScratchpad = "write_scratchpad"
	MetaQuery           = "query"
	MetaSendNote        = "send_note"
)

// ScratchpadMax is the largest scratchpad session_meta stores, in bytes.
// A title, and a link's title, are held to session.TitleMax characters.
const ScratchpadMax = 100 << 10

// Errors of ApplyMeta. ErrMetaInput is wrapped by every error about input
// the model got wrong; ErrMetaQuery means the action is query, which the
// caller answers with the session search.
var (
	ErrMetaInput = errors.New("invalid session_meta input")
	ErrMetaQuery = errors.New("session_meta query is answered by the session search")
	// ErrMetaSendNote means the action is send_note, which the caller
	// carries out: it writes to another session, not to doc.
	ErrMetaSendNote = errors.New("session_meta send_note is delivered by the caller")
)

// MetaInput is the input of the session_meta tool.
type MetaInput struct {
	Action    string `json:"action"`
	Title     string `json:"title,omitempty"`
	URL       string `json:"url,omitempty"`
	LinkTitle string `json:"link_title,omitempty"`
	Text      string `json:"text,omitempty"`
	Query     string `json:"query,omitempty"`
	// Session is send_note's addressee: a session ID or a unique prefix.
	Session string `json:"session,omitempty"`
}

// MetaDescription tells the model what session_meta does.
const MetaDescription = "Read and change this session's metadata. " +
	"set_title {title}: the session's title (one line, at most 120 characters). " +
	"add_link {url, link_title?} / remove_link {url}: http(s) links kept with the session. " +
	"read_scratchpad / write_scratchpad {text}: your notes for this session (replaced whole, at most 100 KB); " +
	"they survive compaction. " +
	"query {query}: search every session of this profile (messages, scratchpads, titles, old transcripts) " +
	"for messages holding all the words. " +
	"send_note {session, text}: leave a note for another session (its ID, or a unique prefix, as query shows it); " +
	"its agent gets it, marked as from this session, before its person's next message, and its open tabs show it at once. " +
	"Keep it short: a note reaches the model cut to 1,200 characters."

// MetaSchema is the JSON schema of MetaInput.
var MetaSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"action": map[string]any{
			"type": "string",
			"enum": []string{MetaSetTitle, MetaAddLink, MetaRemoveLink, MetaReadScratchpad, MetaWriteScratchpad, MetaQuery, MetaSendNote},
		},
		"title":      map[string]any{"type": "string", "description": "set_title: the new title."},
		"url":        map[string]any{"type": "string", "description": "add_link, remove_link: an http or https URL."},
		"link_title": map[string]any{"type": "string", "description": "add_link: what the link is."},
		"text":       map[string]any{"type": "string", "description": "write_scratchpad: the whole new scratchpad. send_note: the note."},
		"session":    map[string]any{"type": "string", "description": "send_note: the session to leave the note for, by ID or unique ID prefix."},
		"query":      map[string]any{"type": "string", "description": "query: words to find, all of them, any case."},
	},
	"required":             []string{"action"},
	"additionalProperties": false,
}

// ApplyMeta carries out a session_meta action on doc, reporting what to
// tell the model and whether doc changed (and so must be saved, with its
// updated_at). For query it returns ErrMetaQuery.
func ApplyMeta(doc *session.Document, in MetaInput) (output string, changed bool, err error) {
	switch in.Action {
	case MetaSetTitle:
		return setTitle(doc, in.Title)
	case MetaAddLink:
		return addLink(doc, in.URL, in.LinkTitle)
	case MetaRemoveLink:
		return removeLink(doc, in.URL)
	case MetaReadScratchpad:
		if doc.Scratchpad == "" {
			return "the scratchpad is empty", false, nil
		}
		return doc.Scratchpad, false, nil
	case MetaWriteScratchpad:
		return writeScratchpad(doc, in.Text)
	case MetaQuery:
		return "", false, ErrMetaQuery
	case MetaSendNote:
		return "", false, ErrMetaSendNote
	default:
		return "", false, fmt.Errorf("%w: unknown action %q", ErrMetaInput, in.Action)
	}
}

// setTitle renames by the one title rule (session.SetTitle), the page's and
// the CLI's too.
func setTitle(doc *session.Document, title string) (string, bool, error) {
	changed, err := session.SetTitle(doc, title)
	switch {
	case errors.Is(err, session.ErrEmptyTitle):
		return "", false, fmt.Errorf("%w: set_title needs a title", ErrMetaInput)
	case err != nil:
		return "", false, fmt.Errorf("set_title: %w", err)
	case !changed:
		return "the title is already " + quote(doc.Title), false, nil
	}
	return "title set to " + quote(doc.Title), true, nil
}

func addLink(doc *session.Document, rawURL, title string) (string, bool, error) {
	u, err := checkURL(rawURL)
	if err != nil {
		return "", false, err
	}
	title = session.CleanTitle(title)
	i := slices.IndexFunc(doc.Links, func(l session.Link) bool { return l.URL == u })
	switch {
	case i < 0:
		doc.Links = append(doc.Links, session.Link{URL: u, Title: title})
		return "link added: " + u, true, nil
	case title != "" && doc.Links[i].Title != title:
		doc.Links[i].Title = title
		return "link title updated: " + u, true, nil
	default:
		return "already linked: " + u, false, nil
	}
}

func removeLink(doc *session.Document, rawURL string) (string, bool, error) {
	u := strings.TrimSpace(rawURL)
	n := len(doc.Links)
	doc.Links = slices.DeleteFunc(doc.Links, func(l session.Link) bool { return l.URL == u })
	if len(doc.Links) == n {
		return "", false, fmt.Errorf("%w: no link with URL %q", ErrMetaInput, u)
	}
	return "link removed: " + u, true, nil
}

// checkURL accepts absolute http and https URLs only: links are shown as
// anchors in the page, where javascript: or file: would be a hazard.
func checkURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%w: URL %q: %w", ErrMetaInput, raw, err)
	}
	if s := strings.ToLower(u.Scheme); (s != "http" && s != "https") || u.Host == "" {
		return "", fmt.Errorf("%w: URL %q: only http and https links are kept", ErrMetaInput, raw)
	}
	return raw, nil
}

func writeScratchpad(doc *session.Document, text string) (string, bool, error) {
	if len(text) > ScratchpadMax {
		return "", false, fmt.Errorf("%w: the scratchpad is limited to %d bytes; this text has %d: keep it shorter",
			ErrMetaInput, ScratchpadMax, len(text))
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	if text == doc.Scratchpad {
		return "the scratchpad already holds this text", false, nil
	}
	doc.Scratchpad = text
	return fmt.Sprintf("scratchpad saved (%d bytes)", len(text)), true, nil
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// FormatHits renders the result of a session_meta query for the model.
func FormatHits(query string, hits []session.Hit) string {
	if len(hits) == 0 {
		return fmt.Sprintf("no match for %q\n", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d matches for %q, newest session first:\n", len(hits), query)
	for _, h := range hits {
		fmt.Fprintf(&b, "- session %s %q, %s", h.Session, h.Title, h.Kind)
		if h.Kind == session.HitMessage {
			fmt.Fprintf(&b, " (thread %d, message %s)", h.Thread, h.Message)
		}
		fmt.Fprintf(&b, ": %s\n", h.Excerpt)
	}
	return b.String()
}
