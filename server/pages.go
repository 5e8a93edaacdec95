package server

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"myco/internal/errkind"
	"myco/session"
	"myco/web"
)

// maxSidecarShown bounds the historical transcript shown on a page: its
// tail is what matters, and a console log can be huge.
const maxSidecarShown = 256 << 10

func (s *Server) homePage(c echo.Context) error { return s.listingPage(c, session.ListOptions{}) }
func (s *Server) archivedPage(c echo.Context) error {
	return s.listingPage(c, session.ListOptions{Archived: true})
}

// subagentsPage lists the sessions sub-agents ran, which the home page
// leaves out (each is linked from its parent's task call too).
func (s *Server) subagentsPage(c echo.Context) error {
	return s.listingPage(c, session.ListOptions{Subagents: true})
}

func (s *Server) listingPage(c echo.Context, opts session.ListOptions) error {
	v, err := s.homeView(c, opts)
	if err != nil {
		return err
	}
	if !opts.Archived && !opts.Subagents {
		board, err := s.boardView()
		if err != nil {
			return err
		}
		v.Board = &board
	}
	return render(c, http.StatusOK, web.ListingPage(v, web.PageInfo{NoProvider: !s.opts.Models.Configured()}))
}

// newSessionForm is the form the "New session" dialog fetches as it opens.
func (s *Server) newSessionForm(c echo.Context) error {
	sums, _, err := s.opts.Sessions.Summaries(session.ListOptions{})
	if err != nil {
		return err
	}
	v := web.NewSessionFormView{Default: s.opts.Cwd, Recent: recentFolders(sums, web.MaxRecentFolders)}
	return render(c, http.StatusOK, web.NewSessionForm(v))
}

// recentFolders is the distinct folders of sums (newest first, as the
// listing is), at most limit of them: it reads no further than it needs.
func recentFolders(sums iter.Seq[session.Summary], limit int) []string {
	seen := map[string]bool{}
	var out []string
	for sum := range sums {
		if len(out) == limit {
			break
		}
		if sum.Cwd == "" || seen[sum.Cwd] {
			continue
		}
		seen[sum.Cwd] = true
		out = append(out, sum.Cwd)
	}
	return out
}

// providerHelpPage was the help text on configuring a provider; the
// Settings page does it now, and old links lead there.
func (s *Server) providerHelpPage(c echo.Context) error {
	return c.Redirect(http.StatusSeeOther, web.SettingsURL)
}

// sessionRowsPartial is the list the search box and "Load more" fetch.
func (s *Server) sessionRowsPartial(c echo.Context) error {
	v, err := s.homeView(c, session.ListOptions{Archived: c.QueryParam("archived") == "1", Subagents: c.QueryParam("subagents") == "1"})
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.SessionRows(v))
}

// searchPartial is what the search box finds in the text of sessions,
// below the rows that match by title, model or ID: the hits by session.
// With session=ID it is that session's group alone, with every hit: what
// "N more in this session" swaps in. An empty query finds nothing, and
// renders nothing.
func (s *Server) searchPartial(c echo.Context) error {
	q, id := c.QueryParam("q"), c.QueryParam("session")
	groups, err := s.opts.Sessions.SearchGroups(q, session.GroupOptions{Session: id})
	if err != nil {
		return err
	}
	if id == "" {
		return render(c, http.StatusOK, web.SearchHits(web.NewSearchView(q, groups)))
	}
	if len(groups) == 0 {
		return c.NoContent(http.StatusOK)
	}
	return render(c, http.StatusOK, web.SearchGroup(web.NewHitGroupView(q, groups[0], true)))
}

