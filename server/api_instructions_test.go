package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"myco/session"
)

// POST …/instructions/reload reads the files again and answers what was
// read, as the document records it; an archived session is refused.
func TestReloadInstructions(t *testing.T) {
	t.Parallel()
	ts := startServer(t, t.TempDir(), nil)
	agents := filepath.Join(ts.dir, "AGENTS.md")
	if err := os.WriteFile(agents, []byte("first words"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := ts.create("instructions").ID
	if err := os.WriteFile(agents, []byte("other words, longer"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp := ts.do("POST", "/api/sessions/"+id+"/instructions/reload", nil)
	wantStatus(t, resp, http.StatusOK)
	got := decode[struct{ Instructions []session.Instruction }](t, resp)
	if len(got.Instructions) != 1 || got.Instructions[0].Path != agents || got.Instructions[0].Bytes != int64(len("other words, longer")) {
		t.Fatalf("reloaded %+v, want AGENTS.md as it is now", got.Instructions)
	}
	doc := decode[session.Document](t, ts.do("GET", "/api/sessions/"+id, nil))
	if len(doc.Instructions) != 1 || doc.Instructions[0].SHA256 != got.Instructions[0].SHA256 {
		t.Errorf("document's instructions %+v, want the reloaded ones", doc.Instructions)
	}
	wantStatus(t, ts.do("POST", "/api/sessions/"+id+"/archive", nil), http.StatusOK)
	wantStatus(t, ts.do("POST", "/api/sessions/"+id+"/instructions/reload", nil), http.StatusConflict)
}
