package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"myco/session"
)

// TestPatchPinnedAndTags checks PATCH {pinned} and {tags}: tags cleaned
// or refused with the reason and nothing kept, an archived session
// refused, and a mark that leaves the session's time alone.
func TestPatchPinnedAndTags(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	long := strings.Repeat("x", session.TagMax+1)
	tests := []struct {
		name       string
		body       string
		archived   bool
		wantStatus int
		wantPinned bool
		wantTags   []string
		wantError  string
	}{
		{name: "pin", body: `{"pinned":true}`, wantStatus: http.StatusOK, wantPinned: true},
		{name: "tags cleaned", body: `{"tags":[" work ","Work","two  words"]}`, wantStatus: http.StatusOK, wantTags: []string{"work", "two words"}},
		{name: "both at once", body: `{"pinned":true,"tags":["a"]}`, wantStatus: http.StatusOK, wantPinned: true, wantTags: []string{"a"}},
		{name: "no tags", body: `{"tags":[]}`, wantStatus: http.StatusOK},
		{name: "too long", body: `{"tags":["` + long + `"],"pinned":true}`, wantStatus: http.StatusBadRequest, wantError: "the most is 32"},
		{name: "too many", body: `{"tags":["a","b","c","d","e","f","g","h","i","j","k"]}`, wantStatus: http.StatusBadRequest, wantError: "at most 10 tags"},
		{name: "empty tag", body: `{"tags":["ok"," "]}`, wantStatus: http.StatusBadRequest, wantError: "cannot be empty"},
		{name: "not a list", body: `{"tags":"work"}`, wantStatus: http.StatusBadRequest, wantError: "tags"},
		{name: "not a boolean", body: `{"pinned":"yes"}`, wantStatus: http.StatusBadRequest, wantError: "pinned"},
		{name: "archived refused", body: `{"pinned":true}`, archived: true, wantStatus: http.StatusConflict, wantError: "restore it first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := ts.create("marked").ID
			if tt.archived {
				wantStatus(t, ts.do("POST", "/api/sessions/"+id+"/archive", nil), http.StatusOK)
			}
			before, err := ts.sessions.Load(id)
			if err != nil {
				t.Fatal(err)
			}
			resp := ts.do("PATCH", "/api/sessions/"+id, strings.NewReader(tt.body))
			wantStatus(t, resp, tt.wantStatus)
			if tt.wantStatus == http.StatusOK {
				got := decode[session.Summary](t, resp)
				if got.Pinned != tt.wantPinned || !slices.Equal(got.Tags, tt.wantTags) {
					t.Errorf("answered pinned %v tags %q, want %v %q", got.Pinned, got.Tags, tt.wantPinned, tt.wantTags)
				}
			} else if body := decode[map[string]any](t, resp); !strings.Contains(body["error"].(string), tt.wantError) {
				t.Errorf("refusal %q, want it to say %q", body["error"], tt.wantError)
			}
			doc, err := ts.sessions.Load(id)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Pinned != tt.wantPinned || !slices.Equal(doc.Tags, tt.wantTags) {
				t.Errorf("stored pinned %v tags %q, want %v %q", doc.Pinned, doc.Tags, tt.wantPinned, tt.wantTags)
			}
			if !doc.UpdatedAt.Equal(before.UpdatedAt) {
				t.Errorf("a mark moved updated_at from %v to %v", before.UpdatedAt, doc.UpdatedAt)
			}
		})
	}
}

// TestListPinnedFirstAndByTag checks GET /api/sessions: pinned sessions
// first, and ?tag= keeping the sessions that carry the tag (ignoring
// case), alone or with ?q=; the home page's rows filter the same way.
func TestListPinnedFirstAndByTag(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	oldest := ts.create("oldest").ID
	middle := ts.create("middle").ID
	newest := ts.create("newest").ID
	patch := func(id, body string) {
		t.Helper()
		wantStatus(t, ts.do("PATCH", "/api/sessions/"+id, strings.NewReader(body)), http.StatusOK)
	}
	patch(oldest, `{"pinned":true,"tags":["Work"]}`)
	patch(newest, `{"tags":["work","home"]}`)

	list := func(query string) []string {
		t.Helper()
		resp := ts.do("GET", "/api/sessions"+query, nil)
		wantStatus(t, resp, http.StatusOK)
		var ids []string
		for _, s := range decode[[]session.Summary](t, resp) {
			ids = append(ids, s.ID)
		}
		return ids
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"", []string{oldest, newest, middle}},
		{"?tag=work", []string{oldest, newest}},
		{"?tag=HOME", []string{newest}},
		{"?tag=nothing", nil},
		{"?tag=work&q=new", []string{newest}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, list(tt.query)); diff != "" {
			t.Errorf("GET /api/sessions%s (-want +got):\n%s", tt.query, diff)
		}
	}

	patch(oldest, `{"pinned":false}`)
	if diff := cmp.Diff([]string{newest, middle, oldest}, list("")); diff != "" {
		t.Errorf("unpinned, the session goes back to its place by time (-want +got):\n%s", diff)
	}

	resp := ts.do("GET", "/partials/sessions?tag=home", nil)
	wantStatus(t, resp, http.StatusOK)
	body := string(readBody(t, resp, false))
	if !strings.Contains(body, newest) || strings.Contains(body, middle) || strings.Contains(body, oldest) {
		t.Errorf("the rows tagged home hold the wrong sessions:\n%s", body)
	}
}
