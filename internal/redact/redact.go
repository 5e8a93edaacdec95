// Package redact replaces secrets with a marker before text reaches the
// disk: API keys and tokens of 75 known kinds, bearer and basic
// credentials, JWTs, PEM and PGP private keys, password=… assignments,
// passwords in URLs and command lines, and the values of the process's
// secret-looking environment variables.
//
// The rules are this package's own, not a secret scanner run as a
// library (gitleaks, trufflehog bring hundreds of rules with entropy
// heuristics and a large dependency tree, and report findings); myco
// needs a documented list (docs/FORMAT.md) applied to JSON as it is
// written, fast enough for a 50 MB document, and with few false positives
// on ordinary text, hashes and UUIDs. The kinds with a service's prefix
// are gitleaks' prefixed rules taken as data (prefixed.go says which).
//
// Matching is anchored: each rule names the literals its secrets start
// with, found in one pass, and its regular expression runs only at those
// places. A regular expression run over a whole 50 MB document would take
// seconds.
package redact

import (
	"bytes"
	"slices"
	"strings"
)

// Marker is what a secret becomes: "[REDACTED:" + kind + "]".
const markerPrefix = "[REDACTED:"

// Marker returns the text that replaces a secret of kind.
func Marker(kind string) string { return markerPrefix + kind + "]" }

// rule is one kind of secret.
type rule struct {
	kind string
	// anchors are literals a match starts with; fold means they (and the
	// expression) ignore ASCII case.
	anchors []string
	fold    bool
	// re matches at an anchor (it starts with \A); group is the submatch
	// replaced, 0 for the whole match.
	re    *lazyRE
	group int
	// pre, when set, rules out most non-matches cheaply before re runs
	// (rest starts with the anchor, whose length is n).
	pre func(rest []byte, n int) bool
	// word means the anchor must not follow a letter, digit, '_' or '-'
	// (so "task-…" is not an "sk-…" key); notBase64 that it must not
	// follow '+' or '/' either (it would be inside base64).
	word, notBase64 bool
	// rank is the rule's place in rules: the specific ones come first.
	rank int
	// window is how far past the anchor a match may reach.
	window int
	// textRe, when set, is re for plain text (re is for JSON text).
	textRe *lazyRE
	// keep, when set, is asked about a match and the text it would
	// replace; true keeps it (a look-alike: a word, a type name, a
	// placeholder).
	keep func(match, value []byte) bool
}

// tokenChars is what a token is made of. It never includes '"' or '\',
// so in JSON a match stays inside one string and never eats an escape.
const tokenChars = `[A-Za-z0-9_\-]`

// rules are every kind, the specific ones first (of two spans alike, the
// earlier rule names it).
var rules = slices.Concat(specificRules, prefixedRules, generalRules)

var specificRules = []rule{
	{
		kind: "private-key", anchors: []string{"-----BEGIN "}, window: 32 << 10,
		// (?:[^"\\]|\\.) is one character of a JSON string, escapes
		// included: a PEM block spans lines, written as \n in JSON.
		// A block cut short (head -c, a truncated output) is a secret
		// still: without its END line, the base64 lines after BEGIN go.
		re:     lazyRegexp(`\A-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:(?:[^"\\]|\\.)*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=:,. \-]|\\[nrt])*)`),
		textRe: lazyRegexp(`\A-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:(?s:.)*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=:,. \-\r\n\t]*)`),
	},
	{
		kind: "anthropic-key", anchors: []string{"sk-ant-"}, word: true, window: 512,
		re: lazyRegexp(`\Ask-ant-` + tokenChars + `{20,}`),
	},
	{
		kind: "openai-key", anchors: []string{"sk-"}, word: true, window: 512,
		re:   lazyRegexp(`\Ask-(?:proj-|svcacct-|admin-)?` + tokenChars + `{20,}`),
		keep: func(_, v []byte) bool { return bytes.HasPrefix(v, []byte("sk-ant-")) || !looksRandom(v) },
	},
	{
		kind: "github-token", anchors: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, word: true, window: 512,
		re: lazyRegexp(`\A(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`),
	},
	{
		kind: "aws-access-key", anchors: []string{"AKIA", "ASIA", "ABIA", "ACCA", "A3T"}, word: true, window: 64,
		// The trailing character is matched only to check that the key
		// ends there; it stays.
		re: lazyRegexp(`\A((?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})(?:[^A-Za-z0-9]|\z)`), group: 1,
	},
	{
		kind: "slack-token", anchors: []string{"xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xoxe.", "xapp-"}, word: true, window: 512,
		re: lazyRegexp(`\Ax(?:ox[bpaosre]|app)[-.][A-Za-z0-9.\-]{10,}`),
	},
	{
		kind: "slack-webhook", anchors: []string{"https://hooks.slack.com/services/"}, window: 512,
		re: lazyRegexp(`\Ahttps://hooks\.slack\.com/services/[A-Za-z0-9/_\-]{10,}`),
	},
	{
		kind: "stripe-key", anchors: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "sk_prod_", "rk_prod_", "whsec_"}, word: true, window: 512,
		re: lazyRegexp(`\A(?:[sr]k_(?:live|test|prod)_|whsec_)[A-Za-z0-9]{16,}`),
	},
}

