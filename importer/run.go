package importer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-json-experiment/json"

	"myco/session"
)

// Store is where imported sessions go: the profile's session store.
type Store interface {
	IsArchived(id string) (bool, error)
	Save(doc *session.Document) error
	Archive(id string) error
}

// ImageStore keeps the images an imported session shows.
type ImageStore interface {
	Put(data []byte) (session.ImageRef, error)
}

var (
	_ Store      = (*session.Store)(nil)
	_ ImageStore = (*session.Images)(nil)
)

// Options say what one import reads and where it writes.
type Options struct {
	Tool  string
	Paths []string // empty: the tool's DefaultPath
	// Getenv reads the environment for DefaultPath; nil reads nothing.
	Getenv   func(string) string
	Sessions Store
	Images   ImageStore
	Now      func() time.Time
	// Progress, when set, is called after each source session with how
	// many are done of how many were found.
	Progress func(p Progress)
}

// Progress is how far an import is.
type Progress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// Outcomes of one source session.
const (
	Imported = "imported"
	Already  = "already" // imported before: nothing made
	Failed   = "failed"
	// NotSession: the file holds no session of the tool (Claude Code
	// leaves files of bookkeeping alone, for one): reported, not an error.
	NotSession = "not_session"
)

// Item is what happened to one source session.
type Item struct {
	Path    string `json:"path"`
	Source  string `json:"source_id"`
	Outcome string `json:"outcome"`
	Session string `json:"session,omitempty"`
	Title   string `json:"title,omitempty"`
	// Messages is how many messages the session holds.
	Messages int `json:"messages,omitempty"`
	// Skipped counts the lines that could not be read.
	Skipped int `json:"skipped_lines,omitempty"`
	// Notes say what was kept as text or left out.
	Notes []string `json:"notes,omitempty"`
	// Archived: the tool had archived it, and so is it here.
	Archived bool   `json:"archived,omitempty"`
	Error    string `json:"error,omitempty"`
}

// Report is the whole import's outcome.
type Report struct {
	Tool     string   `json:"tool"`
	Paths    []string `json:"paths"`
	Imported int      `json:"imported"`
	Already  int      `json:"already"`
	Failed   int      `json:"failed"`
	// NotSessions counts the files found that hold no session.
	NotSessions int       `json:"not_sessions"`
	Items       []Item    `json:"items"`
	Problems    []Problem `json:"problems,omitempty"`
}

// Run imports every session found under opts.Paths. A session already
// imported is not read again; one that fails is reported and the others
// go on. The error is for the import as a whole (an unknown tool, ctx
// done); a path that does not exist is a Problem.
func Run(ctx context.Context, opts Options) (*Report, error) {
	r, err := readerFor(opts.Tool)
	if err != nil {
		return nil, err
	}
	if c, ok := r.(closer); ok {
		defer c.close()
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	paths := opts.Paths
	if len(paths) == 0 {
		p, err := DefaultPath(opts.Tool, opts.Getenv)
		if err != nil {
			return nil, err
		}
		paths = []string{p}
	}
	rep := &Report{Tool: opts.Tool, Paths: paths, Items: []Item{}}
	var found []Candidate
	seen := map[string]bool{}
	for _, p := range paths {
		cs, err := r.find(p)
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{Path: p, Reason: err.Error()})
			continue
		}
		for _, c := range cs {
			if !seen[c.ID] { // one source reached by two paths
				seen[c.ID] = true
				found = append(found, c)
			}
		}
	}
	progress := func(done int) {
		if opts.Progress != nil {
			opts.Progress(Progress{Done: done, Total: len(found)})
		}
	}
	progress(0)
	for i, c := range found {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		it := importOne(r, c, opts)
		switch it.Outcome {
		case Imported:
			rep.Imported++
		case Already:
			rep.Already++
		case NotSession:
			rep.NotSessions++
		default:
			rep.Failed++
		}
		rep.Items = append(rep.Items, it)
		progress(i + 1)
	}
	return rep, nil
}

