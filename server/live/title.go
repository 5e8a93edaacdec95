package live

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"myco/internal/textcut"
	"myco/server/event"
	"myco/server/llm"
	"myco/session"
)

const titlePrompt = `Write a short title (at most 6 words) for the conversation below. Reply with the title only: no quotes, no final period.`

// makeTitle names a session that has none from its first exchange. It
// never overwrites a title set meanwhile by the person or the agent.
func (s *Session) makeTitle() {
	var excerpt string
	s.w.View(func(d *session.Document) { excerpt = firstExchange(d) })
	if excerpt == "" {
		return
	}
	m, err := s.titleModel()
	if err != nil {
		s.m.log.Warn("title not made", "session", s.id, "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := s.stream(ctx, "title", m.name, m.client, llm.Request{
		Model: m.id, System: titlePrompt, MaxTokens: 64,
		Messages: []session.Message{{Role: "user", Content: []session.Block{{Type: session.BlockText, Text: excerpt}}}},
	}, func(string) {})
	if err != nil {
		s.m.log.Warn("title not made", "session", s.id, "model", m.name, "err", err)
		return
	}
	title := cleanTitle(textOf(resp.Content))
	if title == "" {
		s.m.log.Warn("title not made: the model's answer holds no title", "session", s.id, "model", m.name)
		return
	}
	// Never over a title set meanwhile, nor on a session archived while
	// its turn finished (SetTitle refuses that).
	changed := false
	doc, err := s.Update(func(d *session.Document) error {
		if d.Title != "" && !d.Provisional() {
			return nil
		}
		var err error
		changed, err = session.SetTitle(d, title)
		return err
	})
	if err == nil && changed {
		s.publish(event.Title{Title: doc.Title})
	}
}

// maxTitleExcerpt bounds what the title model reads of a session.
const maxTitleExcerpt = 2000

// firstExchange is what the title model reads: the session's first
// messages, or for a fork the first ones after the fork point, so a fork
// is named for what is new in it and not after its parent's start. A
// thread made by compaction begins with messages carried from the thread
// before; they were read there (or, in a fork, are the parent's), so only
// what each thread wrote counts (Document.Written).
func firstExchange(d *session.Document) string {
	var b strings.Builder
	for i := range d.Threads {
		for _, m := range d.Written(i) {
			for _, bl := range m.Content {
				if bl.Type == session.BlockText {
					b.WriteString(m.Role + ": " + bl.Text + "\n")
				}
			}
			if b.Len() > maxTitleExcerpt {
				return textcut.Bytes(b.String(), maxTitleExcerpt)
			}
		}
	}
	return b.String()
}

func textOf(blocks []session.Block) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == session.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}

func cleanTitle(s string) string {
	// What is model output only: the title is the reply's first line,
	// often dressed as a quote or a markdown heading, or ended by a
	// period. The rest is the one title rule every rename follows.
	const dressing = "\"'`*# \t\r"
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	line = strings.TrimRight(strings.TrimLeft(line, dressing), dressing+".")
	return session.CleanTitle(line)
}

func newID() string { return uuid.NewString() }
