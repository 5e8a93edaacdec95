package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The generated profile's documents follow docs/FORMAT.md (schema 1). They
// are written directly, as another tool would, without fsync: the point is
// a realistic folder, not a durable one.

const (
	loadProfile  = "load"
	emptyProfile = "empty"
	apiKeyEnv    = "MYCO_LOAD_ANTHROPIC_KEY"
	docModel     = "anthropic/claude-sonnet-4-5"
)

type document struct {
	Schema     int      `json:"schema"`
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Model      string   `json:"model"`
	Cwd        string   `json:"cwd"`
	CreatedAt  string   `json:"created_at"`
	UpdatedAt  string   `json:"updated_at"`
	Archived   bool     `json:"archived"`
	Links      []link   `json:"links,omitempty"`
	Scratchpad string   `json:"scratchpad,omitempty"`
	Threads    []thread `json:"threads"`
}

type link struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

type thread struct {
	CreatedAt     string    `json:"created_at"`
	CompactedFrom *int      `json:"compacted_from,omitempty"`
	Summary       string    `json:"summary,omitempty"`
	Carried       int       `json:"carried,omitempty"`
	Messages      []message `json:"messages"`
}

type message struct {
	ID         string  `json:"id"`
	Role       string  `json:"role"`
	At         string  `json:"at"`
	Human      bool    `json:"human,omitempty"`
	Model      string  `json:"model,omitempty"`
	StopReason string  `json:"stop_reason,omitempty"`
	Usage      *usage  `json:"usage,omitempty"`
	Content    []block `json:"content"`
}

type usage struct {
	InputTokens          int `json:"input_tokens"`
	OutputTokens         int `json:"output_tokens"`
	CacheReadInputTokens int `json:"cache_read_input_tokens"`
}

type block struct {
	Type       string            `json:"type"`
	Text       string            `json:"text,omitempty"`
	ID         string            `json:"id,omitempty"`
	Name       string            `json:"name,omitempty"`
	Input      map[string]string `json:"input,omitempty"`
	ToolUseID  string            `json:"tool_use_id,omitempty"`
	IsError    *bool             `json:"is_error,omitempty"`
	Content    string            `json:"content,omitempty"`
	DurationMS int               `json:"duration_ms,omitempty"`
}

// fixture is what writeProfile wrote.
type fixture struct {
	sessions int
	bytes    int64
	took     time.Duration
	matches  int // titles containing the search query
}

// writeProfile writes settings.json and n sessions into profile p of home.
// Each session has its lock file too: myco never deletes one, so a
// profile that has been used has one per session.
func writeProfile(home, p string, n int, fakeURL, query string) (fixture, error) {
	start := time.Now()
	dir := filepath.Join(home, "profiles", p, "session")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fixture{}, err
	}
	if err := writeSettings(filepath.Join(home, "profiles", p, "settings.json"), fakeURL); err != nil {
		return fixture{}, err
	}
	g := newGenerator(1)
	f := fixture{sessions: n}
	for range n {
		d := g.document()
		if strings.Contains(strings.ToLower(d.Title), strings.ToLower(query)) {
			f.matches++
		}
		size, err := writeDocument(dir, d)
		if err != nil {
			return f, err
		}
		f.bytes += size
	}
	f.took = time.Since(start)
	return f, nil
}

func writeSettings(path, fakeURL string) error {
	settings := map[string]any{
		"default_model": docModel,
		"title_model":   "anthropic/claude-haiku-4-5",
		"providers": map[string]any{
			"anthropic": map[string]string{"base_url": fakeURL, "api_key_env": apiKeyEnv},
		},
	}
	data, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// writeDocument writes d and its lock file, both dated to d's last
// activity: a real profile's files are mostly old, and myco caches only
// documents that have not changed for a moment.
func writeDocument(dir string, d document) (int64, error) {
	data, err := json.Marshal(d)
	if err != nil {
		return 0, err
	}
	path := filepath.Join(dir, d.ID+".json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return 0, err
	}
	updated, _ := time.Parse(time.RFC3339Nano, d.UpdatedAt)
	// The hint of a server long gone: nobody holds the lock.
	hint := fmt.Sprintf(`{"pid":4242,"url":"http://127.0.0.1:41234","since":%q}`, d.UpdatedAt)
	lock := filepath.Join(dir, d.ID+".lock")
	if err := os.WriteFile(lock, []byte(hint), 0o600); err != nil {
		return 0, err
	}
	for _, p := range []string{path, lock} {
		if err := os.Chtimes(p, updated, updated); err != nil {
			return 0, err
		}
	}
	return int64(len(data)), nil
}

// generator makes deterministic, varied documents: one to six rounds of a
// question, often a bash call and its output, and an answer; now and then
// links, a scratchpad or a compacted second thread.
type generator struct {
	r   *rand.Rand
	now time.Time
	seq int
}

func newGenerator(seed uint64) *generator {
	return &generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), now: time.Now().UTC()}
}