// generalRules are the kinds found by their shape or their name rather
// than a service's prefix.
var generalRules = []rule{
	{
		kind: "jwt", anchors: []string{"eyJ"}, word: true, window: 8 << 10,
		re: lazyRegexp(`\AeyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`),
	},
	{
		kind: "bearer-token", anchors: []string{"bearer "}, fold: true, word: true, window: 2 << 10,
		re:    lazyRegexp(`\A(?i:bearer) +([A-Za-z0-9._~+/\-]{16,}=*)`),
		group: 1, keep: func(_, v []byte) bool { return !looksRandom(v) },
	},
	{
		kind: "url-password", anchors: []string{"://"}, window: 256, pre: userinfoAhead,
		// The user may be empty: redis://:password@host.
		re:    lazyRegexp(`\A://[^\s:/@"\\]*:([^\s:/@"\\]+)@`),
		group: 1, keep: func(_, v []byte) bool { return placeholder(v) },
	},
	{
		kind: "secret", fold: true, window: 256, pre: separatorNext,
		anchors: []string{"password", "passwd", "pwd", "secret", "token", "api_key", "api-key", "apikey", "access_key", "auth"},
		// The name ends at the separator: "max_tokens=4096" and
		// "password_hash: …" are not assignments of a secret. A quote
		// before the separator must be escaped: a bare `"x": ` in JSON is
		// the document's own structure.
		re:     lazyRegexp(assignment(`(?:\\["']|')?`)),
		textRe: lazyRegexp(assignment(`["']?`)),
		group:  1, keep: keepAssignment,
	},
}

// userinfoAhead reports whether an '@' comes after "://" before the host
// ends: only then can a URL hold a password.
func userinfoAhead(rest []byte, n int) bool {
	for _, c := range rest[n:min(len(rest), 256)] {
		switch c {
		case '@':
			return true
		case '/', ' ', '"', '\\', '\n', '\t':
			return false
		}
	}
	return false
}

// separatorNext reports whether the name an assignment anchor found is
// followed by '=' or ':' ("token=", "token: ", "\"token\": "; not "tokens"
// nor "token handling"), "auth" counting only as "auth_token".
func separatorNext(rest []byte, n int) bool {
	if equalFoldASCII(rest[:n], "auth") {
		switch {
		case len(rest) >= n+6 && equalFoldASCII(rest[n:n+6], "_token"):
			n += 6
		case len(rest) >= n+5 && equalFoldASCII(rest[n:n+5], "token"):
			n += 5
		default:
			return false
		}
	}
	for i := n; i < min(len(rest), n+4); i++ {
		switch rest[i] {
		case '=', ':':
			return true
		case ' ', '\t', '\'', '"', '\\':
		default:
			return false
		}
	}
	return false
}

// assignment is the expression of name=value and name: value, quote being
// what may surround the name and the value.
func assignment(quote string) string {
	return `\A(?i:password|passwd|pwd|secret|token|api[_\-]?key|access_key|auth_?token)` +
		quote + `[ \t]*(?:=|:)[ \t]*` + quote + "([^\\s\"'\\\\,;\\[\\]{}()<>`]{4,})(\\()?"
}

