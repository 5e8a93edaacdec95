package session_test

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"myco/session"
)

// benchFixtures holds the folders the search benchmarks write, by name, so
// that -count=6 writes each once; TestMain removes them. With
// MYCO_BENCH_FIXTURES=DIR they are written under DIR and kept, and a later
// run reuses them: what comparing with `grep -rl` over the same files, or
// before and after a change, needs.
var benchFixtures struct {
	sync.Mutex
	root string
	dirs map[string]fixtureDir
}

type fixtureDir struct {
	path  string
	bytes int64
}

// sharedFixture returns the session folder named name, written by write
// (which returns the bytes it wrote) the first time it is asked for.
func sharedFixture(b *testing.B, name string, write func(dir string) int64) (string, int64) {
	b.Helper()
	benchFixtures.Lock()
	defer benchFixtures.Unlock()
	if f, ok := benchFixtures.dirs[name]; ok {
		return f.path, f.bytes
	}
	if benchFixtures.dirs == nil {
		benchFixtures.dirs = map[string]fixtureDir{}
	}
	root := os.Getenv("MYCO_BENCH_FIXTURES")
	if root == "" && benchFixtures.root == "" {
		tmp, err := os.MkdirTemp("", "myco-search-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchFixtures.root = tmp
	}
	if root == "" {
		root = benchFixtures.root
	}
	dir := filepath.Join(root, name, "session")
	marker := filepath.Join(root, name, "bytes")
	f := fixtureDir{path: dir}
	if data, err := os.ReadFile(marker); err == nil {
		f.bytes, _ = strconv.ParseInt(string(data), 10, 64)
	} else {
		if err := os.MkdirAll(filepath.Join(dir, session.ArchivedDir), 0o700); err != nil {
			b.Fatal(err)
		}
		f.bytes = write(dir)
		if err := os.WriteFile(marker, []byte(strconv.FormatInt(f.bytes, 10)), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	benchFixtures.dirs[name] = f
	return f.path, f.bytes
}

// removeBenchFixtures removes what sharedFixture wrote.
func removeBenchFixtures() {
	if benchFixtures.root != "" {
		os.RemoveAll(benchFixtures.root)
	}
}

// writeSmallFixture writes n sessions shaped like e2e/load's profile (one
// to six rounds of a question, often a bash call and its output, and an
// answer; about 12 KB each), each with its lock file, directly and dated
// an hour ago so the listing caches them. None holds "Zanzibar"; "cache"
// is in most of them. It returns the bytes of the documents.
func writeSmallFixture(b *testing.B, dir string, n int) int64 {
	b.Helper()
	g := smallGen{r: rand.New(rand.NewPCG(1, 2))}
	old := time.Now().Add(-time.Hour)
	var total int64
	for i := range n {
		doc := g.document(i)
		data, err := session.Encode(doc)
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(dir, doc.ID+".json")
		lock := filepath.Join(dir, doc.ID+".lock")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(lock, []byte(`{"pid":4242}`), 0o600); err != nil {
			b.Fatal(err)
		}
		os.Chtimes(path, old, old)
		total += int64(len(data))
	}
	os.Chtimes(dir, old, old)
	return total
}

// smallGen makes e2e/load's documents (e2e/load/fixture.go) as session
// Documents: the same vocabulary, rounds and sizes.
type smallGen struct{ r *rand.Rand }

func (g smallGen) document(i int) *session.Document {
	var b [10]byte
	for j := range b {
		b[j] = byte(g.r.Uint32())
	}
	id := fmt.Sprintf("0193c7b2-%04x-7%03x-8%03x-%s", i%0x10000, i>>16, b[0], hex.EncodeToString(b[4:10]))
	updated := t0.Add(time.Duration(i) * time.Minute)
	d := &session.Document{
		Schema: session.Schema, ID: id, Model: "anthropic/claude-sonnet-4-5",
		Title:     fmt.Sprintf("Fix the flaky %s test", smallPick(g.r, smallTopics)),
		Cwd:       "/home/ana/src/" + smallPick(g.r, smallProjects),
		CreatedAt: updated.Add(-time.Hour), UpdatedAt: updated,
	}
	if g.r.IntN(8) == 0 {
		d.Scratchpad = g.sentence(20, 80)
	}
	d.Threads = []session.Thread{{CreatedAt: d.CreatedAt, Messages: g.rounds(1+g.r.IntN(6), d.CreatedAt)}}
	return d
}

func (g smallGen) rounds(n int, at time.Time) []session.Message {
	var msgs []session.Message
	seq := 0
	msg := func(role string, human bool, blocks ...session.Block) session.Message {
		seq++
		at = at.Add(time.Minute)
		m := session.Message{ID: fmt.Sprintf("msg_%08x%04d", g.r.Uint32(), seq), Role: role, At: at, Human: human, Content: blocks}
		if role == "assistant" {
			m.Model, m.StopReason = "anthropic/claude-sonnet-4-5", "end_turn"
			m.Usage = &session.Usage{InputTokens: 500 + g.r.Int64N(20000), OutputTokens: 20 + g.r.Int64N(800), CacheReadInputTokens: g.r.Int64N(15000)}
		}
		return m
	}
	for range n {
		msgs = append(msgs, msg("user", true, session.Block{Type: session.BlockText, Text: g.sentence(5, 60)}))
		if g.r.IntN(2) == 0 {
			tool := fmt.Sprintf("toolu_%016x", g.r.Uint64())
			input := mustJSON(map[string]string{"command": smallPick(g.r, smallCommands)})
			msgs = append(msgs,
				msg("assistant", false, session.Block{Type: session.BlockText, Text: "Let me look."},
					session.Block{Type: session.BlockToolUse, ID: tool, Name: "bash", Input: jsontext.Value(input)}),
				msg("user", false, session.Block{Type: session.BlockToolResult, ToolUseID: tool,
					Content: jsontext.Value(mustJSON(g.output())), DurationMS: 5 + g.r.Int64N(3000)}))
		}
		msgs = append(msgs, msg("assistant", false, session.Block{Type: session.BlockText, Text: g.sentence(20, 220)}))
	}
	return msgs
}

// sentence is between lo and hi words of prose, with the odd code span.
func (g smallGen) sentence(lo, hi int) string {
	n := lo + g.r.IntN(hi-lo+1)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		w := smallPick(g.r, smallVocabulary)
		if g.r.IntN(25) == 0 {
			w = "`" + smallPick(g.r, smallTopics) + "`"
		}
		b.WriteString(w)
		if g.r.IntN(12) == 0 {
			b.WriteString(".")
		}
	}
	b.WriteString(".")
	return b.String()
}

// output looks like the output of a command: a few to fifty lines.
func (g smallGen) output() string {
	var b strings.Builder
	for i := range 2 + g.r.IntN(48) {
		fmt.Fprintf(&b, "%s/%s.go:%d: %s\n", smallPick(g.r, smallProjects), smallPick(g.r, smallTopics), i*7+1, g.sentence(3, 10))
	}
	return b.String()
}

func smallPick(r *rand.Rand, from []string) string { return from[r.IntN(len(from))] }

var (
	smallTopics = []string{
		"auth", "session store", "listing cache", "event stream", "image upload", "search",
		"archive", "settings loader", "markdown renderer", "compaction", "title model",
		"lock file", "home page", "bash tool", "approvals", "token check",
	}
	smallProjects = []string{"myco", "website", "infra", "notes", "billing", "cli"}
	smallCommands = []string{
		"go test ./...", "git status", "ls -la", "go vet ./...", "rg -n TODO",
		"cat go.mod", "git log --oneline -5", "make build",
	}
	smallVocabulary = strings.Fields(`the a this that it we you should could will test fails passes
		because when after before function handler request response file folder cache lock
		error returns value slice map goroutine channel context deadline timeout retry port
		build package import module version change commit branch review line column field
		type struct method interface pointer nil empty list page row query title model
		stream event delta message thread summary listing search archive restore image`)
)
