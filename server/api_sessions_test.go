package server_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/session"
)

// newerDoc is a document a newer myco wrote: members this version does not
// know at every level, and a legacy inline image the API leaves out.
const newerDoc = `{
 "schema": 1,
 "id": "0193c7b2-0000-7000-8000-0000000000aa",
 "title": "Written by a newer myco",
 "x_doc_color": "teal",
 "created_at": "2026-11-02T10:00:00Z",
 "updated_at": "2026-11-02T10:30:00Z",
 "archived": false,
 "x_doc_tags": ["work", {"nested": [1, 2.5, null, true]}],
 "parent": {"session": "0193c7a0-1111-7222-8333-444455556666", "thread": 1, "x_parent_reason": "fork"},
 "links": [{"url": "https://example.com/spec", "title": "Spec", "x_link_pinned": true}],
 "threads": [
  {
   "created_at": "2026-11-02T10:00:00Z",
   "x_thread_label": "first try",
   "messages": [
    {"id": "m1", "role": "user", "at": "2026-11-02T10:00:05Z", "human": true, "x_message_client": "cli",
     "content": [
      {"type": "text", "text": "hello", "x_block_cache_control": {"type": "ephemeral"}},
      {"type": "image", "media_type": "image/png", "data": "iVBORw0KGgo=", "x_block_alt": "a dot"}
     ]},
    {"id": "m2", "role": "assistant", "at": "2026-11-02T10:00:09Z", "stop_reason": "end_turn",
     "usage": {"input_tokens": 10, "output_tokens": 2, "x_usage_reasoning_tokens": 40, "x_usage_detail": {"audio": 0}},
     "content": [{"type": "text", "text": "Hi!", "citations": []}]}
   ]
  }
 ],
 "x_doc_after_threads": {"deep": {"deeper": ["kept"]}}
}
`

// TestGetSessionAsStored checks that GET /api/sessions/{id} answers the
// document as stored, members it does not know included, at every level;
// only the bytes of legacy inline images are left out.
func TestGetSessionAsStored(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	const id = "0193c7b2-0000-7000-8000-0000000000aa"
	if err := os.WriteFile(filepath.Join(ts.dir, "session", id+".json"), []byte(newerDoc), 0o600); err != nil {
		t.Fatal(err)
	}
	resp := ts.do("GET", "/api/sessions/"+id, nil)
	wantStatus(t, resp, http.StatusOK)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	got := decode[map[string]any](t, resp)

	var want map[string]any
	if err := json.Unmarshal([]byte(newerDoc), &want); err != nil {
		t.Fatal(err)
	}
	image := want["threads"].([]any)[0].(map[string]any)["messages"].([]any)[0].(map[string]any)["content"].([]any)[1].(map[string]any)
	delete(image, "data")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("document (-stored +answered):\n%s", diff)
	}
	if path, ok := findKey(got, "Unknown", "$"); ok {
		t.Errorf("answer has an Unknown member at %s", path)
	}
}

// findKey looks for an object member named key anywhere in v.
func findKey(v any, key, path string) (string, bool) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v[key]; ok {
			return path + "." + key, true
		}
		for k, e := range v {
			if p, ok := findKey(e, key, path+"."+k); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range v {
			if p, ok := findKey(e, key, path+"["+strconv.Itoa(i)+"]"); ok {
				return p, true
			}
		}
	}
	return "", false
}

// TestPatchTitleRule checks that PATCH renames by the one title rule
// (session.SetTitle), as the CLI and the agent do.
func TestPatchTitleRule(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	long := strings.Repeat("é", session.TitleMax+10)
	tests := []struct {
		name       string
		body       string
		archived   bool
		wantStatus int
		wantTitle  string
	}{
		{"one line, trimmed", `{"title":" Fix\n the\ttest "}`, false, http.StatusOK, "Fix the test"},
		{"cut to the cap", `{"title":"` + long + `"}`, false, http.StatusOK, strings.Repeat("é", session.TitleMax)},
		{"empty refused", `{"title":" \n "}`, false, http.StatusBadRequest, "before"},
		{"empty refused with the rest", `{"title":"","scratchpad":"lost"}`, false, http.StatusBadRequest, "before"},
		{"archived refused", `{"title":"After"}`, true, http.StatusConflict, "before"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := ts.create("before").ID
			if tt.archived {
				wantStatus(t, ts.do("POST", "/api/sessions/"+id+"/archive", nil), http.StatusOK)
			}
			resp := ts.do("PATCH", "/api/sessions/"+id, strings.NewReader(tt.body))
			wantStatus(t, resp, tt.wantStatus)
			if tt.wantStatus == http.StatusOK {
				if got := decode[session.Summary](t, resp); got.Title != tt.wantTitle {
					t.Errorf("answered title %q, want %q", got.Title, tt.wantTitle)
				}
			} else if body := decode[map[string]any](t, resp); body["error"] == "" {
				t.Errorf("refusal without a reason: %v", body)
			}
			doc, err := ts.sessions.Load(id)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Title != tt.wantTitle || doc.Scratchpad != "" {
				t.Errorf("stored title %q, scratchpad %q; want %q and none", doc.Title, doc.Scratchpad, tt.wantTitle)
			}
		})
	}
}
