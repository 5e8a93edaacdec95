package web

import (
	"fmt"
	"net/url"
	"time"

	"myco/session"
)

// SearchView is what a search found in the text of sessions, by session:
// the fragment /partials/search?q= renders below the listing's rows.
type SearchView struct {
	Query  string
	Groups []HitGroupView
}

// HitGroupView is one session's hits: its title, the first few hits, and
// how many more there are behind "N more in this session".
type HitGroupView struct {
	Session, Title string
	URL            string // the session, at its end
	Hits           []HitView
	More           int    // hits not shown
	MoreURL        string // the fragment of this group with every hit; "" once expanded
}

// HitView is one place a search found: who wrote it and when (for a
// message), or what it is (a scratchpad, a transcript), and the excerpt
// cut into plain and marked pieces.
type HitView struct {
	Kind     string
	URL      string // the session at the message
	Who      string // "You", "Agent", "Tool results", "myco"; "" when not a message
	Where    string // "scratchpad", "transcript"; "" for a message
	At       time.Time
	Segments []Segment
}

// NewSearchView builds the view of groups found for query q.
func NewSearchView(q string, groups []session.Group) SearchView {
	v := SearchView{Query: q}
	for _, g := range groups {
		v.Groups = append(v.Groups, NewHitGroupView(q, g, false))
	}
	return v
}

// NewHitGroupView builds the view of one group. An expanded group holds
// every hit a search of its session returns (session.DefaultSearchLimit):
// what is left past those is for the session's page, so its "N more"
// opens the session rather than asking again.
func NewHitGroupView(q string, g session.Group, expanded bool) HitGroupView {
	v := HitGroupView{
		Session: g.Session, Title: g.Title, URL: "/s/" + g.Session,
		More: g.Total - len(g.Hits),
	}
	if !expanded {
		v.MoreURL = "/partials/search?" + url.Values{"q": {q}, "session": {g.Session}}.Encode()
	}
	for _, h := range g.Hits {
		v.Hits = append(v.Hits, HitView{
			Kind: h.Kind, URL: HitURL(h), Who: hitWho(h.From), Where: hitWhere(h.Kind), At: h.At,
			Segments: Segments(h.Excerpt, q),
		})
	}
	return v
}

// MoreText is what the button that shows a group's other hits says.
func (g HitGroupView) MoreText() string {
	return fmt.Sprintf("%d more in this session", g.More)
}

// HitURL opens the session at the message the hit is in.
func HitURL(h session.Hit) string {
	u := "/s/" + h.Session
	if h.Message != "" {
		u += "#m-" + h.Message
	}
	return u
}

// hitWho names who wrote a message hit as the page labels messages
// (MessageView.Label).
func hitWho(from string) string {
	switch from {
	case session.FromPerson:
		return "You"
	case session.FromAgent:
		return "Agent"
	case session.FromTool:
		return "Tool results"
	case session.FromMyco:
		return "myco"
	}
	return ""
}

// hitWhere names where a hit that is not in a message is, for a person.
func hitWhere(kind string) string {
	switch kind {
	case session.HitScratchpad:
		return "scratchpad"
	case session.SidecarReadline, session.SidecarConsole:
		return "transcript"
	}
	return ""
}

// Segment is a piece of an excerpt, marked when it is a query word.
type Segment struct {
	Text string
	Mark bool
}

// Segments cuts text into the pieces between and at the query's words.
func Segments(text, q string) []Segment {
	var out []Segment
	at := 0
	for _, sp := range session.Marks(text, q) {
		if sp[0] > at {
			out = append(out, Segment{Text: text[at:sp[0]]})
		}
		out = append(out, Segment{Text: text[sp[0]:sp[1]], Mark: true})
		at = sp[1]
	}
	if at < len(text) {
		out = append(out, Segment{Text: text[at:]})
	}
	return out
}