// keepAssignment keeps a value that is a placeholder or a function called
// (the expression matches the "(" after the value), and a lone short
// word after a spaced separator ("Token: each word is…" is prose, not a
// secret; "password=hunter" and "password: hunter2" are).
func keepAssignment(match, value []byte) bool {
	if placeholder(value) {
		return true
	}
	if match[len(match)-1] == '(' {
		return true // a call: token = strings.TrimSpace(token)
	}
	spaced := bytes.ContainsAny(bytes.TrimSuffix(match, value), " \t")
	return spaced && len(value) < 12 && isLowerWord(value)
}

func isLowerWord(v []byte) bool {
	for _, c := range v {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// looksRandom reports whether v mixes letters and digits, as generated
// keys do and words ("sk-learn-compatible-estimators") do not.
func looksRandom(v []byte) bool {
	var letter, digit bool
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		}
	}
	return letter && digit
}

// placeholders are values of an assignment that are not secrets: type
// names, references to somewhere else, masks.
var placeholders = []string{
	"string", "str", "int", "number", "bool", "boolean", "none", "null", "nil", "true", "false",
	"undefined", "required", "optional", "secret", "password", "token", "redacted", "example",
	"changeme", "xxxx", "****",
}

func placeholder(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	switch v[0] {
	case '$', '%', '*', '<', '{', '[', '@', '&', '.', '/', '#':
		return true
	}
	lower := strings.ToLower(string(v))
	for _, p := range placeholders {
		if lower == p || strings.HasPrefix(lower, p) && len(lower) <= len(p)+1 {
			return true
		}
	}
	return strings.HasPrefix(lower, "os.") || strings.HasPrefix(lower, "process.") ||
		strings.HasPrefix(lower, "env.") || strings.Trim(lower, "x*•.") == ""
}

// Redactor replaces secrets. A nil *Redactor replaces nothing.
type Redactor struct {
	// env are the values of secret-looking environment variables, each
	// as written in plain text and inside a JSON string (they differ
	// when the value has a quote, a backslash or a control character).
	env []envValue
}

type envValue struct {
	name        string
	plain, json []byte
}

// New returns a Redactor for the known formats and the secret-looking
// variables of environ (as os.Environ gives it).
func New(environ []string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !validName(name) || !SecretName(name) || !secretValue(value) || seen[value] {
			continue
		}
		seen[value] = true
		r.env = append(r.env, envValue{name: name, plain: []byte(value), json: jsonEscape(value)})
	}
	// Longest first: a value that contains another is replaced whole.
	slices.SortFunc(r.env, func(a, b envValue) int { return len(b.plain) - len(a.plain) })
	return r
}

// validName reports whether name can go in a marker as it is.
func validName(name string) bool {
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return name != ""
}

// secretNameParts are the words of a variable name that make its value a
// secret (ANTHROPIC_API_KEY, GITHUB_TOKEN, DB_PASSWORD, AWS_SECRET_ACCESS_KEY).
var secretNameParts = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "PAT", "CREDENTIAL", "CREDENTIALS", "APIKEY", "AUTH"}

// notSecretNameParts end names that hold a place, not a secret
// (SSH_AUTH_SOCK, GOOGLE_APPLICATION_CREDENTIALS_FILE, KEY_PATH).
var notSecretNameParts = []string{"SOCK", "FILE", "PATH", "DIR", "HOME", "ID", "URL", "HOST", "PORT", "USER", "NAME", "TYPE", "MODE", "SIZE", "COUNT", "MAX", "MIN"}

// SecretName reports whether an environment variable's name says its
// value is a secret: one of its underscore-separated words is KEY, TOKEN,
// SECRET, PASSWORD… and its last word is not one that names a place.
func SecretName(name string) bool {
	words := strings.Split(strings.ToUpper(name), "_")
	if slices.Contains(notSecretNameParts, words[len(words)-1]) {
		return false
	}
	for _, w := range words {
		if slices.Contains(secretNameParts, w) {
			return true
		}
	}
	return false
}

// secretValue reports whether a variable's value could be a secret worth
// looking for: long enough not to match ordinary text, not a path.
func secretValue(v string) bool {
	if len(v) < 8 || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") {
		return false
	}
	switch strings.ToLower(v) {
	case "true", "false", "enabled", "disabled":
		return false
	}
	return true
}

