package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/labstack/echo/v4"

	"myco/internal/errkind"
	"myco/server/event"
	"myco/server/live"
	"myco/server/tools"
	"myco/session"
)

// maxJSONBody bounds a JSON request: titles, scratchpads and links are small.
const maxJSONBody = 1 << 20

// listSessions answers the listing. Unfiltered, the store encodes it as it
// writes it (a few ms for 10,000 summaries, none of it held). Filtered (or
// ?pretty, which c.JSON indents) it is encoded here.
func (s *Server) listSessions(c echo.Context) error {
	opts := session.ListOptions{Archived: c.QueryParam("archived") == "1", Subagents: c.QueryParam("subagents") == "1"}
	q, tag := c.QueryParam("q"), c.QueryParam("tag")
	if _, pretty := c.QueryParams()["pretty"]; strings.TrimSpace(q) != "" || strings.TrimSpace(tag) != "" || pretty {
		sums, err := s.filtered(opts, q, tag)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, sums)
	}
	// The store checks that every summary encodes before its first write,
	// and echo sends the 200 with the first write: a listing that fails
	// answers the error's status.
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	return s.opts.Sessions.WriteListJSON(c.Response(), opts)
}

// filtered is the listing's sessions whose title, model or ID contains
// q, ignoring case (all of them when q is blank), and that carry tag
// (any when blank), copying only those. It never returns nil, so the
// JSON answer is always a list.
func (s *Server) filtered(opts session.ListOptions, q, tag string) ([]session.Summary, error) {
	sums, _, err := s.listTagged(opts, q, tag, 0, math.MaxInt)
	if sums == nil && err == nil {
		sums = []session.Summary{}
	}
	return sums, err
}

// normalQuery is q as matchesQuery takes it.
func normalQuery(q string) string { return strings.ToLower(strings.TrimSpace(q)) }

// matchesQuery reports whether sum's title, model or ID contains q (a
// normalQuery), ignoring case; a blank q matches every session.
func matchesQuery(sum *session.Summary, q string) bool {
	return q == "" || strings.Contains(strings.ToLower(sum.Title), q) ||
		strings.Contains(strings.ToLower(sum.Model), q) || strings.Contains(sum.ID, q) ||
		strings.Contains(strings.ToLower(sum.Name), q)
}

type createRequest struct {
	Title *string `json:"title"`
	Model *string `json:"model"`
	Cwd   *string `json:"cwd"`
	Name  *string `json:"name"`
	Mode  *string `json:"mode"` // "plan" starts it in plan mode; "build" or none does not
}

func (s *Server) createSession(c echo.Context) error {
	var req createRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	n := session.NewSession{Model: s.defaultModel(), Cwd: s.opts.Cwd}
	if req.Title != nil {
		n.Title = session.CleanTitle(*req.Title) // may be empty: a new session can wait for its title
	}
	if req.Name != nil {
		if err := checkName(*req.Name); err != nil {
			return err
		}
		n.Name = *req.Name
	}
	if req.Model != nil {
		model, _, err := s.resolveModel(c.Request().Context(), *req.Model)
		if err != nil {
			return err
		}
		n.Model = model
	}
	// The default is where myco was started, taken as it is; a folder the
	// person names is checked, since the agent's shell and tools start there.
	if req.Cwd != nil && strings.TrimSpace(*req.Cwd) != "" {
		cwd, err := s.checkCwd(*req.Cwd)
		if err != nil {
			return err
		}
		n.Cwd = cwd
	}
	if req.Mode != nil {
		mode, err := startMode(*req.Mode)
		if err != nil {
			return err
		}
		n.Mode = mode
	}
	doc, err := s.opts.Sessions.Create(n)
	if err != nil {
		return err
	}
	s.releaseName(doc.Name, doc.ID)
	return c.JSON(http.StatusCreated, doc.Summarize())
}

// checkCwd turns the folder a person typed into the absolute, clean path
// a session works in, or says why it cannot be one: it must be absolute
// ("~/" counts, from home), an existing folder, and not denied by the
// rules the file tools follow (settings denied_paths, the profile folder).
func (s *Server) checkCwd(typed string) (string, error) {
	// No folder to be relative to: a relative path is refused, "~/" is
	// taken from home, as the file tools take paths.
	home, _ := os.UserHomeDir()
	p, err := tools.AbsPath("", home, strings.TrimSpace(typed))
	if err != nil {
		return "", fmt.Errorf("%w: folder %w", errBadInput, err)
	}
	_, err = tools.NewDenied(s.settings().DeniedPaths, home, s.opts.ProfileDir).Resolve(p)
	if de := (*tools.DeniedError)(nil); errors.As(err, &de) {
		via := ""
		if de.Real != "" && de.Real != de.Path {
			via = " (it leads to " + de.Real + ")"
		}
		return "", fmt.Errorf("%w: folder %s%s is denied: it is %s", errBadInput, de.Path, via, de.Rule)
	}
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%w: folder %s does not exist", errBadInput, p)
	case err != nil:
		return "", fmt.Errorf("%w: folder %s cannot be used: %w", errBadInput, p, err)
	case !fi.IsDir():
		return "", fmt.Errorf("%w: %s is a file, not a folder", errBadInput, p)
	}
	return p, nil
}

