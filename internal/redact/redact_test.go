package redact

import (
	"bufio"
	"encoding/json"
	"os"
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
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	return lines
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
	for _, line := range corpus(t, "secrets.txt") {
		for mode, got := range map[string]string{"text": r.Text(line), "json": inJSON(t, r, line)} {
			if !strings.Contains(got, markerPrefix) {
				t.Errorf("%s: %q: no secret found", mode, line)
				continue
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
	for _, line := range corpus(t, "lookalikes.txt") {
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
		text string
		want int
	}{
		{"", 0},
		{"no newline yet sk-ant-api03", 0},
		{"one line\nand a part", len("one line\n")},
		{"a\nb\n", 4},
		{"key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n", len("key:\n")},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n", 0},
		{"x\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nok", len("x\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n")},
	}
	for _, tt := range tests {
		if got := Settled(tt.text); got != tt.want {
			t.Errorf("Settled(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}
