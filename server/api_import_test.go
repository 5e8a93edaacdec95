package server_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myco/importer"
	"myco/session"
)

// importJob is what GET /api/import/{job} answers.
type importJob struct {
	ID       string            `json:"id"`
	State    string            `json:"state"`
	Progress importer.Progress `json:"progress"`
	Report   *importer.Report  `json:"report"`
	Error    string            `json:"error"`
}

func fixture(t *testing.T, tool string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "importer", "testdata", tool))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// importVia starts an import through the API and follows it to its end.
func (ts *testServer) importVia(t *testing.T, tool string, paths ...string) importJob {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"tool": tool, "paths": paths})
	resp := ts.do("POST", "/api/import", strings.NewReader(string(body)))
	wantStatus(t, resp, http.StatusAccepted)
	job := decode[importJob](t, resp)
	deadline := time.Now().Add(30 * time.Second)
	for job.State == "running" {
		if time.Now().After(deadline) {
			t.Fatalf("the import is still running: %+v", job)
		}
		time.Sleep(10 * time.Millisecond)
		resp = ts.do("GET", "/api/import/"+job.ID, nil)
		wantStatus(t, resp, http.StatusOK)
		job = decode[importJob](t, resp)
	}
	return job
}

// TestImportAPI imports each fixture through the API, twice, and finds
// the sessions in the listing and the search; then continues each one
// with both providers: the fake model refuses a request whose tool calls
// and results do not pair, or whose roles do not alternate.
func TestImportAPI(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) { testImportAPI(t, provider) })
	}
}

func testImportAPI(t *testing.T, provider string) {
	cs := newChatServer(t, provider)
	ids := map[string]string{}
	for _, tool := range importer.Tools {
		job := cs.importVia(t, tool, fixture(t, tool))
		if job.State != "done" || job.Report == nil || job.Report.Imported != 1 || job.Progress.Done != job.Progress.Total {
			t.Fatalf("%s: %+v", tool, job)
		}
		for _, it := range job.Report.Items {
			if it.Outcome == importer.Imported {
				ids[tool] = it.Session
			}
		}
		again := cs.importVia(t, tool, fixture(t, tool))
		if again.Report.Imported != 0 || again.Report.Already != 1 {
			t.Errorf("%s again: %+v", tool, again.Report)
		}
	}
	resp := cs.do("GET", "/api/sessions", nil)
	wantStatus(t, resp, http.StatusOK)
	listing := readAll(t, resp)
	for tool, id := range ids {
		if !strings.Contains(listing, id) {
			t.Errorf("%s's session %s is not listed", tool, id)
		}
	}
	resp = cs.do("GET", "/api/search?q=green+pixel", nil)
	if found := readAll(t, resp); !strings.Contains(found, ids[importer.ClaudeCode]) {
		t.Errorf("search for an imported answer: %s", found)
	}

	// Exported and forked like any other.
	for tool, id := range ids {
		resp := cs.do("GET", "/api/sessions/"+id+"/export?format=html", nil)
		wantStatus(t, resp, http.StatusOK)
		if page := readAll(t, resp); !strings.Contains(page, "data:image/png;base64,") {
			t.Errorf("%s: the export lacks the imported image", tool)
		}
		resp = cs.do("POST", "/api/sessions/"+id+"/fork", strings.NewReader(`{}`))
		wantStatus(t, resp, http.StatusCreated)
		fork := decode[struct{ ID string }](t, resp)
		if doc, err := cs.sessions.Load(fork.ID); err != nil || doc.Source != nil || doc.MessageCount() == 0 {
			t.Errorf("%s: fork %+v %v", tool, doc, err)
		}
	}

	for tool, id := range ids {
		if _, err := cs.sessions.Update(id, func(d *session.Document) error {
			d.Model = provider + "/fake-model"
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		st := cs.stream(t, id)
		wantStatus(t, cs.send(id, "go on"), http.StatusAccepted)
		st.until("turn.end")
		last := lastMessage(t, cs.sessions, id)
		if last.Role != "assistant" || last.Error != nil {
			t.Errorf("%s: the imported session's turn failed: %+v", tool, last.Error)
		}
		if doc, err := cs.sessions.Load(id); err != nil || doc.Source == nil || doc.Source.Tool != tool {
			t.Errorf("%s: after a turn the source is %+v (%v)", tool, doc.Source, err)
		}
	}
}

func TestImportAPIBadInput(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	for _, body := range []string{
		`{"tool":"vim"}`,
		`{"tool":"codex","paths":["relative/path"]}`,
		`{"tool":"codex","paths":"not a list"}`,
	} {
		wantStatus(t, ts.do("POST", "/api/import", strings.NewReader(body)), http.StatusBadRequest)
	}
	wantStatus(t, ts.do("GET", "/api/import/nope", nil), http.StatusNotFound)

	job := ts.importVia(t, importer.Codex, filepath.Join(ts.dir, "nothing-here"))
	if job.State != "done" || len(job.Report.Problems) != 1 {
		t.Errorf("a missing folder: %+v", job.Report)
	}
}

// TestImportFromAnotherProcess: sessions the CLI imports into the store
// of a running server (another Store over the same folder) show in its
// listing.
func TestImportFromAnotherProcess(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	other, err := session.Open(filepath.Join(ts.dir, "session"), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := importer.Run(t.Context(), importer.Options{Tool: importer.OpenCode, Paths: []string{fixture(t, importer.OpenCode)}, Sessions: other, Images: ts.images})
	if err != nil || rep.Imported != 1 {
		t.Fatalf("import: %v %+v", err, rep)
	}
	resp := ts.do("GET", "/api/sessions", nil)
	if listing := readAll(t, resp); !strings.Contains(listing, "Fix the build") {
		t.Errorf("the listing lacks the imported session:\n%s", listing)
	}
}