// importOne reads, converts and stores one source session, unless it was
// imported before.
func importOne(r reader, c Candidate, opts Options) Item {
	it := Item{Path: c.Path, Source: c.ID, Session: SessionID(c.Tool, c.ID)}
	if _, err := opts.Sessions.IsArchived(it.Session); err == nil {
		it.Outcome = Already
		return it
	} else if !errors.Is(err, session.ErrNotFound) {
		return failed(it, err)
	}
	conv, err := r.read(c)
	if err == nil && len(conv.Messages) == 0 {
		err = fmt.Errorf("%w: it holds no messages", ErrNotSession)
	}
	if err != nil {
		return failed(it, err)
	}
	doc, err := build(conv, it.Session, opts)
	if err != nil {
		return failed(it, err)
	}
	if err := opts.Sessions.Save(doc); err != nil {
		return failed(it, err)
	}
	it.Outcome, it.Title, it.Messages = Imported, doc.Title, len(conv.Messages)
	it.Skipped, it.Notes = conv.Skipped, conv.Notes
	if conv.Archived {
		// Saved first, then moved as an archive does: the session is
		// whole wherever a failure leaves it, and a second import finds
		// it either way (IsArchived).
		if err := opts.Sessions.Archive(it.Session); err != nil {
			it.Notes = append(it.Notes, "archived in "+c.Tool+", but not here: "+err.Error())
		} else {
			it.Archived = true
		}
	}
	return it
}

func failed(it Item, err error) Item {
	it.Outcome, it.Error, it.Session = Failed, err.Error(), ""
	if errors.Is(err, ErrNotSession) {
		it.Outcome = NotSession
	}
	return it
}

// build stores the conversation's images and makes its document, whole.
// An image the store refuses (too large, not an image after all) is kept
// as a line of text saying so; one stored takes the media type the store
// found in its bytes, which the providers check.
func build(conv *Conversation, id string, opts Options) (*session.Document, error) {
	stored := map[string]string{} // SHA-256 → media type
	refused := map[string]string{}
	for sha, data := range conv.Images {
		ref, err := opts.Images.Put(data)
		switch {
		case errors.Is(err, session.ErrImageTooLarge) || errors.Is(err, session.ErrNotImage):
			refused[sha] = err.Error()
		case err != nil:
			return nil, fmt.Errorf("store an image: %w", err)
		default:
			stored[sha] = ref.MediaType
		}
	}
	if len(refused) > 0 {
		conv.Notes = append(conv.Notes, plural(len(refused), "image")+" the image store refused, kept as text")
	}
	for i := range conv.Messages {
		conv.Messages[i].Content = fixImages(conv.Messages[i].Content, stored, refused)
	}
	var n notes
	msgs := pairTools(conv.Messages, conv.Source.Tool, &n)
	conv.Notes = append(conv.Notes, n.list()...)
	now := opts.Now().UTC()
	created, updated := conv.Created.UTC(), conv.Updated.UTC()
	if created.IsZero() {
		created = now
	}
	if updated.Before(created) {
		updated = created
	}
	title := session.CleanTitle(conv.Title)
	if title == "" {
		title = session.CleanTitle(firstHumanText(msgs))
	}
	src := conv.Source
	src.ImportedAt = now
	return &session.Document{
		Schema: session.Schema, ID: id, Title: title, Model: conv.Model, Cwd: conv.Cwd,
		CreatedAt: created, UpdatedAt: updated, Source: &src,
		Threads: []session.Thread{{CreatedAt: created, Messages: msgs}},
	}, nil
}

func firstHumanText(msgs []session.Message) string {
	for _, m := range msgs {
		if !m.Human {
			continue
		}
		for _, b := range m.Content {
			if b.Type == session.BlockText && b.Text != "" {
				return b.Text
			}
		}
	}
	return ""
}

// fixImages gives each image block, in a message or inside a tool result,
// its stored media type, or turns it into text when it was refused.
func fixImages(blocks []session.Block, stored, refused map[string]string) []session.Block {
	for k, b := range blocks {
		switch b.Type {
		case session.BlockImage:
			if why, ok := refused[b.SHA256]; ok {
				blocks[k] = textBlock("[an image that could not be kept: " + why + "]")
			} else if mt, ok := stored[b.SHA256]; ok {
				blocks[k].MediaType = mt
			}
		case session.BlockToolResult:
			if b.Content.Kind() != '[' {
				continue
			}
			var inner []session.Block
			if json.Unmarshal(b.Content, &inner) != nil {
				continue
			}
			blocks[k].Content = mustJSON(fixImages(inner, stored, refused))
		}
	}
	return blocks
}
