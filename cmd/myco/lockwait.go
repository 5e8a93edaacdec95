package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"myco/session"
)

// lockWait is how long a command waits for a session that another process
// holds (another `myco send` writing its note holds it for milliseconds)
// before it gives up and names the holder.
const lockWait = 5 * time.Second

// retryLocked runs fn again while it fails because another process holds
// the session's writer lock, for up to wait. flock(2) has no wait with a
// deadline, so the lock is tried again after a pause that grows from 2 ms
// to 50 ms. The last refusal names the holder, and how long was waited.
func retryLocked(ctx context.Context, wait time.Duration, fn func() error) error {
	deadline := time.Now().Add(wait)
	pause := 2 * time.Millisecond
	for {
		err := fn()
		var le *session.LockedError
		if !errors.As(err, &le) {
			return err
		}
		if time.Now().Add(pause).After(deadline) {
			return fmt.Errorf("%w (waited %s for it to be free)", err, wait.Round(time.Millisecond))
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		pause = min(2*pause, 50*time.Millisecond)
	}
}
