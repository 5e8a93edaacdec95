package session

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json"

	"myco/internal/mdtext"
)

// Hit is one place where a search matched: a message, a scratchpad, a title
// or the tail of a historical sidecar.
type Hit struct {
	Session string `json:"session"`
	Title   string `json:"title"`
	// Thread and Message locate a message hit; for the other kinds Thread
	// is 0 and Message is empty.
	Thread  int    `json:"thread"`
	Message string `json:"message,omitempty"`
	Kind    string `json:"kind"`
	// From says who wrote a message hit (FromPerson, FromAgent, FromTool,
	// FromMyco) and At when; both are empty for the other kinds.
	From    string    `json:"from,omitempty"`
	At      time.Time `json:"at,omitzero"`
	Excerpt string    `json:"excerpt"` // one line around the match, as plain text
}

// Who wrote a message hit, as Hit.From says it.
const (
	FromPerson = "person" // the person typed it
	FromAgent  = "agent"  // an answer of the model, its tool calls included
	FromTool   = "tool"   // the outcomes of tool calls
	FromMyco   = "myco"   // a message myco wrote: a goal's turn, a note's delivery
)

// Hit kinds besides SidecarReadline and SidecarConsole.
const (
	HitMessage    = "message"
	HitScratchpad = "scratchpad"
	HitTitle      = "title"
)

// DefaultSearchLimit is the number of hits Search returns when asked for
// none in particular.
const DefaultSearchLimit = 50

// sidecarTail is how much of the end of a sidecar Search reads: the old
// transcripts can be large, and their end is what a person remembers.
const sidecarTail = 64 << 10

