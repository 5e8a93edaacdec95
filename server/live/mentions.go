package live

import (
	"os"
	"regexp"
	"strings"
	"unicode/utf8"

	"myco/server/tools"
	"myco/session"
)

// mentionPattern finds @tokens at the start of the text or after white
// space, so an e-mail address (bob@example.com) is never one.
var mentionPattern = regexp.MustCompile(`(?:^|\s)@(\S+)`)

// trailing are the characters that end a sentence or close a bracket or a
// quote after a path ("see @a.txt.", "(@a.txt)"): part of the path only when
// a file by that exact name exists.
const trailing = `.,;:!?)]}"'’”`

// mentionCandidates returns, for each @token of text, the paths it may
// name, longest first: the token as written, then with its trailing
// punctuation taken off one character at a time.
func mentionCandidates(text string) [][]string {
	var out [][]string
	for _, m := range mentionPattern.FindAllStringSubmatch(text, -1) {
		var cands []string
		for p := m[1]; p != ""; {
			cands = append(cands, p)
			// One character at a time: "a.txt.)" tries "a.txt." before "a.txt".
			r, size := utf8.DecodeLastRuneInString(p)
			if !strings.ContainsRune(trailing, r) {
				break
			}
			p = p[:len(p)-size]
		}
		out = append(out, cands)
	}
	return out
}

// AttachMentions attaches every @path of a message that names an existing
// file or folder (@path in the composer); an @word that names nothing
// (@alice, @Override) stays text. A path that exists but is refused (a
// denied one, one outside the folder, an image, a file too large) stops the
// message with the reason, as Attach does. Each path is attached once.
func (s *Session) AttachMentions(text string) ([]session.Note, error) {
	var notes []session.Note
	seen := map[string]bool{}
	for _, cands := range mentionCandidates(text) {
		p, ok := s.existing(cands)
		if !ok || seen[p] {
			continue
		}
		seen[p] = true
		n, err := s.Attach(p)
		if err != nil {
			return notes, err
		}
		notes = append(notes, n)
	}
	return notes, nil
}

// existing returns the first of cands that names a file or folder, read
// from the session's folder as Attach reads it.
func (s *Session) existing(cands []string) (string, bool) {
	root := s.cwdRoot()
	home, _ := os.UserHomeDir()
	for _, p := range cands {
		abs, err := tools.AbsPath(root, home, p)
		if err != nil {
			continue
		}
		if _, err := os.Stat(abs); err == nil {
			return p, true
		}
	}
	return "", false
}
