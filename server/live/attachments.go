package live

import (
	"fmt"

	"myco/server/event"
	"myco/session"
)

// checkFiles refuses a message whose files are missing or damaged in the
// store, or together over session.MaxFilesPerMessage, before anything is
// saved: the error names the file. It returns the refs completed from the
// bytes (type and size as sniffed now, the name as attached), each blob
// once.
func (s *Session) checkFiles(files []session.FileRef) ([]session.FileRef, error) {
	if len(files) == 0 {
		return nil, nil
	}
	out := make([]session.FileRef, 0, len(files))
	seen := map[string]bool{}
	var total int64
	for _, f := range files {
		if seen[f.SHA256] {
			continue
		}
		seen[f.SHA256] = true
		name := f.Name
		if name == "" {
			name = "file-" + f.SHA256[:min(8, len(f.SHA256))]
		}
		_, ref, err := s.m.opts.Images.ReadFile(f.SHA256, name)
		if err != nil {
			return nil, err
		}
		total += ref.Size
		if total > session.MaxFilesPerMessage {
			return nil, fmt.Errorf("%w: the files of one message may be up to %s together; %s goes over", session.ErrFileTooLarge, session.HumanSize(session.MaxFilesPerMessage), ref.Name)
		}
		out = append(out, ref)
	}
	return out, nil
}

// queuedFiles are a queued message's files as its event names them.
func queuedFiles(files []session.FileRef) []event.QueuedFile {
	if len(files) == 0 {
		return nil
	}
	out := make([]event.QueuedFile, len(files))
	for i, f := range files {
		out[i] = event.QueuedFile{SHA256: f.SHA256, Name: f.Name, MediaType: f.MediaType, Size: f.Size}
	}
	return out
}