// Search finds the query's words (all of them, case-insensitively, as
// substrings of one message, scratchpad, title or sidecar tail) in every
// readable document, active and archived, newest session first, and returns
// at most limit hits (DefaultSearchLimit when limit <= 0). An empty query
// matches nothing. Damaged documents are skipped and never touched.
//
// It is a scan, not an index: each document's raw bytes and its journal
// are read and lowercased by two goroutines, and only those that hold
// every word (or may, through JSON escapes: see mayMatch) are decoded
// through Load, so what Load sees (the journal applied) is what is
// searched. Most documents hold a rare word nowhere, and skipping their
// decoding is what makes it fast (docs/PERFORMANCE.md, "Search"). Image
// bytes are never read: no blob is opened, and a legacy inline image's
// base64, which Load keeps as a string, is not searched.
func (s *Store) Search(q string, limit int) ([]Hit, error) {
	m := newMatcher(q)
	if m == nil {
		return nil, nil
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	var hits []Hit
	err := s.scan(m, func(sum Summary, doc *Document, sidecars bool) bool {
		for _, p := range s.places(sum, doc, m, sidecars) {
			hits = append(hits, p.hit(m))
			if len(hits) == limit {
				return false
			}
		}
		return true
	})
	return hits, err
}

// place is where every word of a query is in a session, before it becomes
// a Hit: cutting an excerpt (and reading a message's Markdown for it) is
// left for the hits that are shown.
type place struct {
	session, title string
	kind           string
	thread         int
	msg            *Message // a message hit's message
	text           string   // what was searched
}

// places lists where the words of m are in the session: title,
// scratchpad, messages newest first, then the sidecars (when it may have
// any), which are older than any message. With no document (the
// prefilter ruled it out) only the sidecars are searched.
func (s *Store) places(sum Summary, doc *Document, m *matcher, sidecars bool) []place {
	var out []place
	if doc != nil {
		out = docPlaces(doc, m)
		sum.Title = doc.Title
	}
	if !sidecars {
		return out
	}
	for _, kind := range []string{SidecarReadline, SidecarConsole} {
		if text := s.sidecarTail(sum.ID, kind); m.holds(text) {
			out = append(out, place{session: sum.ID, title: sum.Title, kind: kind, text: text})
		}
	}
	return out
}

// docPlaces lists where the words of m are in doc's title, scratchpad and
// messages.
func docPlaces(doc *Document, m *matcher) []place {
	var out []place
	add := func(kind, text string, thread int, msg *Message) {
		if m.holds(text) {
			out = append(out, place{session: doc.ID, title: doc.Title, kind: kind, thread: thread, msg: msg, text: text})
		}
	}
	add(HitTitle, doc.Title, 0, nil)
	add(HitScratchpad, doc.Scratchpad, 0, nil)
	for ti := len(doc.Threads) - 1; ti >= 0; ti-- {
		msgs := doc.Threads[ti].Messages
		for mi := len(msgs) - 1; mi >= 0; mi-- {
			add(HitMessage, messageText(msgs[mi]), ti, &msgs[mi])
		}
	}
	return out
}

// hit is p as a Hit, its excerpt cut around the earliest word in the text
// as a reader sees it (shownText).
func (p place) hit(m *matcher) Hit {
	h := Hit{Session: p.session, Title: p.title, Thread: p.thread, Kind: p.kind}
	text := p.text
	if p.msg != nil {
		h.Message, h.From, h.At = p.msg.ID, from(*p.msg), p.msg.At
		text = shownText(*p.msg)
	}
	at, _ := m.first(text) // a word only in markup (a link's target): the text's start
	h.Excerpt = excerpt(text, at)
	return h
}

// from says who wrote msg, as the page labels it (web MessageView.Label).
func from(msg Message) string {
	switch {
	case msg.Role == "assistant":
		return FromAgent
	case msg.Human:
		return FromPerson
	case onlyResults(msg):
		return FromTool
	}
	return FromMyco
}

func onlyResults(msg Message) bool {
	for _, b := range msg.Content {
		if b.Type != BlockToolResult {
			return false
		}
	}
	return len(msg.Content) > 0
}

// shownText is messageText as the page shows it: an answer's text blocks,
// which the page renders as Markdown, without their markup (mdtext.Plain);
// a person's words are shown as typed, and tool inputs and outputs are not
// Markdown.
func shownText(msg Message) string {
	if msg.Role != "assistant" {
		return messageText(msg)
	}
	var parts []string
	for _, b := range msg.Content {
		switch b.Type {
		case BlockText:
			parts = append(parts, mdtext.Plain(b.Text))
		case BlockToolUse:
			parts = append(parts, b.Name)
			parts = appendStrings(parts, b.Input)
		}
	}
	return strings.Join(parts, "\n")
}

// messageText is the searchable text of a message: text blocks, the string
// values of tool inputs and the text of tool results. Images contribute
// nothing.
func messageText(msg Message) string {
	var parts []string
	for _, b := range msg.Content {
		switch b.Type {
		case BlockText:
			parts = append(parts, b.Text)
		case BlockToolUse:
			parts = append(parts, b.Name)
			parts = appendStrings(parts, b.Input)
		case BlockToolResult:
			parts = append(parts, toolResultText(b))
		}
	}
	return strings.Join(parts, "\n")
}

// appendStrings appends the string values found in a JSON value, object
// members in key order, so that `{"command": "ls -la"}` matches "ls -la"
// without quotes and escapes in the way.
func appendStrings(parts []string, raw []byte) []string {
	if len(raw) == 0 {
		return parts
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return append(parts, string(raw))
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			parts = append(parts, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(v[k])
			}
		}
	}
	walk(v)
	return parts
}

