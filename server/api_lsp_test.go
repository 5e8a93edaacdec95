package server_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myco/server"
	"myco/server/lsp"
)

// GET …/lsp lists the servers found when the session opened, whether the
// folder has files of their languages, their states, and the known ones
// not found; the HTML is the /lsp panel.
func TestListLSP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, dir, func(o *server.Options) {
		o.LanguageServers = func() []lsp.Found {
			return []lsp.Found{{Kind: lsp.Kinds[0], Path: "/opt/go/bin/gopls"}, {Kind: lsp.Kinds[2], Path: "/usr/bin/pyright-langserver"}}
		}
	})
	id := ts.create("lsp").ID
	resp := ts.do("GET", "/api/sessions/"+id+"/lsp", nil)
	wantStatus(t, resp, http.StatusOK)
	got := decode[struct {
		Servers []lsp.Status
		Missing []lsp.Known
		HTML    string
	}](t, resp)
	if len(got.Servers) != 2 {
		t.Fatalf("servers %+v, want gopls and pyright", got.Servers)
	}
	for i, want := range []struct {
		name  string
		files bool
	}{{"gopls", true}, {"pyright", false}} {
		s := got.Servers[i]
		if s.Name != want.name || s.HasFiles != want.files || s.State != lsp.StateNotStarted {
			t.Errorf("server %d = %+v, want %s, has files %v, not started", i, s, want.name, want.files)
		}
	}
	if len(got.Missing) != 2 || got.Missing[0].Name != "typescript-language-server" || got.Missing[1].Name != "rust-analyzer" {
		t.Errorf("missing %+v", got.Missing)
	}
	for _, want := range []string{`data-server="gopls"`, "Go files here", "no Python files here", "/opt/go/bin/gopls", "not started", "rust-analyzer"} {
		if !strings.Contains(got.HTML, want) {
			t.Errorf("panel HTML lacks %q:\n%s", want, got.HTML)
		}
	}
	wantStatus(t, ts.do("GET", "/api/sessions/nope/lsp", nil), http.StatusNotFound)
}
