package importer_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myco/importer"
	"myco/session"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixedNow is the import time the golden documents hold.
func fixedNow() time.Time { return time.Date(2026, 12, 2, 20, 0, 0, 0, time.UTC) }

type stores struct {
	sessions *session.Store
	images   *session.Images
}

func newStores(t *testing.T) stores {
	t.Helper()
	dir := t.TempDir()
	ss, err := session.Open(filepath.Join(dir, "session"), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	im, err := session.OpenImages(filepath.Join(dir, "images"))
	if err != nil {
		t.Fatal(err)
	}
	return stores{ss, im}
}

func (s stores) run(t *testing.T, tool string, paths ...string) *importer.Report {
	t.Helper()
	var last importer.Progress
	rep, err := importer.Run(context.Background(), importer.Options{
		Tool: tool, Paths: paths, Sessions: s.sessions, Images: s.images, Now: fixedNow,
		Progress: func(p importer.Progress) { last = p },
	})
	if err != nil {
		t.Fatalf("import %s: %v", tool, err)
	}
	if last.Done != last.Total || last.Total != len(rep.Items) {
		t.Errorf("last progress %+v, want all %d done", last, len(rep.Items))
	}
	return rep
}

// TestImportFixtures imports each tool's fixture twice: the first makes
// one session per source session, as the golden document says, reports
// damaged lines and what was kept as text, and files that are no session;
// the second makes nothing.
func TestImportFixtures(t *testing.T) {
	tests := []struct {
		tool, path string
		imported   int
		failed     []string // base names of the files reported as failed
		skipped    int      // damaged lines or files of the imported session
		notes      []string // substrings of the notes
	}{
		{importer.ClaudeCode, "testdata/claude-code", 1, []string{"notes.jsonl"}, 1,
			[]string{"abandoned branches", `"server_tool_use" block, kept as text`}},
		{importer.Codex, "testdata/codex", 1, []string{"rollout-2026-08-01T12-00-00-019b0000-0000-7000-8000-000000000002.jsonl"}, 1,
			[]string{"context Codex added", `"web_search_call" item, kept as text`}},
		{importer.OpenCode, "testdata/opencode", 1, nil, 1,
			[]string{"synthetic"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			st := newStores(t)
			rep := st.run(t, tt.tool, tt.path)
			if rep.Imported != tt.imported || rep.NotSessions != len(tt.failed) || rep.Failed != 0 {
				t.Fatalf("imported %d, failed %d; want %d, %d: %+v", rep.Imported, rep.Failed, tt.imported, len(tt.failed), rep.Items)
			}
			var doc *session.Document
			var failed []string
			for _, it := range rep.Items {
				switch it.Outcome {
				case importer.NotSession:
					failed = append(failed, filepath.Base(it.Path))
					if !strings.Contains(it.Error, "not a session") {
						t.Errorf("%s failed with %q, want not a session", it.Path, it.Error)
					}
				case importer.Imported:
					if it.Skipped != tt.skipped {
						t.Errorf("skipped %d lines, want %d", it.Skipped, tt.skipped)
					}
					for _, want := range tt.notes {
						if !strings.Contains(strings.Join(it.Notes, "\n"), want) {
							t.Errorf("notes %q lack %q", it.Notes, want)
						}
					}
					var err error
					if doc, err = st.sessions.Load(it.Session); err != nil {
						t.Fatal(err)
					}
				}
			}
			if strings.Join(failed, ",") != strings.Join(tt.failed, ",") {
				t.Errorf("failed %v, want %v", failed, tt.failed)
			}
			checkPairs(t, doc.Threads[0].Messages)
			doc.ImageRefs(func(sha string) {
				if !st.images.Has(sha) {
					t.Errorf("image %s not stored", sha)
				}
			})
			golden(t, tt.tool, doc)

			again := st.run(t, tt.tool, tt.path)
			if again.Imported != 0 || again.Already != tt.imported {
				t.Errorf("second import: imported %d, already %d; want 0, %d", again.Imported, again.Already, tt.imported)
			}
		})
	}
}

// golden compares doc with testdata/<tool>.golden.json.
func golden(t *testing.T, tool string, doc *session.Document) {
	t.Helper()
	data, err := session.Encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, data, "", " "); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", tool+".golden.json")
	if *update {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, out.Bytes()) {
		t.Errorf("%s differs from the import (go test ./importer -update):\n%s", path, out.String())
	}
}