func (g *generator) document() document {
	g.seq++
	updated := g.now.Add(-time.Duration(g.r.Int64N(int64(365 * 24 * time.Hour))))
	created := updated.Add(-time.Duration(g.r.Int64N(int64(3 * time.Hour))))
	d := document{
		Schema: 1, ID: uuid7(created, g.r), Title: g.title(), Model: docModel,
		Cwd: "/home/ana/src/" + pick(g.r, projects), CreatedAt: stamp(created), UpdatedAt: stamp(updated),
	}
	if g.r.IntN(10) == 0 {
		d.Links = []link{{URL: "https://github.com/ana/" + pick(g.r, projects) + "/issues/" + fmt.Sprint(g.r.IntN(900)+1), Title: "the issue"}}
	}
	if g.r.IntN(8) == 0 {
		d.Scratchpad = g.sentence(20, 80)
	}
	d.Threads = []thread{{CreatedAt: d.CreatedAt, Messages: g.rounds(1+g.r.IntN(6), created, updated)}}
	if g.r.IntN(30) == 0 { // compacted: the summary thread carries the last round
		zero := 0
		carried := g.carry(d.Threads[0].Messages)
		d.Threads = append(d.Threads, thread{
			CreatedAt: d.UpdatedAt, CompactedFrom: &zero, Summary: "Summary: " + g.sentence(40, 120),
			Carried: len(carried), Messages: append(append([]message{}, carried...), g.rounds(1, updated, updated)...),
		})
	}
	return d
}

func (g *generator) rounds(n int, from, to time.Time) []message {
	var msgs []message
	step := to.Sub(from) / time.Duration(4*n)
	at := from
	next := func() string { at = at.Add(step); return stamp(at) }
	for range n {
		msgs = append(msgs, message{ID: g.id(), Role: "user", At: next(), Human: true,
			Content: []block{{Type: "text", Text: g.sentence(5, 60)}}})
		if g.r.IntN(2) == 0 {
			tool := "toolu_" + g.id()[:24]
			notErr := false
			msgs = append(msgs,
				message{ID: g.id(), Role: "assistant", At: next(), Model: docModel, StopReason: "tool_use", Usage: g.usage(),
					Content: []block{{Type: "text", Text: "Let me look."},
						{Type: "tool_use", ID: tool, Name: "bash", Input: map[string]string{"command": pick(g.r, commands)}}}},
				message{ID: g.id(), Role: "user", At: next(),
					Content: []block{{Type: "tool_result", ToolUseID: tool, IsError: &notErr, Content: g.output(), DurationMS: 5 + g.r.IntN(3000)}}})
		}
		msgs = append(msgs, message{ID: g.id(), Role: "assistant", At: next(), Model: docModel, StopReason: "end_turn", Usage: g.usage(),
			Content: []block{{Type: "text", Text: g.sentence(20, 220)}}})
	}
	return msgs
}

// carry copies the messages from the last human one on, as compaction
// does, under new IDs.
func (g *generator) carry(msgs []message) []message {
	from := len(msgs) - 1
	for from > 0 && !msgs[from].Human {
		from--
	}
	out := append([]message{}, msgs[from:]...)
	for i := range out {
		out[i].ID = g.id()
	}
	return out
}

func (g *generator) usage() *usage {
	return &usage{InputTokens: 500 + g.r.IntN(20000), OutputTokens: 20 + g.r.IntN(800), CacheReadInputTokens: g.r.IntN(15000)}
}

func (g *generator) id() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	return hex.EncodeToString(b[:])
}

// title is empty for one session in twenty: the title request failed or
// has not run yet.
func (g *generator) title() string {
	if g.r.IntN(20) == 0 {
		return ""
	}
	return fmt.Sprintf(pick(g.r, titles), pick(g.r, topics))
}

// sentence is between lo and hi words of prose, with the odd code span.
func (g *generator) sentence(lo, hi int) string {
	n := lo + g.r.IntN(hi-lo+1)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		w := pick(g.r, vocabulary)
		if g.r.IntN(25) == 0 {
			w = "`" + pick(g.r, topics) + "`"
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
func (g *generator) output() string {
	lines := 2 + g.r.IntN(48)
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "%s/%s.go:%d: %s\n", pick(g.r, projects), pick(g.r, topics), i*7+1, g.sentence(3, 10))
	}
	return b.String()
}

func pick(r *rand.Rand, from []string) string { return from[r.IntN(len(from))] }

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// uuid7 is a version 7 UUID for time t: new myco sessions have such IDs.
func uuid7(t time.Time, r *rand.Rand) string {
	var b [16]byte
	ms := uint64(t.UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (40 - 8*i))
	}
	for i := 6; i < 16; i++ {
		b[i] = byte(r.Uint32())
	}
	b[6] = 0x70 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

var (
	titles = []string{
		"Fix the flaky %s test", "Refactor %s", "Why is %s slow", "Add retries to %s",
		"Review the %s change", "Document %s", "Debug %s on CI", "Port %s to Go 1.26",
		"Benchmark %s", "Clean up %s errors", "Plan the %s migration", "Explain %s",
	}
	topics = []string{
		"auth", "session store", "listing cache", "event stream", "image upload", "search",
		"archive", "settings loader", "markdown renderer", "compaction", "title model",
		"lock file", "home page", "bash tool", "approvals", "token check",
	}
	projects = []string{"myco", "website", "infra", "notes", "billing", "cli"}
	commands = []string{
		"go test ./...", "git status", "ls -la", "go vet ./...", "rg -n TODO",
		"cat go.mod", "git log --oneline -5", "make build",
	}
	vocabulary = strings.Fields(`the a this that it we you should could will test fails passes
		because when after before function handler request response file folder cache lock
		error returns value slice map goroutine channel context deadline timeout retry port
		build package import module version change commit branch review line column field
		type struct method interface pointer nil empty list page row query title model
		stream event delta message thread summary listing search archive restore image`)
)
