package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// compactSession compacts a session from the shell: `myco sessions
// compact ID [--focus TEXT]`. A summary is a model call, which the server
// makes: through the profile's running server (open tabs see it happen),
// or one started in this process for the call and stopped after, as
// `myco run` does.
func compactSession(ctx context.Context, e env, profile, prefix, focus string) error {
	st, id, err := openSession(e, profile, prefix)
	if err != nil {
		return err
	}
	info, done, err := connect(ctx, e, st)
	if err != nil {
		return err
	}
	var header struct {
		Threads  int `json:"threads"`
		Messages int `json:"messages"`
	}
	body := map[string]string{}
	if focus != "" {
		body["focus"] = focus
	}
	fmt.Fprintf(e.stderr, "myco: compacting %s (the model writes a summary)…\n", id)
	err = newAPIClient(info).call(ctx, http.MethodPost, sessionPath(id, "compact"), body, http.StatusOK, &header)
	if done != nil {
		err = errors.Join(err, done())
	}
	if err != nil {
		return fmt.Errorf("compact %s: %w", id, err)
	}
	fmt.Fprintf(e.stdout, "compacted %s: thread %d starts with the summary; the earlier threads keep every message\n", id, header.Threads)
	return nil
}

// eachSession runs do for every ID of a command that takes several
// (archive, restore, delete): all of them are tried, and the failures are
// reported together after.
func eachSession(ids []string, do func(prefix string) error) error {
	var errs []error
	for _, p := range ids {
		if err := do(p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