// checkPairs checks what the providers require of a thread once runs of
// one role are merged (live.normalize): a user message first, every
// tool_use answered first thing in the next message, no stray result.
func checkPairs(t *testing.T, msgs []session.Message) {
	t.Helper()
	var merged []session.Message
	for _, m := range msgs {
		if n := len(merged); n > 0 && merged[n-1].Role == m.Role {
			merged[n-1].Content = append(merged[n-1].Content, m.Content...)
			continue
		}
		m.Content = append([]session.Block(nil), m.Content...)
		merged = append(merged, m)
	}
	if len(merged) == 0 || merged[0].Role != "user" {
		t.Fatalf("the thread does not start with a user message")
	}
	for i, m := range merged {
		var uses []string
		for _, b := range m.Content {
			if b.Type == session.BlockToolUse {
				uses = append(uses, b.ID)
			}
		}
		var next []session.Block
		if i+1 < len(merged) {
			next = merged[i+1].Content
		}
		for k, id := range uses {
			if k >= len(next) || next[k].Type != session.BlockToolResult || next[k].ToolUseID != id {
				t.Errorf("message %d: tool_use %s is not answered in order at the start of the next message", i, id)
			}
		}
		results := 0
		for _, b := range m.Content {
			if b.Type == session.BlockToolResult {
				results++
			}
		}
		prevUses := 0
		if i > 0 {
			for _, b := range merged[i-1].Content {
				if b.Type == session.BlockToolUse {
					prevUses++
				}
			}
		}
		if results != prevUses {
			t.Errorf("message %d holds %d results for %d calls", i, results, prevUses)
		}
	}
}

// TestImportBadInput: a huge line is skipped and counted, a file that is
// not a session is reported, a path that does not exist is a problem, and
// the source files are left as they were.
func TestImportBadInput(t *testing.T) {
	dir := t.TempDir()
	huge := `{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", importer.MaxLine+10) + `"}}`
	good := `{"type":"user","uuid":"u1","timestamp":"2026-08-01T10:00:00Z","message":{"role":"user","content":"hello"}}`
	src := filepath.Join(dir, "s1.jsonl")
	if err := os.WriteFile(src, []byte(huge+"\n"+good+"\n\x00\x01garbage\n"), 0o400); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty.jsonl"), nil, 0o400); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(src)
	st := newStores(t)
	rep := st.run(t, importer.ClaudeCode, dir, filepath.Join(dir, "missing"))
	if rep.Imported != 1 || rep.NotSessions != 1 || len(rep.Problems) != 1 {
		t.Fatalf("report %+v", rep)
	}
	for _, it := range rep.Items {
		if it.Outcome == importer.Imported && it.Skipped != 2 {
			t.Errorf("skipped %d lines, want 2 (the huge one and the garbage)", it.Skipped)
		}
	}
	after, _ := os.Stat(src)
	if !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() || after.Mode() != before.Mode() {
		t.Errorf("the source changed")
	}
	if _, err := importer.Run(context.Background(), importer.Options{Tool: "vim", Sessions: st.sessions, Images: st.images}); err == nil {
		t.Errorf("an unknown tool was accepted")
	}
}

func TestDefaultPath(t *testing.T) {
	env := map[string]string{"HOME": "/h"}
	getenv := func(k string) string { return env[k] }
	for tool, want := range map[string]string{
		importer.ClaudeCode: "/h/.claude/projects",
		importer.Codex:      "/h/.codex/sessions",
		importer.OpenCode:   "/h/.local/share/opencode",
	} {
		if got, _ := importer.DefaultPath(tool, getenv); got != want {
			t.Errorf("%s: %s, want %s", tool, got, want)
		}
	}
	env["CODEX_HOME"] = "/c"
	if got, _ := importer.DefaultPath(importer.Codex, getenv); got != "/c/sessions" {
		t.Errorf("CODEX_HOME: %s", got)
	}
}

