package redact

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

func corpus(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// sample is one line of a corpus: a kind (when the line names one, before
// a tab) and the text, unquoted when it is a quoted Go string (a text of
// several lines).
type sample struct{ kind, text string }

func samples(t *testing.T, name string) []sample {
	t.Helper()
	var out []sample
	for _, line := range corpus(t, name) {
		var s sample
		if kind, text, ok := strings.Cut(line, "\t"); ok && !strings.ContainsAny(kind, " =:") && kind != "" {
			s.kind, line = kind, text
		}
		s.text = line
		if u, err := strconv.Unquote(line); err == nil {
			s.text = u
		}
		out = append(out, s)
	}
	return out
}

// secretPart is the part of a sample that must be gone once it is
// redacted: its longest field that mixes letters and digits.
func secretPart(text string) string {
	var best, longest string
	for _, f := range strings.FieldsFunc(text, func(c rune) bool { return strings.ContainsRune(" \n\t\"'=:@,;{}()", c) }) {
		if len(f) > len(best) && looksRandom([]byte(f)) {
			best = f
		}
		if len(f) > len(longest) {
			longest = f
		}
	}
	if best == "" {
		return longest // Hugging Face's tokens are letters only
	}
	return best
}

// inJSON redacts line as it appears inside a JSON document and returns
// the string decoded back, checking the result is still valid JSON.
func inJSON(t *testing.T, r *Redactor, line string) string {
	t.Helper()
	data, err := json.Marshal(map[string]string{"text": line})
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]string
	if err := json.Unmarshal(r.JSON(data), &back); err != nil {
		t.Fatalf("redacted JSON of %q is not valid: %v", line, err)
	}
	return back["text"]
}

func TestSecretsReplaced(t *testing.T) {
	r := New(nil)
	for _, s := range samples(t, "secrets.txt") {
		line := s.text
		for mode, got := range map[string]string{"text": r.Text(line), "json": inJSON(t, r, line)} {
			if !strings.Contains(got, markerPrefix) {
				t.Errorf("%s: %q: no secret found", mode, line)
				continue
			}
			if s.kind != "" && !strings.Contains(got, Marker(s.kind)) {
				t.Errorf("%s: %q became %q, want a %s marker", mode, line, got, Marker(s.kind))
			}
			// What the marker replaced must be gone: no long token of the
			// line survives outside a marker.
			for _, tok := range strings.FieldsFunc(line, func(c rune) bool { return strings.ContainsRune(" \"'=:@,{}", c) }) {
				if len(tok) >= 12 && looksRandom([]byte(tok)) && strings.Contains(got, tok) && !strings.Contains(tok, "://") && !strings.Contains(tok, ".") {
					t.Errorf("%s: %q: %q kept in %q", mode, line, tok, got)
				}
			}
		}
	}
}

func TestLookalikesKept(t *testing.T) {
	r := New(nil)
	for _, s := range samples(t, "lookalikes.txt") {
		line := s.text
		if got := r.Text(line); got != line {
			t.Errorf("text: %q became %q", line, got)
		}
		if got := inJSON(t, r, line); got != line {
			t.Errorf("json: %q became %q", line, got)
		}
	}
}

