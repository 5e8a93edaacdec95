package profiles

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// settleDelay is how long Watch waits after the last change of the file
// before it reads it: an editor that saves by delete-and-create, or in
// several writes, would otherwise be read half-way (a missing file reads
// as the defaults).
const settleDelay = 100 * time.Millisecond

// Watch reloads the settings file whenever it changes, until ctx ends,
// and tells report of each reload (its error, nil when the file was good),
// the first one as soon as the watch is in place.
// It watches the file's folder, not the file: editors save by writing a
// new file and renaming it over the old one, which ends a watch on the
// file itself. A holder that reads no file returns at once.
func (l *LiveSettings) Watch(ctx context.Context, report func(error)) error {
	if l.path == "" {
		return nil
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch settings: %w", err)
	}
	defer w.Close()
	if err := w.Add(filepath.Dir(l.path)); err != nil {
		return fmt.Errorf("watch settings: %w", err)
	}
	// An edit between the first load and the watch would go unseen.
	report(l.Reload())
	settle := time.NewTimer(settleDelay)
	settle.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if filepath.Clean(ev.Name) == filepath.Clean(l.path) && !ev.Has(fsnotify.Chmod) {
				settle.Reset(settleDelay)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			report(fmt.Errorf("watch settings: %w", err))
		case <-settle.C:
			report(l.Reload())
		}
	}
}
