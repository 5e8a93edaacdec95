package live

import (
	"fmt"
	"strings"

	"github.com/google/uuid"

	"myco/server/llm"
	"myco/session"
)

// maxOutputTokens is what a response may use; providers cap it further.
const maxOutputTokens = 8192

const systemPrompt = `You are an agent working with a person from a browser tab in myco.
You have a persistent shell (the bash tool) whose folder starts at %s; cd and
export carry over between commands. Read files with read_file and change
them with edit_file (exact replacements) or write_file (whole files); a file
must be read before it is changed, and the person approves each change.
Ask before doing anything destructive.
Name the session, and keep its links and scratchpad current, with session_meta;
look at earlier threads with session_history when you need them. Answer in
Markdown.`

// resumedNote is said once to an agent whose session was reopened in a new
// process: what it did in its old shell is gone.
const resumedNote = `This session was resumed in a new myco process: your shell is new (earlier cd, export and background jobs are gone), and files you read before must be read again before you change them.`

// forkedNote is said once to the agent of a fork: the history is its
// parent's, the shell and the reads are not.
const forkedNote = `This session is a fork: the conversation above was copied from another session, which may go on separately. Your shell is new (earlier cd, export and background jobs are gone), and files you read before must be read again before you change them; the files may have changed since.`

// buildRequest assembles the model call for the latest thread. What it
// sends is byte-stable within a session, so the providers' prompt cache
// holds: the system prompt and the tools change only when the person
// changes the model, plan mode, persona or thinking (docs/API.md lists
// them) or reloads the instruction files (read once, instructions.go),
// and what changes on its own (a new shell, the date, the shell's folder)
// rides in a context note delivered with the person's next
// message and kept, so later requests repeat it as it was sent.
func (s *Session) buildRequest() (llm.Request, llm.Client, error) {
	model := s.turnModel() // a custom command's turn may name its model (custom.go)
	var thread session.Thread
	var cacheKey string
	s.w.View(func(d *session.Document) { thread, cacheKey = d.Threads[len(d.Threads)-1], d.PromptCacheKey() })
	msgs := goalRequest(s.withNotes(seen(thread.Messages)))
	system := fmt.Sprintf(systemPrompt, s.folder()) + s.instructionsText() + s.planSystem()
	if model == "" {
		return llm.Request{}, nil, fmt.Errorf("%w: this session names no model and settings have no default_model", llm.ErrNoProvider)
	}
	client, modelID, err := s.m.opts.Models.Client(model)
	if err != nil {
		return llm.Request{}, nil, err
	}
	if thread.Summary != "" {
		msgs = append([]session.Message{summaryMessage(thread.Summary)}, msgs...)
	}
	settings := s.m.settings()
	return llm.Request{
		Model: modelID, System: system, Messages: normalize(msgs), Tools: s.toolDefs(), MaxTokens: maxOutputTokens,
		CacheKey: cacheKey, CacheTTL: settings.CacheTTL, CacheBreakpoints: settings.CacheBreakpoints(model), Encoded: &s.encoded,
	}, client, nil
}

// folder is the session's own folder, where its shell starts: fixed for
// the session, unlike the shell's current folder.
func (s *Session) folder() string {
	var cwd string
	s.w.View(func(d *session.Document) { cwd = d.Cwd })
	if cwd != "" {
		return cwd
	}
	return s.m.opts.DefaultCwd
}

// cwd is where the session's commands run; s.mu is held.
func (s *Session) cwd() string {
	if s.shell != nil {
		if d := s.shell.Cwd(); d != "" {
			return d
		}
	}
	return s.folder()
}

// stoppedNote tells the agent, once, that the person stopped its last
// turn: without it, a model reads its unfinished work and carries on.
const stoppedNote = "The person stopped your last turn before it ended. Do not carry on with that task unless they ask you to; answer what they say now."

// addContextNote saves, as a note for the person's next message, what the
// agent has not been told yet: that its shell is new (a resumed session,
// a fork), that the person stopped its last turn, the date when it changed, and the shell's folder when it moved
// without the agent (a person's !cd). The note is delivered with that
// message and kept, so the message reads the same in every later request.
func (s *Session) addContextNote() error {
	now := s.m.opts.Now()
	s.mu.Lock()
	var lines []string
	if s.shellNote != "" && !s.toldShell {
		lines = append(lines, s.shellNote)
		s.toldShell = true
	}
	if s.stoppedTurn {
		lines = append(lines, stoppedNote)
		s.stoppedTurn = false
	}
	if day := now.Format("Monday, 2006-01-02"); day != s.toldDay {
		lines = append(lines, "Today is "+day+".")
		s.toldDay = day
	}
	if s.shell != nil {
		if cwd := s.shell.Cwd(); cwd != "" && cwd != s.toldCwd && (s.toldCwd != "" || cwd != s.folder()) {
			lines = append(lines, "Your shell's current folder is "+cwd+".")
			s.toldCwd = cwd
		}
	}
	s.mu.Unlock()
	if len(lines) == 0 {
		return nil
	}
	n := session.Note{ID: uuid.NewString(), Kind: session.NoteContext, At: now.UTC(), Text: strings.Join(lines, "\n")}
	if err := s.w.AddNote(n); err != nil {
		if isClosed(err) {
			err = ErrSessionClosed
		}
		return fmt.Errorf("save context note: %w", err)
	}
	return nil
}

// seen is what the model sees of a thread's messages: all but the turns
// /undo took back and the answers a retry replaced (kept in the document,
// folded on the page), and the
// answers that are only an error (for the person: the model wrote none of
// it). It always returns a new slice.
func seen(msgs []session.Message) []session.Message {
	out := make([]session.Message, 0, len(msgs))
	for _, m := range msgs {
		if m.ReplacedBy == "" && !m.Undone && !onlyError(m) {
			out = append(out, m)
		}
	}
	return out
}

// onlyError reports whether m is a failed answer with nothing but its error.
func onlyError(m session.Message) bool {
	return m.Error != nil && len(nonEmpty(m.Content)) == 0
}

func summaryMessage(summary string) session.Message {
	return session.Message{Role: "user", Content: []session.Block{{
		Type: session.BlockText, Text: "Summary of the conversation before this thread:\n\n" + summary,
	}}}
}

// normalize makes a stored thread acceptable to the providers: no empty
// messages, roles alternating (consecutive messages of one role merged,
// as happens after an interrupted turn), and a user message first.
func normalize(msgs []session.Message) []session.Message {
	out := make([]session.Message, 0, len(msgs))
	for _, m := range msgs {
		m.Content = nonEmpty(m.Content)
		if len(m.Content) == 0 {
			continue
		}
		if len(out) == 0 && m.Role != "user" {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			out[n-1].Content = append(append([]session.Block(nil), out[n-1].Content...), m.Content...)
			continue
		}
		out = append(out, m)
	}
	return out
}

func nonEmpty(blocks []session.Block) []session.Block {
	out := make([]session.Block, 0, len(blocks))
	for _, b := range blocks {
		if b.Type == session.BlockText && strings.TrimSpace(b.Text) == "" {
			continue
		}
		out = append(out, b)
	}
	return out
}