// homeView lists one page of sessions. Listing is cached per file, so the
// cost of a page is the filter over summaries plus rendering 100 rows,
// whatever the size of the profile.
func (s *Server) homeView(c echo.Context, opts session.ListOptions) (web.HomeView, error) {
	q := c.QueryParam("q")
	page, _ := strconv.Atoi(c.QueryParam("page"))
	page = max(page, 1)
	from := (page - 1) * web.PageSize
	// pages=N is pages 1 to N in one fragment: a live listing that has
	// loaded N pages refetches them all, and keeps its "Load more".
	if pages, _ := strconv.Atoi(c.QueryParam("pages")); pages > 1 {
		page, from = pages, 0
	}
	to := page * web.PageSize
	tag := strings.TrimSpace(c.QueryParam("tag"))
	sums, total, err := s.listTagged(opts, q, tag, from, to)
	if err != nil {
		return web.HomeView{}, err
	}
	return web.HomeView{
		Archived: opts.Archived, Subagents: opts.Subagents, Query: q, Tag: tag, Rows: s.rows(sums),
		Page: page, HasMore: to < total, Profile: s.opts.Profile, Now: s.opts.Now(),
	}, nil
}

// listWindow is the summaries at [from, to) of the listing opts chooses,
// filtered by q, and how many q matches in all. It copies that window's
// summaries only, not the whole listing.
func (s *Server) listWindow(opts session.ListOptions, q string, from, to int) ([]session.Summary, int, error) {
	return s.listTagged(opts, q, "", from, to)
}

// listTagged is listWindow of the sessions that carry tag as well (any
// session when tag is blank).
func (s *Server) listTagged(opts session.ListOptions, q, tag string, from, to int) ([]session.Summary, int, error) {
	q, tag = normalQuery(q), strings.TrimSpace(tag)
	if q == "" && tag == "" {
		return s.opts.Sessions.ListPage(opts, from, to)
	}
	seq, _, err := s.opts.Sessions.Summaries(opts)
	if err != nil {
		return nil, 0, err
	}
	var page []session.Summary
	n := 0
	for sum := range seq {
		if !matchesQuery(&sum, q) || tag != "" && !session.HasTag(sum.Tags, tag) {
			continue
		}
		if n >= from && n < to {
			page = append(page, sum)
		}
		n++
	}
	return page, n, nil
}

// rows are the listing rows of sums, each with what its session is doing
// and what it cost (from the usage its summary carries).
func (s *Server) rows(sums []session.Summary) []web.SessionRow {
	return web.WithCost(web.WithStatus(web.NewSessionRows(sums), sums, s.feed.statusOf), sums, s.price)
}

// sidebarPartial is the sidebar's rows: the newest sessions, or those the
// query finds, grouped by folder when group=1, with the current session
// marked. The sidebar refetches it as the profile's stream tells it of
// changes.
func (s *Server) sidebarPartial(c echo.Context) error {
	v, err := s.sidebarView(c.QueryParam("current"), c.QueryParam("q"), c.QueryParam("group") == "1")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.SidebarRows(v))
}

// sidebarView is the first page of active sessions that q matches.
func (s *Server) sidebarView(current, q string, grouped bool) (web.SidebarView, error) {
	sums, total, err := s.listWindow(session.ListOptions{}, q, 0, web.PageSize)
	if err != nil {
		return web.SidebarView{}, err
	}
	board, err := s.boardView()
	if err != nil {
		return web.SidebarView{}, err
	}
	return web.SidebarView{
		Rows: s.rows(sums), Current: current, Query: q, Grouped: grouped,
		HasMore: len(sums) < total, Now: s.opts.Now(),
		Needs: len(board.Needs), Working: len(board.Working),
	}, nil
}

// FragmentHeader, set to "1" on a request for a session page, asks for
// the page's session fragment alone (web.SessionFragment) rather than
// the whole page.
const FragmentHeader = "X-Myco-Fragment"