// jsonEscape is v as written inside a JSON string, without the quotes.
func jsonEscape(v string) []byte {
	var b bytes.Buffer
	for _, c := range []byte(v) {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.Bytes()
}

// JSON returns data, a JSON text, with every secret inside its strings
// replaced by a marker; data itself is returned when nothing matched.
// Markers hold no quote or backslash, so the result is valid JSON.
func (r *Redactor) JSON(data []byte) []byte { return r.redact(data, true) }

// Text is JSON for plain text (an export, say).
func (r *Redactor) Text(s string) string {
	out := r.redact([]byte(s), false)
	return string(out)
}

// span is a stretch of the input to replace.
type span struct {
	start, end int
	kind       string
	rank       int // of two spans alike, the lower rank's kind names it
}

func (r *Redactor) redact(data []byte, inJSON bool) []byte {
	if r == nil || len(data) == 0 {
		return data
	}
	var spans []span
	for i := 0; i+2 < len(data); i++ {
		p := anchorPairs[uint16(data[i])<<8|uint16(data[i+1])]
		if p == 0 {
			continue
		}
		if c := data[i+2]; anchorThirds[p-1][c>>6]&(1<<(c&63)) == 0 {
			continue
		}
		for _, a := range anchorStarts[trigram(data[i:])] {
			if sp, ok := a.matchAt(data, i, inJSON); ok {
				spans = append(spans, sp)
			}
		}
	}
	for _, e := range r.env {
		needle := e.plain
		if inJSON {
			needle = e.json
		}
		for at := 0; ; {
			i := bytes.Index(data[at:], needle)
			if i < 0 {
				break
			}
			start := at + i
			spans = append(spans, span{start, start + len(needle), "env:" + e.name, len(rules)})
			at = start + len(needle)
		}
	}
	if len(spans) == 0 {
		return data
	}
	return replace(data, spans)
}

// anchor is one literal of one rule.
type anchor struct {
	text string // as the rule writes it
	rule *rule
}

// The anchors are found in one pass over the data, not one bytes.Index
// pass each (37 passes, stopping at every "s" and "t" of prose, ran at
// 50 MB/s): a table of the byte pairs anchors start with rules out most
// positions, a set of the third bytes that may follow each pair most of
// the rest, then the trigram names the anchors to try. The tables hold
// bytes as they are (an anchor that ignores case is entered in each of
// its cases), so the loop never folds case, and "ac" in prose is not
// tried as Twilio's "AC".
var (
	anchorPairs  [1 << 16]uint16 // index+1 into anchorThirds; 0: no anchor starts so
	anchorThirds [][4]uint64     // bit c: an anchor's third byte may be c
	anchorStarts = map[uint32][]anchor{}
	// anchorHeads are the first one and two bytes of every anchor, in
	// each of its cases, and whether one of them may start in the middle
	// of a word (its rule is not word-bound) (Releasable).
	anchorHeads = map[string]headKind{}
)

func init() {
	for i := range rules {
		rules[i].rank = i
		for _, text := range rules[i].anchors {
			if len(text) < 3 {
				panic("redact: an anchor needs three bytes: " + text)
			}
			for _, head := range cases(text[:3], rules[i].fold) {
				addAnchor(head, anchor{text: text, rule: &rules[i]})
				k := headAlone
				if !rules[i].word {
					k = headAnywhere
				}
				anchorHeads[head[:1]] = max(anchorHeads[head[:1]], k)
				anchorHeads[head[:2]] = max(anchorHeads[head[:2]], k)
			}
		}
	}
}

// addAnchor enters a under its first three bytes, head.
// headKind says where an anchor's head may start a secret.
type headKind uint8

const (
	headNone     headKind = iota
	headAlone             // only where a word starts
	headAnywhere          // in the middle of a word too ("DB_PASSWORD")
)

func addAnchor(head string, a anchor) {
	pair := uint16(head[0])<<8 | uint16(head[1])
	if anchorPairs[pair] == 0 {
		anchorThirds = append(anchorThirds, [4]uint64{})
		anchorPairs[pair] = uint16(len(anchorThirds))
	}
	c := head[2]
	anchorThirds[anchorPairs[pair]-1][c>>6] |= 1 << (c & 63)
	k := trigram([]byte(head))
	anchorStarts[k] = append(anchorStarts[k], a)
}

// cases is s in every mix of ASCII upper and lower case when fold, else
// s alone.
func cases(s string, fold bool) []string {
	out := []string{""}
	for _, c := range []byte(s) {
		var next []string
		for _, p := range out {
			lower, upper := lowerByte(c), upperByte(c)
			next = append(next, p+string(rune(c)))
			if fold && lower != upper {
				other := lower
				if c == lower {
					other = upper
				}
				next = append(next, p+string(rune(other)))
			}
		}
		out = next
	}
	return out
}

func trigram(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upperByte(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// matchAt reports the secret of a's rule starting at data[start:], where
// the trigram of a was seen.
func (a anchor) matchAt(data []byte, start int, inJSON bool) (span, bool) {
	ru := a.rule
	rest := data[start:]
	if len(rest) < len(a.text) {
		return span{}, false
	}
	if ru.fold {
		if !equalFoldASCII(rest[:len(a.text)], a.text) {
			return span{}, false
		}
	} else if string(rest[:len(a.text)]) != a.text {
		return span{}, false
	}
	if ru.word && wordBefore(data, start, inJSON) {
		return span{}, false
	}
	if ru.notBase64 && start > 0 && (data[start-1] == '+' || data[start-1] == '/') {
		return span{}, false
	}
	if ru.pre != nil && !ru.pre(rest, len(a.text)) {
		return span{}, false
	}
	window := rest[:min(len(rest), ru.window)]
	re := ru.re
	if !inJSON && ru.textRe != nil {
		re = ru.textRe
	}
	m := re.FindSubmatchIndex(window)
	if m == nil {
		return span{}, false
	}
	s, e := m[0], m[1]
	if ru.group > 0 {
		s, e = m[2*ru.group], m[2*ru.group+1]
	}
	value := window[s:e]
	if bytes.HasPrefix(value, []byte(markerPrefix)) || ru.keep != nil && ru.keep(window[m[0]:m[1]], value) {
		return span{}, false
	}
	return span{start + s, start + e, ru.kind, ru.rank}, true
}

func equalFoldASCII(b []byte, s string) bool {
	for i := range len(s) {
		if lowerByte(b[i]) != lowerByte(s[i]) {
			return false
		}
	}
	return true
}

// wordBefore reports whether the byte before data[start] continues a
// word, so that a token starting there is only the tail of that word. In
// JSON the last letter of an escape is no word: "\n", "\t", "\r" and
// "\u000b" are the separators of the text they encode.
func wordBefore(data []byte, start int, inJSON bool) bool {
	if start == 0 || !wordByte(data[start-1]) {
		return false
	}
	return !inJSON || !escapeEndsAt(data, start)
}

// escapeEndsAt reports whether a JSON escape (\b \f \n \r \t or \uXXXX)
// ends just before data[end].
func escapeEndsAt(data []byte, end int) bool {
	switch data[end-1] {
	case 'b', 'f', 'n', 'r', 't':
		if oddBackslashesBefore(data, end-1) {
			return true
		}
	}
	return end >= 6 && data[end-5] == 'u' && isHex(data[end-4:end]) && oddBackslashesBefore(data, end-5)
}

// oddBackslashesBefore reports whether data[i] follows an odd run of
// backslashes: it is escaped ("\\n" is a backslash and an n).
func oddBackslashesBefore(data []byte, i int) bool {
	n := 0
	for i--; i >= 0 && data[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// replace writes data with each span replaced by its marker; of spans
// that overlap, the one starting first (the longest of those) wins.
func replace(data []byte, spans []span) []byte {
	slices.SortFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		if a.end != b.end {
			return b.end - a.end
		}
		return a.rank - b.rank
	})
	out := make([]byte, 0, len(data))
	last := 0
	for _, sp := range spans {
		if sp.start < last {
			continue // inside one already replaced
		}
		out = append(out, data[last:sp.start]...)
		out = append(out, Marker(sp.kind)...)
		last = sp.end
	}
	return append(out, data[last:]...)
}

// Settled is how much of text, streaming in, can be redacted and written
// now without cutting a secret in two. A secret never holds whitespace, so
// the text up to its last whitespace can go, except where a secret may
// still be coming after that whitespace: a name like "password =" or
// "Bearer" just before it (its value comes next), a mysql command line
// (its -p comes later on the line), or a PEM private key block not yet
// ended. A certificate or a public key is no secret: its block is not
// held. How long a writer may hold text is its own bound (see
// session.Writer).
func Settled(text string) int {
	cut := strings.LastIndexAny(text, " \t\r\n") + 1
	if begin := heldBlock(text[:cut]); begin >= 0 {
		cut = begin
	}
	if i := heldName(text[:cut]); i >= 0 {
		// Hold the whole name: "api_" and "key = …" apart match nothing.
		cut = i
		for cut > 0 && wordByte(text[cut-1]) {
			cut--
		}
	}
	return cut
}

// heldBlock is where the last PEM block of s begins when it may hold a
// private key and has not ended; -1 when there is none.
func heldBlock(s string) int {
	begin := strings.LastIndex(s, "-----BEGIN ")
	if begin < 0 {
		return -1
	}
	block := s[begin:]
	label, _, complete := strings.Cut(block[len("-----BEGIN "):], "-----")
	if complete && !strings.Contains(label, "PRIVATE KEY") || pemEnded(block) {
		return -1
	}
	return begin
}

// pemEnded reports whether block, from its BEGIN line, holds its END line.
func pemEnded(block string) bool {
	end := strings.Index(block, "-----END ")
	return end >= 0 && strings.Contains(block[end+len("-----END "):], "-----")
}

// spanningNames start the secrets whose value follows whitespace, and how
// far past the name's start the value may be.
var spanningNames = []struct {
	name  string
	reach int
	exact bool // in this case only, as the command is typed ("MySQL" in prose is no command)
}{
	{"password", 32, false}, {"passwd", 32, false}, {"pwd", 32, false}, {"secret", 32, false},
	{"token", 32, false}, {"key", 32, false}, {"auth", 32, false}, {"bearer", 32, false},
	{"basic", 32, false}, {"-u", 32, true}, {"mysql", 256, true},
}

// maxReach is the largest reach of spanningNames.
const maxReach = 256

// heldName is the first place in s where one of spanningNames starts, in
// any case, on s's last line and within its reach of s's end; -1 when
// none does.
func heldName(s string) int {
	lo := max(0, len(s)-maxReach)
	if nl := strings.LastIndexByte(s[lo:], '\n'); nl >= 0 {
		lo += nl + 1
	}
	for i := lo; i < len(s); i++ {
		for _, n := range spanningNames {
			if i < len(s)-n.reach || len(s)-i < len(n.name) {
				continue
			}
			if n.exact && s[i:i+len(n.name)] == n.name || !n.exact && equalFoldASCII([]byte(s[i:i+len(n.name)]), n.name) {
				return i
			}
		}
	}
	return -1
}

// HeldMarker is what a streaming writer writes in place of text it held
// for as long as it may (Settled said a secret may still be coming) when
// the bound runs out: the held text might be part of a secret, so it is
// not written, nor is the rest of it (NewHold).
var HeldMarker = Marker("held")

// Releasable is how much of held, text a streaming writer has held as
// long as it may, can be written as it is: up to the first place a
// secret could start in it. That is where an anchor of a kind starts, or
// the start of one ends held ("sk-an"), or an environment variable's
// value could begin and go on past the cut. Before it no secret can
// begin, and none can go on past it (every kind starts at an anchor): so
// pytest's dots, or a long base64 line, are written, not held nor
// marked.
func (r *Redactor) Releasable(held string) int {
	safe := len(held)
	for i := range len(held) {
		if mayStartSecret(held, i) {
			safe = i
			break
		}
	}
	if r == nil {
		return safe
	}
	for changed := true; changed; {
		changed = false
		for _, e := range r.env {
			if p := valueAcross(held[:safe], string(e.plain)); p < safe {
				safe, changed = p, true
			}
		}
	}
	return safe
}

// valueAcross is the first place in s from which the rest of s is a
// proper start of value (a value cut there would go on past s); len(s)
// when there is none.
func valueAcross(s, value string) int {
	for p := max(0, len(s)-len(value)+1); p < len(s); p++ {
		if strings.HasPrefix(value, s[p:]) {
			return p
		}
	}
	return len(s)
}

// mayStartSecret reports whether an anchor starts held[i:], or held[i:]
// is the start of one; not an anchor of a kind that stands alone in the
// middle of a word ("spatial" holds no Airtable "pat…").
func mayStartSecret(held string, i int) bool {
	s := held[i:]
	inWord := i > 0 && wordByte(held[i-1])
	if len(s) < 3 {
		h := anchorHeads[s]
		return h == headAnywhere || h == headAlone && !inWord
	}
	p := anchorPairs[uint16(s[0])<<8|uint16(s[1])]
	if p == 0 {
		return false
	}
	if c := s[2]; anchorThirds[p-1][c>>6]&(1<<(c&63)) == 0 {
		return false
	}
	for _, a := range anchorStarts[trigram([]byte(s))] {
		if inWord && a.rule.word {
			continue
		}
		n := min(len(s), len(a.text))
		if a.rule.fold && strings.EqualFold(s[:n], a.text[:n]) || s[:n] == a.text[:n] {
			return true
		}
	}
	return false
}

// A Hold swallows the rest of a span a streaming writer wrote as
// HeldMarker: the text that follows still belongs to the span until the
// span ends (the rest of the word; a value after its name; a mysql
// command's line; a private key's END line).
type Hold struct {
	until holdEnd
	tail  string // toBlockEnd: the last bytes seen, for an END line split across texts
}

type holdEnd int

const (
	toWordEnd  holdEnd = iota // the next whitespace
	toValueEnd                // separators, then a word
	toLineEnd                 // the next newline
	toBlockEnd                // a PEM block's END line
)

// NewHold is the Hold for held, the text a writer gave up holding (from
// where Settled cut to the end of what it had).
func NewHold(held string) *Hold {
	switch {
	case heldBlock(held) >= 0:
		return &Hold{until: toBlockEnd}
	case strings.Contains(held, "mysql"):
		return &Hold{until: toLineEnd}
	case valueNext(held):
		return &Hold{until: toValueEnd}
	}
	return &Hold{until: toWordEnd}
}

// valueNext reports whether held ends where a name's value has not begun:
// after a separator, or with a name ("password", "Bearer").
func valueNext(held string) bool {
	trimmed := strings.TrimRight(held, " \t=:\"'`")
	if trimmed != held {
		return true
	}
	for _, n := range spanningNames {
		if len(trimmed) >= len(n.name) && equalFoldASCII([]byte(trimmed[len(trimmed)-len(n.name):]), n.name) {
			return true
		}
	}
	return false
}

// Swallow is how many bytes of s, the text that came after what the Hold
// has seen, still belong to the span; done reports that the span ends
// there, so s[n:] is text like any other.
func (h *Hold) Swallow(s string) (n int, done bool) {
	switch h.until {
	case toValueEnd:
		n = len(s) - len(strings.TrimLeft(s, " \t=:\"'`"))
		if n == len(s) {
			return n, false
		}
		h.until = toWordEnd
		m, done := h.Swallow(s[n:])
		return n + m, done
	case toWordEnd:
		if i := strings.IndexAny(s, " \t\r\n"); i >= 0 {
			return i, true
		}
	case toLineEnd:
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			return i, true
		}
	case toBlockEnd:
		return h.swallowBlock(s)
	}
	return len(s), false
}

// swallowBlock is Swallow up to the END line of a PEM block.
func (h *Hold) swallowBlock(s string) (int, bool) {
	joined := h.tail + s
	if end := strings.Index(joined, "-----END "); end >= 0 {
		after := end + len("-----END ")
		if i := strings.Index(joined[after:], "-----"); i >= 0 {
			return max(0, after+i+len("-----")-len(h.tail)), true
		}
	}
	// Enough to find an END line that starts in one text and ends in a
	// later one ("-----END OPENSSH PRIVATE KEY-----" is 33 bytes).
	const keep = 64
	h.tail = joined[max(0, len(joined)-keep):]
	return len(s), false
}