func (s *Server) getSession(c echo.Context) error {
	doc, err := s.opts.Sessions.Load(c.Param("id"))
	if err != nil {
		return err
	}
	withoutInlineImages(doc)
	// The document codec, not c.JSON: encoding/json knows nothing of the
	// `,embed` fields that keep members a newer myco wrote, so it would
	// answer "Unknown": null and lose them.
	data, err := session.Encode(doc)
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, data)
}

// withoutInlineImages drops the bytes of legacy inline images: the API
// never inlines image bytes (the page serves them by URL).
func withoutInlineImages(doc *session.Document) {
	for ti := range doc.Threads {
		for mi := range doc.Threads[ti].Messages {
			for bi := range doc.Threads[ti].Messages[mi].Content {
				doc.Threads[ti].Messages[mi].Content[bi].Data = ""
			}
		}
	}
}

type patchRequest struct {
	Title      *string         `json:"title"`
	Name       *string         `json:"name"` // "" takes the name away
	Scratchpad *string         `json:"scratchpad"`
	Links      *[]session.Link `json:"links"`
	Model      *string         `json:"model"`
	// Think and Personality: the reasoning effort and persona (api_think.go).
	Think       *string `json:"think"`
	Personality *string `json:"personality"`
	// Pinned and Tags are the person's marks on the row (session/tags.go).
	Pinned *bool     `json:"pinned"`
	Tags   *[]string `json:"tags"`
}

// marksOnly reports whether req changes only the pin and the tags: a
// mark is not activity, so the session keeps its place by time (pinning
// and unpinning one must not make it the newest).
func (req patchRequest) marksOnly() bool {
	return req.Title == nil && req.Name == nil && req.Scratchpad == nil && req.Links == nil &&
		req.Model == nil && req.Think == nil && req.Personality == nil
}

func (s *Server) patchSession(c echo.Context) error {
	var req patchRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if req.Links != nil {
		if err := checkLinks(*req.Links); err != nil {
			return err
		}
	}
	if req.Name != nil {
		if err := checkName(*req.Name); err != nil {
			return err
		}
	}
	if req.Tags != nil {
		tags, err := session.CleanTags(*req.Tags)
		if err != nil {
			return err
		}
		req.Tags = &tags
	}
	var notice string
	if req.Model != nil {
		stored, note, err := s.resolveModel(c.Request().Context(), *req.Model)
		if err != nil {
			return err
		}
		req.Model, notice = &stored, note
	}
	change := func(d *session.Document) error {
		// Marked archived while its live session still runs (its files
		// move when it closes), or already in the archive: read-only both.
		if archived, _ := s.opts.Sessions.IsArchived(d.ID); archived || d.Archived {
			return fmt.Errorf("%w: archived sessions are read-only; restore it first", errReadOnly)
		}
		if err := applyPatch(d, req); err != nil {
			return err
		}
		if err := s.applySteering(d, req.Think, req.Personality); err != nil {
			return err
		}
		if !req.marksOnly() {
			d.UpdatedAt = s.opts.Now().UTC()
		}
		// Told before the file changes, so the watcher never sees the new
		// title or time as news and tells the tabs twice.
		s.told.setOwn(d.ID, d.Title, d.UpdatedAt)
		return nil
	}
	sum, err := s.updateSession(c.Param("id"), change)
	if err != nil {
		return err
	}
	if req.Title != nil {
		s.events.Publish(sum.ID, event.Title{Title: sum.Title})
	}
	if req.Name != nil {
		s.releaseName(sum.Name, sum.ID)
	}
	if _, live := s.live.Get(sum.ID); !live {
		// A live session told its tabs in Update; the file is the record
		// otherwise.
		s.publishStoredPanel(sum.ID)
	}
	return c.JSON(http.StatusOK, patchAnswer{Summary: sum, Notice: notice})
}

// patchAnswer is the header after a PATCH, with what the person should
// know of it: a model taken as written because its provider could not
// list its models.
type patchAnswer struct {
	session.Summary
	Notice string `json:"notice,omitempty"`
}

// updateSession changes a session's document through its live session when
// this process has one (it holds the writer lock, and its copy in memory
// must not disagree with the file), else through the store. A live session
// opened between the two looks makes the store refuse; then the change goes
// through the live one.
func (s *Server) updateSession(id string, change func(*session.Document) error) (session.Summary, error) {
	for range 2 {
		if ls, ok := s.live.Get(id); ok {
			return ls.Update(change)
		}
		doc, err := s.opts.Sessions.Update(id, change)
		if err == nil {
			return doc.Summarize(), nil
		}
		if _, ok := s.live.Get(id); !ok || !errors.Is(err, session.ErrLocked) {
			return session.Summary{}, err
		}
	}
	return session.Summary{}, fmt.Errorf("update session %s: %w", id, session.ErrLocked)
}

