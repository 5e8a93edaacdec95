package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Versions of a message. An edit of a person's message, or a regeneration
// of an answer that is not the conversation's last, makes a fork that
// stops just before that message and goes on from there with another
// version of it. A thread stays linear: the versions live side by side as
// sessions, and the fork's header says which message it is another version
// of (Parent.Branch), so they are found from the headers alone.
//
// The point a version belongs to is named once, by its first session: a
// version made from a version's own first message is another version of
// the same point, not a version of a version (as in the peers' ‹ 2 / 3 ›).

// VersionPoint names the message of a session where versions branch: the
// original's message; the forks made from it record it as their branch.
type VersionPoint struct {
	Session string `json:"session"`
	Message string `json:"message"`
}

// Version is one version at a point: the session that holds it and the
// message there that is the version (empty while its first message is
// still to be written).
type Version struct {
	Session   string    `json:"session"`
	Message   string    `json:"message"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"created_at"`
}

// asVersion makes fork, cut from parent, another version of point p: its
// lineage names p, and it keeps the conversation's title (it is the same
// conversation, told another way).
func asVersion(fork, parent *Document, p VersionPoint) {
	fork.Parent.Branch = p.Message
	if p.Session != parent.ID {
		// A version of a version's first message: a sibling of it, with
		// the point's own session as its parent (the messages before the
		// point are the same ones, copied).
		fork.Parent.Session = p.Session
	}
	fork.Title, fork.TitleFrom = parent.Title, parent.TitleFrom
}

// versionCut is how many of msgs a version fork keeps: those before the
// message named before.
func versionCut(msgs []Message, before string) (int, error) {
	at := slices.IndexFunc(msgs, func(m Message) bool { return m.ID == before })
	if at < 0 {
		return 0, fmt.Errorf("%w: message %q is not in the latest thread", ErrForkPoint, before)
	}
	return at, nil
}

// BranchMessage is the first message a version fork wrote after its
// branch point: its version of the point's message. Empty for a session
// that is no version fork, or one whose first message is not written yet.
func (d *Document) BranchMessage() string {
	p := d.Parent
	if p == nil || p.Branch == "" || p.Thread < 0 || p.Thread >= len(d.Threads) {
		return ""
	}
	msgs := d.Threads[p.Thread].Messages
	next := 0
	if p.Message != "" {
		next = slices.IndexFunc(msgs, func(m Message) bool { return m.ID == p.Message }) + 1
		if next == 0 {
			return ""
		}
	}
	if next >= len(msgs) {
		return ""
	}
	return msgs[next].ID
}

// VersionPointOf is the point message, a message of d, belongs to: the
// point d branched from when message is d's version of it, else message
// itself.
func (d *Document) VersionPointOf(message string) VersionPoint {
	if message != "" && message == d.BranchMessage() {
		return VersionPoint{Session: d.Parent.Session, Message: d.Parent.Branch}
	}
	return VersionPoint{Session: d.ID, Message: message}
}

// Versions lists the versions at point p, the first session's first,
// then its forks at p by creation. Archived sessions are left out, as is
// a first session that is gone.
func (s *Store) Versions(p VersionPoint) ([]Version, error) {
	forks, err := s.versionForks(p.Session)
	if err != nil {
		return nil, err
	}
	var out []Version
	root, err := s.Load(p.Session)
	switch {
	case err == nil && !root.Archived:
		out = append(out, Version{Session: root.ID, Message: p.Message, Title: root.Title, CreatedAt: root.CreatedAt})
	case err != nil && !errors.Is(err, ErrNotFound):
		return nil, err
	}
	for _, f := range forks {
		if f.Parent.Branch == p.Message {
			out = append(out, versionOf(f))
		}
	}
	return out, nil
}

// VersionsIn lists the versions at every point of d's latest thread that
// has more than one, by the message of d at that point.
func (s *Store) VersionsIn(d *Document) (map[string][]Version, error) {
	out := map[string][]Version{}
	if own := d.BranchMessage(); own != "" {
		vs, err := s.Versions(d.VersionPointOf(own))
		if err != nil {
			return nil, err
		}
		if len(vs) > 1 {
			out[own] = vs
		}
	}
	forks, err := s.versionForks(d.ID)
	if err != nil {
		return nil, err
	}
	latest := d.Threads[len(d.Threads)-1].Messages
	for _, f := range forks {
		b := f.Parent.Branch
		if _, done := out[b]; done || !slices.ContainsFunc(latest, func(m Message) bool { return m.ID == b }) {
			continue
		}
		vs, err := s.Versions(VersionPoint{Session: d.ID, Message: b})
		if err != nil {
			return nil, err
		}
		if len(vs) > 1 {
			out[b] = vs
		}
	}
	return out, nil
}

// versionForks are the active forks of session id that are versions of
// one of its messages, by creation. The listing (cached) finds the forks;
// only those are read.
func (s *Store) versionForks(id string) ([]*Document, error) {
	sums, err := s.List(ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []*Document
	for _, sum := range sums {
		if sum.Parent != id || sum.Damaged != "" {
			continue
		}
		f, err := s.Load(sum.ID)
		if errors.Is(err, ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		if f.Parent != nil && f.Parent.Branch != "" && f.Parent.Kind == "" {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b *Document) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

func versionOf(d *Document) Version {
	return Version{Session: d.ID, Message: d.BranchMessage(), Title: d.Title, CreatedAt: d.CreatedAt}
}