func (s *Server) sessionPage(c echo.Context) error {
	id := c.Param("id")
	if err := session.ValidateID(id); err != nil {
		return err
	}
	seq := s.events.Seq(id) // before the document: see Hub.Seq
	doc, archived, locked, err := s.pageDocument(id)
	if err != nil {
		return err
	}
	opts := web.SessionViewOptions{Archived: archived, LockedBy: locked, Sidecars: s.sidecars(id), Profile: s.opts.Profile, Price: s.price, EventsSeq: seq, RecentLimit: web.PageRecentLimit}
	opts.MCP = s.mcpPanel(doc, !archived && !doc.Archived && locked == nil)
	st := s.settings()
	limits := st.ModelLimits(doc.ModelOr(s.defaultModel()))
	opts.Context = web.ContextInfo{Threshold: limits.CompactAt(), Window: limits.ContextWindow}
	opts.NotificationsOff, opts.NotifyAfter = !st.Notifies(), st.NotifyAfter
	opts.Steering = steeringOf(st).View(doc, s.defaultModel()).Chip
	if ls, ok := s.live.Get(id); ok && !archived {
		status, detail := ls.State()
		opts.Status = web.StatusView{Status: status, Detail: detail}
		opts.CustomCommands = customCommandViews(ls.CustomCommands()) // api_custom.go
	}
	if opts.Lineage, err = s.lineage(doc); err != nil {
		return err
	}
	// The same address answers a page or, for a tab that swaps sessions
	// in place (static/swap.js), the fragment of it that changes: a cache
	// must keep the two apart.
	c.Response().Header().Add("Vary", FragmentHeader)
	if c.Request().Header.Get(FragmentHeader) == "1" {
		return render(c, http.StatusOK, web.SessionFragment(web.NewSessionView(doc, opts)))
	}
	side, err := s.sidebarView(id, "", false)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.SessionPageWithSidebar(web.NewSessionView(doc, opts), side))
}

// lineage is what the listings tell of doc's relatives: the sessions
// forked from it, and its parent's title now (or that the parent is
// gone). It passes over the listings' heads and decodes only the
// relatives' summaries: every session page asks, and a listing of 10,000
// decoded whole would be 4 MB made, and kept, per page.
func (s *Server) lineage(doc *session.Document) (web.Lineage, error) {
	var l web.Lineage
	parentFound := false
	for _, opts := range []session.ListOptions{{}, {Archived: true}, {Subagents: true}, {Archived: true, Subagents: true}} {
		listing, _, err := s.opts.Sessions.Listing(opts)
		if err != nil {
			return web.Lineage{}, err
		}
		for e := range listing {
			if e.Parent() == doc.ID {
				switch sum := e.Summary(); {
				case sum.Damaged != "":
				case sum.Subagent:
					l.Subagents = append(l.Subagents, sum)
				default:
					l.Forks = append(l.Forks, sum)
				}
			}
			if doc.Parent != nil && e.ID() == doc.Parent.Session {
				parentFound, l.ParentTitle = true, e.Summary().Title
			}
		}
	}
	l.ParentGone = doc.Parent != nil && !parentFound
	if parentFound {
		l.ColdFork = s.coldForkNote(doc)
	}
	// Newest activity first, as the listings are: archived forks after
	// the active ones otherwise.
	byActivity := func(a, b session.Summary) int { return b.UpdatedAt.Compare(a.UpdatedAt) }
	slices.SortStableFunc(l.Forks, byActivity)
	slices.SortStableFunc(l.Subagents, byActivity)
	return l, nil
}

// pageDocument reads the session a page shows. A writable session is
// opened here (taking its writer lock) and shown as the live session has
// it; one that another process holds is read from disk and shown read-only
// with who holds it; an archived one is only read.
func (s *Server) pageDocument(id string) (*session.Document, bool, *web.LockInfo, error) {
	archived, err := s.opts.Sessions.IsArchived(id)
	if err != nil {
		return nil, false, nil, err
	}
	if !archived {
		if ls, err := s.live.Open(id); err == nil {
			return ls.Document(), false, nil, nil
		}
	}
	doc, err := s.opts.Sessions.Load(id)
	if err != nil {
		return nil, false, nil, err
	}
	if archived {
		return doc, true, nil, nil
	}
	owner, ok := s.lockedElsewhere(id)
	if !ok {
		return doc, false, nil, nil
	}
	locked := &web.LockInfo{PID: owner.PID}
	if owner.URL != "" {
		locked.URL = owner.URL + web.SessionURL(id)
	}
	return doc, false, locked, nil
}