// toolResultText is the text of a tool_result block: its content string, or
// the text blocks of its content list. Image blocks in the list, and their
// bytes, are left out.
func toolResultText(b Block) string {
	if len(b.Content) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	// Only type and text are decoded: other members, an inline image's
	// data included, are skipped without being copied.
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(b.Content, &blocks) != nil {
		return ""
	}
	var texts []string
	for _, e := range blocks {
		if e.Type == BlockText {
			texts = append(texts, e.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// sidecarTail reads the last 64 KB of session id's sidecar of the given
// kind, wherever it is (see Sidecar). A sidecar that is absent or cannot
// be read is "": like a damaged document, it is left out of the search
// rather than failing it.
func (s *Store) sidecarTail(id, kind string) string {
	dir, archived, err := s.locate(id)
	if err != nil {
		return ""
	}
	other := s.archivedDir
	if archived {
		other = s.dir
	}
	for _, d := range []string{dir, other} {
		text, err := readTail(filepath.Join(d, id+"."+kind), sidecarTail)
		if err == nil {
			return text
		}
	}
	return ""
}

// readTail reads at most the last n bytes of a file. A cut start drops its
// partial first line; bytes that are not UTF-8 become U+FFFD.
func readTail(path string, n int64) (string, error) {
	f, info, err := openRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	off := max(info.Size()-n, 0)
	data, err := io.ReadAll(io.NewSectionReader(f, off, n))
	if err != nil {
		return "", fmt.Errorf("read sidecar: %w", err)
	}
	if off > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return strings.ToValidUTF8(string(data), "\uFFFD"), nil
}

// matcher finds all of a query's words in a text, ignoring case.
type matcher struct {
	words [][]byte
	// escapable is set when a word holds a character that JSON writes as
	// an escape (a quote, a backslash, a slash, a control or line
	// separator character, or <, >, & for HTML-safe encoders): its raw
	// bytes say nothing about such a word.
	escapable bool
	// ascii is set when every word is ASCII; then only \u escapes of
	// runes in asciiRunes can hide part of a word in raw JSON.
	ascii      bool
	asciiRunes [utf8.RuneSelf]bool
	// anchors[i] is where containsFoldASCII looks into words[i] first.
	anchors []int
}

// newMatcher returns nil for a query without words.
func newMatcher(q string) *matcher {
	m := &matcher{ascii: true}
	for _, w := range strings.Fields(lowerSameLen(q)) {
		m.words = append(m.words, []byte(w))
		for _, r := range w {
			switch {
			case r < 0x20 || r == 0x7f || strings.ContainsRune("\"\\/<>&\u2028\u2029", r):
				m.escapable = true
			case r >= utf8.RuneSelf:
				m.ascii = false
			default:
				m.asciiRunes[r] = true
			}
		}
	}
	if len(m.words) == 0 {
		return nil
	}
	for _, w := range m.words {
		m.anchors = append(m.anchors, anchorOf(w))
	}
	return m
}

// mayMatch reports whether raw, the bytes of JSON documents (lowercased
// by lowerSameLen unless every word is ASCII: then case is folded while
// searching, which gives the same answer, since lowerSameLen never turns
// a non-ASCII rune into an ASCII one), may hold every word of m in its
// decoded strings. It must
// never say no to a real match, and says yes when unsure: a decoded
// character is either the same bytes in raw or an escape; lowercasing
// rune by rune commutes with decoding for the bytes that are not escapes,
// and never turns a non-ASCII rune into an ASCII one. So a word no escape
// can produce part of is in the decoded text only if it is in raw.
func (m *matcher) mayMatch(raw []byte) bool {
	if m.escapable {
		return true
	}
	for i, w := range m.words {
		found := false
		if m.ascii {
			found = containsFoldASCII(raw, w, m.anchors[i])
		} else {
			found = bytes.Contains(raw, w)
		}
		if !found {
			return m.escapesMayHide(raw)
		}
	}
	return true
}

// letterRank orders letters from the most to the least frequent in
// English text: a word is looked for by its rarest letter.
const letterRank = "etaoinsrhldcumfpgwybvkxjqz"

// anchorOf is the index of the byte of w (lowercase ASCII) to look for
// first: its rarest letter, or any byte that is not a letter.
func anchorOf(w []byte) int {
	best, bestRank := 0, -1
	for i, c := range w {
		rank := strings.IndexByte(letterRank, c)
		if rank < 0 {
			rank = len(letterRank) // digits and punctuation: rarer still
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// containsFoldASCII reports whether raw holds w (lowercase ASCII) with
// ASCII letters in either case, without a lowercased copy of raw: it
// looks for both cases of w's anchor byte with IndexByte (fast), then
// compares around each.
func containsFoldASCII(raw, w []byte, anchor int) bool {
	cases := [2]byte{w[anchor], w[anchor]} // an array: no allocation per document
	if c := w[anchor]; 'a' <= c && c <= 'z' {
		cases[1] = c - 'a' + 'A'
	}
	for i, c := range cases {
		if i == 1 && c == cases[0] {
			break // not a letter: one case only
		}
		for off := 0; ; {
			i := bytes.IndexByte(raw[off:], c)
			if i < 0 {
				break
			}
			start := off + i - anchor
			if start >= 0 && start+len(w) <= len(raw) && equalFoldASCII(raw[start:start+len(w)], w) {
				return true
			}
			off += i + 1
		}
	}
	return false
}

// equalFoldASCII reports whether b equals w (lowercase ASCII) once b's
// ASCII capitals are lowered.
func equalFoldASCII(b, w []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// escapesMayHide reports whether a \u escape in raw may decode to a
// character of a word: any escape for a word that is not ASCII (a
// surrogate pair, or a rune whose case changes, could make one), only
// escapes of the ASCII characters of the words otherwise. A control
// character written \u001b, the usual one in terminal output, hides
// nothing. A \u after an escaped backslash is taken for an escape too:
// a false alarm only costs a decode.
func (m *matcher) escapesMayHide(raw []byte) bool {
	if !m.ascii {
		return bytes.Contains(raw, []byte(`\u`))
	}
	for {
		i := bytes.Index(raw, []byte(`\u`))
		if i < 0 {
			return false
		}
		raw = raw[i+2:]
		if len(raw) < 4 {
			return true
		}
		v, err := strconv.ParseUint(string(raw[:4]), 16, 16)
		if err != nil {
			continue // not an escape (raw is lowercased, so no \U either)
		}
		if v < utf8.RuneSelf && m.asciiRunes[unicode.ToLower(rune(v))] {
			return true
		}
	}
}

// holds reports whether text holds every word. For an ASCII query it
// folds case as it searches, as mayMatch does, instead of lowercasing a
// copy of every message's text (half of a grouped search for a common
// word went there).
func (m *matcher) holds(text string) bool {
	if !m.ascii {
		_, ok := m.first(text)
		return ok
	}
	// Read-only: containsFoldASCII never writes to raw.
	raw := unsafe.Slice(unsafe.StringData(text), len(text))
	for i, w := range m.words {
		if !containsFoldASCII(raw, w, m.anchors[i]) {
			return false
		}
	}
	return true
}

// first is the byte offset of the earliest word in text, if text holds
// every word.
func (m *matcher) first(text string) (int, bool) {
	if text == "" {
		return 0, false
	}
	lower := lowerSameLen(text)
	first := len(text)
	for _, w := range m.words {
		i := strings.Index(lower, string(w))
		if i < 0 {
			return 0, false
		}
		first = min(first, i)
	}
	return first, true
}

// lowerSameLen lowercases s rune by rune, keeping any rune whose lower case
// has another UTF-8 length (and any invalid byte) as it is, so that an
// index into the result is an index into s.
func lowerSameLen(s string) string {
	b := []byte(s)
	lowerInPlace(b)
	return string(b)
}

// lowerInPlace is lowerSameLen over b, in place.
func lowerInPlace(b []byte) {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if l := unicode.ToLower(r); r != utf8.RuneError && l != r && utf8.RuneLen(l) == size {
			utf8.EncodeRune(b[i:], l)
		}
		i += size
	}
}

// Excerpt width: about 160 characters, a third of them before the match.
const (
	excerptBefore = 50
	excerptWidth  = 160
)

// excerpt cuts about 160 bytes of text around byte offset at and makes them
// one line: runs of white space and control characters become one space.
func excerpt(text string, at int) string {
	start := max(at-excerptBefore, 0)
	end := min(start+excerptWidth, len(text))
	start = max(min(start, end-excerptWidth), 0) // near the end, show more before
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	line := strings.Join(strings.FieldsFunc(text[start:end], func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
	if start > 0 {
		line = "…" + line
	}
	if end < len(text) {
		line += "…"
	}
	return line
}

// Marks returns the byte ranges of text where the words of query q occur,
// matched as Search matches them (case-insensitively), in order and not
// overlapping: what a page highlights in a hit's excerpt.
func Marks(text, q string) [][2]int {
	m := newMatcher(q)
	if m == nil {
		return nil
	}
	lower := lowerSameLen(text)
	var spans [][2]int
	for i := 0; i < len(lower); {
		best := [2]int{-1, -1}
		for _, w := range m.words {
			j := strings.Index(lower[i:], string(w))
			if j >= 0 && (best[0] < 0 || i+j < best[0] || i+j == best[0] && i+j+len(w) > best[1]) {
				best = [2]int{i + j, i + j + len(w)}
			}
		}
		if best[0] < 0 {
			break
		}
		spans = append(spans, best)
		i = best[1]
	}
	return spans
}