// applyPatch changes d as req says; the title goes through the one title
// rule (session.SetTitle), so an empty one is refused and nothing changes.
func applyPatch(d *session.Document, req patchRequest) error {
	if req.Title != nil {
		if _, err := session.SetTitle(d, *req.Title); err != nil {
			return err
		}
	}
	if req.Name != nil {
		d.Name = *req.Name
	}
	if req.Scratchpad != nil {
		d.Scratchpad = *req.Scratchpad
	}
	if req.Links != nil {
		d.Links = *req.Links
	}
	if req.Model != nil {
		d.Model = strings.TrimSpace(*req.Model)
	}
	if req.Pinned != nil {
		d.Pinned = *req.Pinned
	}
	if req.Tags != nil {
		d.Tags = *req.Tags // cleaned by patchSession (session.CleanTags)
	}
	return nil
}

// checkLinks accepts web links only: a javascript: or file: URL has no
// place in a side panel a person clicks.
func checkLinks(links []session.Link) error {
	for _, l := range links {
		u, err := url.Parse(l.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%w: link %q must be an http or https URL", errBadInput, l.URL)
		}
	}
	return nil
}

// archiveSession archives a session. A live session that is busy is
// marked archived at once (it leaves the home page and takes no message)
// while its turn and tools go on; its files move into the archive when
// the turn ends. Otherwise the session closes here first, and no page can
// open it again until its files have moved.
func (s *Server) archiveSession(c echo.Context) error {
	id := c.Param("id")
	if ls, ok := s.live.Get(id); ok {
		idle, err := ls.Archive()
		switch {
		case err == nil && !idle:
			// Busy, or its turn just ended and release finishes it.
			return c.JSON(http.StatusOK, ls.Header())
		case err == nil:
			if err := s.live.FinishArchive(id); err != nil {
				return err
			}
			return s.answerHeader(c, id)
		case !errors.Is(err, live.ErrSessionClosed):
			return err
		}
	}
	if err := s.live.Exclusive(id, func() error { return s.opts.Sessions.Archive(id) }); err != nil {
		return err
	}
	s.tellArchived(id, true)
	return s.answerHeader(c, id)
}

// restoreSession brings a session back: a pending archive (its turn was
// still running) is called off; an archived session moves back.
func (s *Server) restoreSession(c echo.Context) error {
	id := c.Param("id")
	if ls, ok := s.live.Get(id); ok {
		// Live here means in session/: either an archive waiting for its
		// turn to end (called off now), or not archived at all (refused,
		// leaving its turn alone).
		err := ls.Restore()
		switch {
		case err == nil:
			return c.JSON(http.StatusOK, ls.Header())
		case !errors.Is(err, live.ErrSessionClosed):
			return err
		}
		// The archive finished first: restore it from the archive.
	}
	if err := s.live.Exclusive(id, func() error { return s.opts.Sessions.Restore(id) }); err != nil {
		return err
	}
	s.tellArchived(id, false)
	return s.answerHeader(c, id)
}

// tellArchived tells a session's open tabs that its files moved into the
// archive or out of it: read-only, or taking messages again. The watcher
// would tell them too, a tick later, and not at all when a restore undoes
// an archive within one tick (a session archived as its turn ended,
// restored at once).
func (s *Server) tellArchived(id string, archived bool) {
	status := archivedStatus(archived)
	s.told.setStatus(id, status)
	s.events.Publish(id, event.Status{Status: status})
}

// archivedStatus is the status a session's tabs are told for a session
// not open here: archived, or idle.
func archivedStatus(archived bool) string {
	if archived {
		return statusArchived
	}
	return statusIdle
}

func (s *Server) answerHeader(c echo.Context, id string) error {
	if ls, ok := s.live.Get(id); ok {
		return c.JSON(http.StatusOK, ls.Header())
	}
	doc, err := s.opts.Sessions.Load(id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, doc.Summarize())
}

func (s *Server) health(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{"pid": os.Getpid(), "profile": s.opts.Profile})
}

// decodeJSON reads a bounded JSON body strictly: an unknown field is more
// likely a typo than something to ignore.
func decodeJSON(c echo.Context, v any) error {
	r := c.Request()
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("%w: send JSON (Content-Type: application/json)", errBadInput)
	}
	dec := json.NewDecoder(http.MaxBytesReader(c.Response(), r.Body, maxJSONBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var tooBig *http.MaxBytesError
	switch {
	case errors.Is(err, io.EOF):
		return nil // an empty body means no fields
	case errors.As(err, &tooBig):
		return errkind.New(errkind.TooLarge, "request body too large")
	case err != nil:
		return fmt.Errorf("%w: %v", errBadInput, err)
	}
	return nil
}

// search finds text across the profile: messages, scratchpads and
// historical transcripts, by session, newest sessions first; with
// session=ID in that session alone.
func (s *Server) search(c echo.Context) error {
	q := strings.TrimSpace(c.QueryParam("q"))
	if q == "" {
		return fmt.Errorf("%w: give a query: ?q=words", errBadInput)
	}
	groups, err := s.opts.Sessions.SearchGroups(q, session.GroupOptions{Session: c.QueryParam("session")})
	if err != nil {
		return err
	}
	if groups == nil {
		groups = []session.Group{}
	}
	return c.JSON(http.StatusOK, groups)
}
