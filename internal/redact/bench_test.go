package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// document is size bytes of JSON shaped like a session: messages of
// prose, code and command output, with a secret now and then.
func document(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"threads":[{"messages":[`)
	texts := []string{
		"Here is the plan: read the config, check the token handling, then run the tests. The password field is validated in auth.go.",
		"func (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tkey := r.Header.Get(\"Authorization\")\n\tif key == \"\" {\n\t\thttp.Error(w, \"no key\", 401)\n\t}\n}",
		"$ go test ./...\nok  \tmyco/session\t1.204s\nok  \tmyco/server\t3.871s\n--- FAIL: TestToken (0.00s)\n    token_test.go:12: max_tokens=4096 want 8192",
		"commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: someone <me@example.com>\n\n    Fix https://github.com/owner/repo/issues/12",
		"export OPENAI_API_KEY=sk-proj-4fG7hJ9kL2mN5pQ8rT1vW3xZ6bC9dF2gH5jK8mN1pQ4rT7vW",
	}
	for i := 0; b.Len() < size; i++ {
		text, _ := json.Marshal(texts[i%len(texts)])
		if i%50 != 4 && i%len(texts) == 4 {
			text, _ = json.Marshal(texts[0])
		}
		fmt.Fprintf(&b, `{"id":"m%d","role":"assistant","content":[{"type":"text","text":%s}],"usage":{"input_tokens":%d}},`, i, text, i)
	}
	b.WriteString(`{}]}]}`)
	return b.Bytes()
}

func BenchmarkJSON(b *testing.B) {
	r := New(os.Environ())
	for _, size := range []int{64 << 10, 1 << 20, 50 << 20} {
		doc := document(size)
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				r.JSON(doc)
			}
		})
	}
}

// BenchmarkJSONBase64 redacts a session that holds what is dense with
// letter pairs: a pasted image as a data: URI and a lockfile's integrity
// hashes, where many of the anchors' first pairs ("MT", "SK", "AC") occur.
func BenchmarkJSONBase64(b *testing.B) {
	r := New(os.Environ())
	rng := rand.New(rand.NewPCG(18, 18))
	raw := make([]byte, 768<<10)
	for i := range raw {
		raw[i] = byte(rng.Uint32())
	}
	var lock bytes.Buffer
	for i := 0; lock.Len() < 256<<10; i++ {
		sum := make([]byte, 64)
		for j := range sum {
			sum[j] = byte(rng.Uint32())
		}
		fmt.Fprintf(&lock, "    \"node_modules/pkg-%d\": {\"integrity\": \"sha512-%s\"},\n", i, base64.StdEncoding.EncodeToString(sum))
	}
	image, _ := json.Marshal("data:image/png;base64," + base64.StdEncoding.EncodeToString(raw))
	lockText, _ := json.Marshal(lock.String())
	doc := []byte(`{"messages":[{"text":` + string(image) + `},{"text":` + string(lockText) + `}]}`)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		r.JSON(doc)
	}
}
