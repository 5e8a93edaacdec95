package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"myco/profiles"
	"myco/session"
)

// retitleSession renames a session. While the profile's server runs, the
// session may be open there (it then holds the writer lock), so the change
// goes through its API and open tabs update at once; otherwise the
// document is changed on disk.
func retitleSession(ctx context.Context, e env, profile, prefix, title string) error {
	st, id, err := openSession(e, profile, prefix)
	if err != nil {
		return err
	}
	// Cleaned here as well as by the server, so the line below says what
	// the title became, and an empty one is refused before any request.
	title = session.CleanTitle(title)
	if title == "" {
		return fmt.Errorf("rename %s: %w", id, session.ErrEmptyTitle)
	}
	if info, ok := liveServer(st.profile); ok && answers(info) {
		err = patchTitle(ctx, info, id, title)
	} else {
		err = setTitle(st.sessions, id, title)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "renamed %s to %q\n", id, title)
	return nil
}

// setTitle renames a session on disk under the rule the server applies:
// an archived session, marked or only filed in the archive, is refused.
func setTitle(st *session.Store, id, title string) error {
	archived, err := st.IsArchived(id)
	if err != nil {
		return err
	}
	if archived {
		return fmt.Errorf("rename %s: %w: restore it before renaming it", id, session.ErrArchived)
	}
	_, err = st.Update(id, func(d *session.Document) error {
		changed, err := session.SetTitle(d, title)
		if changed {
			d.UpdatedAt = time.Now().UTC()
		}
		return err
	})
	return err
}

func patchTitle(ctx context.Context, info profiles.ServerInfo, id, title string) error {
	return callServer(ctx, info, http.MethodPatch, "/api/sessions/"+url.PathEscape(id), map[string]string{"title": title}, http.StatusOK, "rename")
}

// callServer sends body as JSON to the profile's running server, as the
// tab would, and turns a refusal into its error's words; doing names the
// action for a failure to reach it.
func callServer(ctx context.Context, info profiles.ServerInfo, method, path string, body any, want int, doing string) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, method, info.URL+path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+info.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return fmt.Errorf("%s through the running myco (%s): %w", doing, info.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		var e struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("the running myco refused: %s", e.Error)
	}
	return nil
}