func TestExact(t *testing.T) {
	r := New(nil)
	tests := []struct{ in, want string }{
		{"password=hunter2 and more", "password=[REDACTED:secret] and more"},
		{"Authorization: Bearer abcDEF123456ghiJKL789mno", "Authorization: Bearer [REDACTED:bearer-token]"},
		{"id AKIAIOSFODNN7EXAMPLF.", "id [REDACTED:aws-access-key]."},
		{"postgres://admin:Sup3rS3cret@db", "postgres://admin:[REDACTED:url-password]@db"},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAKC\n-----END RSA PRIVATE KEY-----\nafter", "[REDACTED:private-key]\nafter"},
		{"already [REDACTED:secret] here, password=[REDACTED:secret]", "already [REDACTED:secret] here, password=[REDACTED:secret]"},
	}
	for _, tt := range tests {
		if got := r.Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPrivateKeyInJSON(t *testing.T) {
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAAAAAAAEAAAAzAAAAC3NzaC1lZDI1NTE5AAAAI\n-----END OPENSSH PRIVATE KEY-----"
	if got := inJSON(t, New(nil), "cat id_ed25519\n"+key+"\n"); got != "cat id_ed25519\n[REDACTED:private-key]\n" {
		t.Errorf("got %q", got)
	}
}

func TestEnvironment(t *testing.T) {
	r := New([]string{
		"MY_SERVICE_TOKEN=plain-words-but-secret",
		`ODD_SECRET=has"quote\and-backslash`,
		"SSH_AUTH_SOCK=/tmp/ssh-abc/agent.1",
		"KEY_COUNT=12345678",
		"HOME=/home/me",
		"SHORT_KEY=abc",
	})
	tests := []struct{ in, want string }{
		{"the token is plain-words-but-secret!", "the token is [REDACTED:env:MY_SERVICE_TOKEN]!"},
		{`x has"quote\and-backslash y`, "x [REDACTED:env:ODD_SECRET] y"},
		{"sock /tmp/ssh-abc/agent.1 count 12345678 abc", "sock /tmp/ssh-abc/agent.1 count 12345678 abc"},
	}
	for _, tt := range tests {
		if got := r.Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := inJSON(t, r, tt.in); got != tt.want {
			t.Errorf("JSON(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"ANTHROPIC_API_KEY": true, "GITHUB_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true, "DB_PASSWORD": true,
		"NPM_AUTH_TOKEN": true, "SSH_AUTH_SOCK": false, "GOOGLE_APPLICATION_CREDENTIALS_FILE": false,
		"KEYBOARD": false, "TOKENIZERS_PARALLELISM": false, "PATH": false, "AWS_ACCESS_KEY_ID": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestNilRedactor(t *testing.T) {
	var r *Redactor
	if got := r.Text("password=hunter2"); got != "password=hunter2" {
		t.Errorf("nil redactor changed text: %q", got)
	}
}

func TestSettled(t *testing.T) {
	tests := []struct {
		text, want string // want: the part that may be written now
	}{
		{"", ""},
		{"no space yet sk-ant-api03", "no space yet "},
		{"one line\nand a part", "one line\nand a "},
		{"a b\n", "a b\n"},
		{"the value is password = ", "the value is "},
		{"so the Bearer ", "so the "},
		{"curl -H 'Authorization: Bearer abc' -X POST https://example.com/v1 now", "curl -H 'Authorization: Bearer abc' -X POST https://example.com/v1 "},
		{"key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n", "key:\n"},
		{"x\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA ", "x\n"},
		{"x\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nok then", "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nok "},
		// A certificate or a public key is no secret: not held.
		{"x\n-----BEGIN CERTIFICATE-----\nMIIDdz\nCCAl+g", "x\n-----BEGIN CERTIFICATE-----\nMIIDdz\n"},
		{"x\n-----BEGIN PUBLIC KEY-----\nMIIBIj\nANBgkq", "x\n-----BEGIN PUBLIC KEY-----\nMIIBIj\n"},
		// A BEGIN line not yet whole may still say PRIVATE KEY.
		{"x\n-----BEGIN OPENSSH PRIV", "x\n"},
		{"x\n-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQVYBGV\n-----END PGP PRIVATE KEY ", "x\n"},
		{"x\n-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQVY\n-----END PGP PRIVATE KEY BLOCK-----\nok", "x\n-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQVY\n-----END PGP PRIVATE KEY BLOCK-----\n"},
		// A mysql command's password comes later on its line.
		{"$ mysql -h db.internal -u root --database app -pS3", "$ "},
		{"$ mysql -h db\nnext line", "$ mysql -h db\nnext "},
		{"MySQL is a database and this line goes on", "MySQL is a database and this line goes "},
		{"curl -u admin:s3", "curl "},
		{"Authorization: Basic ", ""},
	}
	for _, tt := range tests {
		if got := tt.text[:Settled(tt.text)]; got != tt.want {
			t.Errorf("Settled(%q) lets %q go, want %q", tt.text, got, tt.want)
		}
	}
}

// TestSettledNeverSplitsASecret streams each secret of the corpus in
// pieces, writing what Settled allows after each: the pieces written,
// redacted one by one, never hold a part of the secret.
func TestSettledNeverSplitsASecret(t *testing.T) {
	r := New(nil)
	for _, s := range samples(t, "secrets.txt") {
		line := s.text
		want := r.Text(line + "\n")
		for _, step := range []int{1, 3, 4, 7} {
			var written, held string
			for i := 0; i < len(line); i += step {
				held += line[i:min(len(line), i+step)]
				cut := Settled(held)
				written += r.Text(held[:cut])
				held = held[cut:]
			}
			written += r.Text(held + "\n")
			if written != want {
				t.Errorf("%q in steps of %d: written %q, want %q", line, step, written, want)
			}
		}
	}
}

// separators are what may come before a secret, as a person writes them
// and as JSON encodes them: json.Marshal writes a newline as \n, a tab as
// \t, CRLF as \r\n, and "<", U+2028 and control characters as \uXXXX, so
// the byte before the secret is a letter or a digit of the escape.
var separators = []struct{ name, sep string }{
	{"start of text", ""},
	{"space", " "},
	{"newline", "\n"},
	{"tab", "\t"},
	{"CRLF", "\r\n"},
	{`\u003c`, "<"},
	{`\u0001`, "\x01"},
	{`\u2028`, "\u2028"},
	{`\u000b`, "\v"},
	{"form feed", "\f"},
}

// TestEveryKindAfterEverySeparator puts each kind's sample after each
// separator, at the start of a text and in the middle of one, in plain
// text and inside JSON: the secret is replaced by its kind's marker.
func TestEveryKindAfterEverySeparator(t *testing.T) {
	r := New(nil)
	kinds := map[string]bool{}
	for _, s := range samples(t, "secrets.txt") {
		if s.kind == "" {
			continue
		}
		kinds[s.kind] = true
		secret := secretPart(s.text)
		if secret == "" {
			t.Fatalf("%s: no secret part in %q", s.kind, s.text)
		}
		for _, sep := range separators {
			text := sep.sep + s.text
			if sep.sep != "" {
				text = "before" + sep.sep + s.text + sep.sep + "after"
			}
			for mode, got := range map[string]string{"text": r.Text(text), "json": inJSON(t, r, text)} {
				if !strings.Contains(got, Marker(s.kind)) || strings.Contains(got, secret) {
					t.Errorf("%s after %s, %s: %q became %q", s.kind, sep.name, mode, text, got)
				}
			}
		}
	}
	if len(kinds) < 60 {
		t.Errorf("the corpus has %d kinds, want at least 60", len(kinds))
	}
}

func TestReleasable(t *testing.T) {
	r := New([]string{"MY_API_KEY=zq8vXw2-mellow-fig"})
	tests := []struct {
		held string
		want int // bytes that may be written as they are
	}{
		{strings.Repeat(".", 2000), 2000},
		{"..F..s..", 8},
		{"..F..s..E", 8},   // "E" may start "EAAC…"
		{"..F..s..xE", 10}, // not in the middle of a word
		{"hello", 5},
		{"DB_PASS", 3}, // "PASS" may start "PASSWORD" anywhere
		{"MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ", 64},
		{"....sk-ant-api03-Xq9v", 4},
		{"....sk-an", 4},      // the start of an anchor ends it
		{"....AKI", 4},        // the same, in its case
		{"....akI", 7},        // not AWS's: its anchors keep their case
		{"....PASSW", 4},      // a name's anchors ignore case
		{"xyz-----BEGIN ", 2}, // and "z" may start the environment value
		{"abc..zq8vXw2-m", 5}, // an environment variable's value may go on
		{"abc..zq8vXw2-mellow-fig..", 25},
		{"password=hunt", 0},
		{"spatial-aspatial.", 17}, // Airtable's "pat" stands alone
		{"..pattern", 2},
	}
	for _, tt := range tests {
		if got := r.Releasable(tt.held); got != tt.want {
			t.Errorf("Releasable(%q) = %d, want %d", tt.held, got, tt.want)
		}
	}
}

// TestHoldSwallows: once a held span is written as a marker, the rest of
// it is swallowed as it comes, piece by piece, and the text after it is
// given back.
func TestHoldSwallows(t *testing.T) {
	tests := []struct {
		name, held string
		pieces     []string
		want       string // what is given back
	}{
		{"a word", "sk-ant-api03-Xq9", []string{"vTz3LmN8", "pQ2rS5 and", " more"}, " and more"},
		{"a name's value", "password", []string{" ", "= ", "'hunter2' then"}, " then"},
		{"Bearer's token", "Authorization: Bearer", []string{" abcDEF1234", "56ghi done"}, " done"},
		{"a word ended at once", "abc", []string{"\nnext"}, "\nnext"},
		{"a mysql line", "mysql -h db -u root", []string{" -pS3cr", "et app\nnext"}, "\nnext"},
		{"a private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIE", []string{"ow\nAAAA\n-----EN", "D RSA PRIVATE K", "EY-----\nafter"}, "\nafter"},
		{"a BEGIN line not yet whole", "-----BEGIN OPENSSH PRI", []string{"VATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----", " after"}, " after"},
	}
	for _, tt := range tests {
		h := NewHold(tt.held)
		var back strings.Builder
		ended := false
		for _, p := range tt.pieces {
			if ended {
				back.WriteString(p)
				continue
			}
			n, done := h.Swallow(p)
			if done {
				ended = true
				back.WriteString(p[n:])
			} else if n != len(p) {
				t.Errorf("%s: Swallow(%q) = %d, false: a hold not done swallows all", tt.name, p, n)
			}
		}
		if back.String() != tt.want {
			t.Errorf("%s: given back %q, want %q", tt.name, back.String(), tt.want)
		}
	}
}
