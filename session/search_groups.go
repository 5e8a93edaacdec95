package session

import (
	"fmt"
	"time"
)

// Group is one session's share of a grouped search: how many places in
// its text hold every word, and the first few of them as hits.
type Group struct {
	Session   string    `json:"session"`
	Title     string    `json:"title"`
	UpdatedAt time.Time `json:"updated_at"`
	// TitleMatch says the title holds every word too. A title is not a
	// place in the text: a session that matches by its title alone is
	// what a listing's query finds (ListOptions.Query), not a group.
	TitleMatch bool `json:"title_match,omitzero"`
	// Total counts the places: messages, the scratchpad, the sidecars.
	Total int   `json:"total"`
	Hits  []Hit `json:"hits"` // the first of them, in Search's order
}

// Defaults of GroupOptions.
const (
	DefaultGroupSessions = 20
	DefaultGroupHits     = 3
)

// GroupOptions says how much SearchGroups returns.
type GroupOptions struct {
	// Sessions is the most groups returned (DefaultGroupSessions when 0),
	// PerSession the most hits in each (DefaultGroupHits when 0).
	Sessions, PerSession int
	// Session, when set, searches that session alone, and its group holds
	// up to DefaultSearchLimit hits: what "N more in this session" shows.
	Session string
}

// SearchGroups finds the query's words as Search does, and returns them by
// session so that no session hides another: the sessions whose text holds
// them, newest first (by their last change, the order of the listing),
// each with its number of places and the first few as hits. An empty
// query matches nothing.
//
// Newest first and not by number of hits: ranking by count would put the
// session that says a word fifty times on top, the flood this grouping is
// for, and would need every document read before the first group is
// known, where the newest-first scan stops at the last group it needs.
func (s *Store) SearchGroups(q string, o GroupOptions) ([]Group, error) {
	m := newMatcher(q)
	if m == nil {
		return nil, nil
	}
	if o.Session != "" {
		return s.searchOneGroup(o.Session, m)
	}
	if o.Sessions <= 0 {
		o.Sessions = DefaultGroupSessions
	}
	if o.PerSession <= 0 {
		o.PerSession = DefaultGroupHits
	}
	var groups []Group
	err := s.scan(m, func(sum Summary, doc *Document, sidecars bool) bool {
		if g, ok := newGroup(sum, s.places(sum, doc, m, sidecars), m, o.PerSession); ok {
			groups = append(groups, g)
		}
		return len(groups) < o.Sessions
	})
	return groups, err
}

// searchOneGroup is the group of session id alone, with up to
// DefaultSearchLimit hits; none when its text does not hold the words.
func (s *Store) searchOneGroup(id string, m *matcher) ([]Group, error) {
	doc, err := s.Load(id)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", id, err)
	}
	sum := Summary{ID: doc.ID, Title: doc.Title, UpdatedAt: doc.UpdatedAt}
	if g, ok := newGroup(sum, s.places(sum, doc, m, true), m, DefaultSearchLimit); ok {
		return []Group{g}, nil
	}
	return nil, nil
}

// newGroup gathers a session's places into its group, with hits (and
// their excerpts) for the first max of them. ok is false when no place
// but the title holds the words.
func newGroup(sum Summary, places []place, m *matcher, max int) (g Group, ok bool) {
	g = Group{Session: sum.ID, Title: sum.Title, UpdatedAt: sum.UpdatedAt, Hits: []Hit{}}
	for _, p := range places {
		g.Title = p.title // the document's, fresher than the listing's
		if p.kind == HitTitle {
			g.TitleMatch = true
			continue
		}
		g.Total++
		if len(g.Hits) < max {
			g.Hits = append(g.Hits, p.hit(m))
		}
	}
	return g, g.Total > 0
}