// sidecars reads the historical transcripts of a session, their tails only.
func (s *Server) sidecars(id string) map[string]string {
	out := map[string]string{}
	for _, kind := range []string{session.SidecarReadline, session.SidecarConsole} {
		data, err := s.opts.Sessions.Sidecar(id, kind)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			s.log.Warn("sidecar unreadable", "session", id, "kind", kind, "err", err)
			continue
		}
		if len(data) > maxSidecarShown {
			data = append([]byte(fmt.Sprintf("[… %d earlier bytes not shown]\n", len(data)-maxSidecarShown)), data[len(data)-maxSidecarShown:]...)
		}
		out[kind] = string(data)
	}
	return out
}

// messagesPartial is a page of a thread's messages before a given index:
// "Load earlier" and the opening of a collapsed thread fetch it.
func (s *Server) messagesPartial(c echo.Context) error {
	doc, err := s.opts.Sessions.Load(c.Param("id"))
	if err != nil {
		return err
	}
	thread, err1 := strconv.Atoi(c.QueryParam("thread"))
	before, err2 := strconv.Atoi(c.QueryParam("before"))
	if err1 != nil || err2 != nil {
		return fmt.Errorf("%w: thread and before must be numbers", errBadInput)
	}
	// The latest thread's first messages may be carried from the thread
	// before, which shows them: "Load earlier" stops short of them.
	floor, limit := 0, web.DefaultRecentLimit
	if thread == len(doc.Threads)-1 {
		floor = carriedShown(doc)
	}
	if floor > 0 {
		if before < 0 || before > len(doc.Threads[thread].Messages) {
			before = len(doc.Threads[thread].Messages)
		}
		limit = min(limit, before-floor)
		if limit <= 0 {
			return render(c, http.StatusOK, web.Messages(web.MessagesFragmentView{SessionID: doc.ID, Thread: thread}))
		}
	}
	f, err := web.MessagesFragment(doc, thread, before, limit, s.price)
	if err != nil {
		return fmt.Errorf("%w: %v", errBadInput, err)
	}
	if thread == len(doc.Threads)-1 {
		f.AllowFork()
	}
	if floor > 0 && f.Start <= floor {
		// Nothing of this thread's own is left before the run: no "Load
		// earlier" (the page's first run does the same).
		f.Start = 0
	}
	return render(c, http.StatusOK, web.Messages(f))
}

// carriedShown is how many of the latest thread's first messages the page
// shows in the earlier thread they were carried from, by the page's own
// rule (only when they are that thread's last messages): the view of the
// latest thread alone, one message of it, says.
func carriedShown(doc *session.Document) int {
	return web.NewSessionView(doc, web.SessionViewOptions{RecentLimit: 1}).Latest.Carried
}

// inlineImage serves a legacy image kept inside a document as base64. The
// declared media type is not trusted: the bytes must sniff as an image we
// serve, or the answer is an error.
func (s *Server) inlineImage(c echo.Context) error {
	doc, err := s.opts.Sessions.Load(c.Param("id"))
	if err != nil {
		return err
	}
	b, ok := findBlock(doc, c.Param("message"), c.Param("block"))
	if !ok || b.Type != session.BlockImage || b.Data == "" {
		return errkind.New(errkind.NotFound, "no inline image there")
	}
	data, err := base64.StdEncoding.DecodeString(b.Data)
	if err != nil {
		return fmt.Errorf("%w: inline image is not valid base64", errBadInput)
	}
	switch ct := http.DetectContentType(data); ct {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return serveImage(c, data, ct, false)
	default:
		return fmt.Errorf("%w: inline image is %s, not an image", errBadInput, ct)
	}
}

func findBlock(doc *session.Document, messageID, index string) (session.Block, bool) {
	i, err := strconv.Atoi(index)
	if err != nil {
		return session.Block{}, false
	}
	for _, t := range doc.Threads {
		for _, m := range t.Messages {
			if m.ID == messageID && i >= 0 && i < len(m.Content) {
				return m.Content[i], true
			}
		}
	}
	return session.Block{}, false
}
