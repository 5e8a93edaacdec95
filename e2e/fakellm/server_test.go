package fakellm_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"myco/e2e/fakellm"
)

func TestRequestsRecorded(t *testing.T) {
	srv := fakellm.Start(t)
	callAnthropic(t, srv, "sys", user("hi"))
	callOpenAI(t, srv, chatUser("hello"))
	post(t, srv.URL+"/v1/nowhere", map[string]any{})

	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("got %d recorded requests, want 3", len(reqs))
	}
	want := []struct{ provider, path string }{{"anthropic", "/v1/messages"}, {"openai", "/v1/chat/completions"}, {"", "/v1/nowhere"}}
	for i, w := range want {
		if reqs[i].Provider != w.provider || reqs[i].Path != w.path || reqs[i].Method != "POST" {
			t.Errorf("request %d = %s %s %s, want %s %s", i, reqs[i].Provider, reqs[i].Method, reqs[i].Path, w.provider, w.path)
		}
	}
	if reqs[0].JSON["system"] != "sys" || reqs[0].Header.Get("Content-Type") != "application/json" || !json.Valid(reqs[0].Body) {
		t.Errorf("request 0 = %+v", reqs[0])
	}

	// The browser tests read the same record over HTTP.
	resp, err := http.Get(srv.URL + "/_requests")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var over []struct {
		Provider string
		Path     string
		Body     map[string]any
	}
	if err := json.NewDecoder(resp.Body).Decode(&over); err != nil {
		t.Fatal(err)
	}
	if len(over) != 3 || over[1].Body["model"] != "gpt-test" {
		t.Errorf("/_requests = %+v", over)
	}

	if r, err := http.Post(srv.URL+"/_reset", "", nil); err != nil || r.StatusCode != http.StatusNoContent {
		t.Fatalf("/_reset: %v %v", r, err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("after /_reset: %d requests", n)
	}
}

func TestNotFound(t *testing.T) {
	srv := fakellm.Start(t)
	if r := post(t, srv.URL+"/v1/complete", map[string]any{}); r.status != 404 {
		t.Errorf("status = %d", r.status)
	}
}
