package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"myco/profiles"
	"myco/session"
)

// maxNoteInput bounds a note read from standard input.
const maxNoteInput = 1 << 20

// sendCommand leaves a note for a session: `myco send [--from NAME] ID
// [TEXT]`, the text from standard input when it is absent. While the
// profile's server runs the note goes through its API (open tabs show it
// at once); otherwise it is written into the session's document, where it
// waits until the session is next open.
func sendCommand(ctx context.Context, e env, profile string, args []string) error {
	fs := newFlagSet("myco send", e.stderr)
	fs.StringVar(&profile, "profile", profile, "profile name")
	from := fs.String("from", "", "who the note is from (e.g. \"nightly build\")")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		fmt.Fprintf(e.stderr, "myco send: expected ID and TEXT (or TEXT on standard input)\n\n%s", usage)
		return errUsage
	}
	var text string
	if len(pos) == 2 {
		text = pos[1]
	} else {
		data, err := io.ReadAll(io.LimitReader(e.stdin, maxNoteInput+1))
		if err != nil {
			return fmt.Errorf("read the note from standard input: %w", err)
		}
		if len(data) > maxNoteInput {
			return fmt.Errorf("the note on standard input is longer than %d bytes", maxNoteInput)
		}
		text = string(data)
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return errors.New("the note is empty")
	}
	st, id, err := openSession(e, profile, pos[0])
	if err != nil {
		return err
	}
	if info, ok := liveServer(st.profile); ok && answers(info) {
		err = postNote(ctx, info, id, *from, text)
	} else {
		// Another myco send may hold the session for the moment it takes
		// to write its own note: wait for it rather than fail.
		err = retryLocked(ctx, lockWait, func() error { return storeNote(st.sessions, id, *from, text) })
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "note left for %s\n", id)
	return nil
}

// storeNote writes the note into the session's document, under the rule
// the server applies: an archived session is refused.
func storeNote(st *session.Store, id, from, text string) error {
	archived, err := st.IsArchived(id)
	if err != nil {
		return err
	}
	if archived {
		return fmt.Errorf("send to %s: %w: restore it first", id, session.ErrArchived)
	}
	_, err = st.Update(id, func(d *session.Document) error {
		if d.Archived {
			return fmt.Errorf("send to %s: %w: restore it first", id, session.ErrArchived)
		}
		session.AddNote(d, session.Note{ID: uuid.NewString(), Kind: session.NoteText, From: from, Text: text, At: time.Now().UTC()})
		return nil
	})
	return err
}

func postNote(ctx context.Context, info profiles.ServerInfo, id, from, text string) error {
	return callServer(ctx, info, http.MethodPost, "/api/sessions/"+url.PathEscape(id)+"/notes", map[string]string{"text": text, "from": from}, http.StatusAccepted, "send")
}