// TestImportImages: an image whose bytes are not an image is kept as text
// and noted; one whose source named the wrong type takes the type of its
// bytes (the providers check it), inside a tool result too.
func TestImportImages(t *testing.T) {
	png, err := os.ReadFile("testdata/pixel.png")
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(png)
	lines := []string{
		`{"type":"user","uuid":"u1","timestamp":"2026-08-01T10:00:00Z","message":{"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"` + b64 + `"}},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"aGVsbG8="}}]}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":"2026-08-01T10:00:01Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/x.png"}}]}}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1","timestamp":"2026-08-01T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"` + b64 + `"}}]}]}}`,
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	st := newStores(t)
	rep := st.run(t, importer.ClaudeCode, dir)
	if rep.Imported != 1 || !strings.Contains(strings.Join(rep.Items[0].Notes, "|"), "1 image the image store refused") {
		t.Fatalf("report %+v", rep.Items)
	}
	doc, err := st.sessions.Load(rep.Items[0].Session)
	if err != nil {
		t.Fatal(err)
	}
	msgs := doc.Threads[0].Messages
	if b := msgs[0].Content[1]; b.Type != session.BlockImage || b.MediaType != "image/png" {
		t.Errorf("the misnamed image: %+v", b)
	}
	if b := msgs[0].Content[2]; b.Type != session.BlockText || !strings.Contains(b.Text, "could not be kept") {
		t.Errorf("the image that is none: %+v", b)
	}
	if res := string(msgs[2].Content[0].Content); !strings.Contains(res, "image/png") || strings.Contains(res, "image/gif") {
		t.Errorf("the tool result's image: %s", res)
	}
}

// TestClaudeCodeTitle: the latest /rename wins over any AI title, which
// wins over a summary, which wins over the first thing the person said.
func TestClaudeCodeTitle(t *testing.T) {
	const msg = `{"type":"user","uuid":"u1","timestamp":"2026-08-01T10:00:00Z","message":{"role":"user","content":"fix the login page"}}`
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"first words", []string{msg}, "fix the login page"},
		{"summary", []string{`{"type":"summary","summary":"Login fix"}`, msg}, "Login fix"},
		{"ai title", []string{`{"type":"summary","summary":"Login fix"}`, `{"type":"ai-title","aiTitle":"A1"}`, msg, `{"type":"ai-title","aiTitle":"A2"}`}, "A2"},
		{"rename", []string{`{"type":"custom-title","customTitle":"old"}`, `{"type":"ai-title","aiTitle":"A1"}`, msg, `{"type":"custom-title","customTitle":"Login"}`, `{"type":"ai-title","aiTitle":"A2"}`}, "Login"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(strings.Join(tt.lines, "\n")), 0o600); err != nil {
				t.Fatal(err)
			}
			rep := newStores(t).run(t, importer.ClaudeCode, dir)
			if len(rep.Items) != 1 || rep.Items[0].Title != tt.want {
				t.Errorf("items %+v, want the title %q", rep.Items, tt.want)
			}
		})
	}
}

// TestImportHundreds: hundreds of sessions, progress for each, and a
// second import that reads none of them (each found by its derived ID).
func TestImportHundreds(t *testing.T) {
	const n = 300
	dir := t.TempDir()
	for i := range n {
		line := fmt.Sprintf(`{"type":"user","uuid":"u1","timestamp":"2026-08-01T10:00:00Z","message":{"role":"user","content":"task %d"}}`, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%03d.jsonl", i)), []byte(line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st := newStores(t)
	var calls int
	rep, err := importer.Run(context.Background(), importer.Options{
		Tool: importer.ClaudeCode, Paths: []string{dir}, Sessions: st.sessions, Images: st.images,
		Progress: func(importer.Progress) { calls++ },
	})
	if err != nil || rep.Imported != n || calls != n+1 {
		t.Fatalf("imported %d, %d progress calls, err %v", rep.Imported, calls, err)
	}
	// The second time the sources are not read: were they, these would
	// be no sessions.
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%03d.jsonl", i)), []byte("garbage\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	again := st.run(t, importer.ClaudeCode, dir)
	if again.Already != n || again.Imported+again.Failed != 0 {
		t.Errorf("second import: %d already, %d imported, %d failed", again.Already, again.Imported, again.Failed)
	}
}
