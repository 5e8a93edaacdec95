package live

import (
	"context"

	"myco/server/filepick"
)

// FindPaths finds the files and folders of the session's folder that
// match query fuzzily, for the @ picker (`rntm` finds
// src/app/runtime.ts): at most maxPathHits of them, best first, folders
// ending with a slash, those Attach would refuse (denied, or leading out
// of the folder) left out. ix keeps each folder's walked list for a
// while; the walk is never the request's to wait out beyond ctx.
func (s *Session) FindPaths(ctx context.Context, ix *filepick.Index, query string) ([]string, error) {
	keep := func(rel string) bool {
		_, err := s.folderTarget(rel)
		return err == nil
	}
	return ix.Find(ctx, s.cwdRoot(), query, maxPathHits, keep)
}
