package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"myco/e2e/fakellm"
	"myco/profiles"
	"myco/schedule"
	"myco/server"
	"myco/server/llm"
)

// scheduleServer is a chat server (fake model) whose profile keeps
// schedules, and which holds the profile's lock unless told not to.
type scheduleServer struct {
	*testServer
	store *schedule.Store
}

func newScheduleServer(t *testing.T, holdLock bool) *scheduleServer {
	t.Helper()
	fake := fakellm.Start(t)
	dir := t.TempDir()
	settings := profiles.DefaultSettings()
	settings.DefaultModel = "anthropic/fake-model"
	settings.TitleModel = "anthropic/fake-title"
	settings.Providers = map[string]profiles.Provider{"anthropic": {BaseURL: fake.URL, APIKeyEnv: "FAKE_KEY"}}
	getenv := func(k string) string {
		if k == "FAKE_KEY" {
			return "sk-test"
		}
		return ""
	}
	store := schedule.OpenStore(dir, nil)
	ts := startServer(t, dir, func(o *server.Options) {
		o.DefaultModel, o.Settings = settings.DefaultModel, profiles.NewLiveSettings(settings)
		o.Models = llm.NewRegistry(settings, getenv, o.Images)
		o.Schedules = store
		if holdLock {
			l := flock.New(filepath.Join(dir, "server.lock"))
			t.Cleanup(func() { l.Close() })
			o.ScheduleLock = l
		}
	})
	return &scheduleServer{testServer: ts, store: store}
}

func (ss *scheduleServer) add(t *testing.T, body string) scheduleJSON {
	t.Helper()
	resp := ss.do("POST", "/api/schedules", strings.NewReader(body))
	wantStatus(t, resp, http.StatusCreated)
	return decode[scheduleJSON](t, resp)
}

type scheduleJSON struct {
	ID      string        `json:"id"`
	Name    string        `json:"name"`
	Enabled bool          `json:"enabled"`
	Missed  string        `json:"missed"`
	Session string        `json:"session"`
	NextRun *time.Time    `json:"next_run"`
	LastRun *schedule.Run `json:"last_run"`
}

// lastRun waits for the schedule's last run to end and returns it.
func (ss *scheduleServer) lastRun(t *testing.T, id string) schedule.Run {
	t.Helper()
	var run schedule.Run
	waitFor(t, "the run to be recorded as ended", func() bool {
		sc, err := ss.store.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		var ok bool
		run, ok = sc.LastRun()
		return ok && run.Finished()
	})
	return run
}

// A run (run now) is recorded before its turn starts, with its new
// session, and after, with its outcome, tokens and cost; its answer
// reaches deliver_to as a note from the schedule's name.
func TestScheduleRunRecordsAndDelivers(t *testing.T) {
	t.Parallel()
	ss := newScheduleServer(t, true)
	inbox := ss.create("Inbox")
	st := ss.stream(t, inbox.ID)
	sc := ss.add(t, `{"name":"nightly build","when":"0 9 * * *","prompt":"[[say:Build is green.]] [[usage:in=100,out=20]]","deliver_to":"`+inbox.ID+`"}`)
	if !sc.Enabled || sc.Missed != schedule.MissedRunOnce || sc.Session != schedule.NewSession || sc.NextRun == nil {
		t.Fatalf("new schedule %+v, want enabled, run_once, a new session, a next run", sc)
	}
	resp := ss.do("POST", "/api/schedules/"+sc.ID+"/run", nil)
	wantStatus(t, resp, http.StatusAccepted)
	started := decode[struct{ Run schedule.Run }](t, resp).Run
	if started.Outcome != schedule.OutcomeRunning || started.Trigger != schedule.TriggerNow {
		t.Fatalf("run as started %+v", started)
	}

	evs := st.until("note")
	note := data(t, evs[len(evs)-1])
	if note["from"] != "nightly build" || !strings.HasPrefix(note["text"].(string), "Build is green.") {
		t.Fatalf("note %v, want the answer from the schedule", note)
	}
	run := ss.lastRun(t, sc.ID)
	if run.Outcome != schedule.OutcomeDone || run.Session == "" || run.Usage.Input != 100 || run.Usage.Output != 20 || run.Note != note["id"] || run.FinishedAt.IsZero() {
		t.Fatalf("run recorded %+v", run)
	}
	if run.Cost == nil {
		t.Errorf("run has no cost: the fake model's price is in the catalogue? %+v", run)
	}
	doc, err := ss.sessions.Load(run.Session)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.Title, "⏰ nightly build — ") {
		t.Errorf("run's session titled %q", doc.Title)
	}
	if got := textOf(lastMessage(t, ss.sessions, run.Session)); got != "Build is green." {
		t.Errorf("run's session ends with %q", got)
	}

	// The history and the listing say the same.
	resp = ss.do("GET", "/api/schedules/"+sc.ID+"/runs", nil)
	wantStatus(t, resp, http.StatusOK)
	if runs := decode[[]schedule.Run](t, resp); len(runs) != 1 || runs[0].ID != started.ID || runs[0].Outcome != schedule.OutcomeDone {
		t.Errorf("history %+v", runs)
	}
	resp = ss.do("GET", "/api/schedules", nil)
	wantStatus(t, resp, http.StatusOK)
	if list := decode[[]scheduleJSON](t, resp); len(list) != 1 || list[0].LastRun == nil || list[0].LastRun.Session != run.Session {
		t.Errorf("listing %+v", list)
	}
	// The page shows it, with a link to the run's session.
	resp = ss.do("GET", "/schedules", nil)
	wantStatus(t, resp, http.StatusOK)
	page, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(page), `href="/s/`+run.Session+`"`) || !strings.Contains(string(page), "nightly build") {
		t.Errorf("page lacks the schedule or its run's session link")
	}
}

// A run in a named session where a turn is running is skipped, and says
// so; it does not wait nor queue.
func TestScheduleRunInABusySession(t *testing.T) {
	t.Parallel()
	ss := newScheduleServer(t, true)
	work := ss.create("Work")
	st := ss.stream(t, work.ID)
	wantStatus(t, ss.send(work.ID, "[[text:5]] [[delay:300ms]]"), http.StatusAccepted)
	st.until("text.delta")
	sc := ss.add(t, `{"name":"poke","when":"@every 1h","prompt":"hello","session":"`+work.ID[:13]+`"}`) // a prefix names it
	wantStatus(t, ss.do("POST", "/api/schedules/"+sc.ID+"/run", nil), http.StatusAccepted)
	run := ss.lastRun(t, sc.ID)
	if run.Summary() != "skipped: a turn was running in the session" || run.Session != work.ID {
		t.Fatalf("run %+v, want skipped in the busy session", run)
	}
	st.until("turn.end")
}

// The API's refusals: a bad when says the parser's reason; unknown
// schedules are 404; a foreign Origin is 403; run now where another
// process runs the schedules is 409.
func TestScheduleAPIErrors(t *testing.T) {
	t.Parallel()
	ss := newScheduleServer(t, true)
	sc := ss.add(t, `{"name":"ok","when":"@daily","prompt":"hi"}`)
	tests := []struct {
		name, method, path, body string
		hdr                      []string
		status                   int
		want                     string
	}{
		{"bad when", "POST", "/api/schedules", `{"name":"x","when":"every day","prompt":"hi"}`, nil, 400, "expected exactly 5 fields, found 2"},
		{"too often", "POST", "/api/schedules", `{"name":"x","when":"@every 5s","prompt":"hi"}`, nil, 400, "at least 1m0s"},
		{"no name", "POST", "/api/schedules", `{"when":"@daily","prompt":"hi"}`, nil, 400, "needs a name"},
		{"no prompt", "POST", "/api/schedules", `{"name":"x","when":"@daily"}`, nil, 400, "needs a prompt"},
		{"bad missed", "POST", "/api/schedules", `{"name":"x","when":"@daily","prompt":"hi","missed":"twice"}`, nil, 400, "missed must be"},
		{"unknown session", "POST", "/api/schedules", `{"name":"x","when":"@daily","prompt":"hi","session":"nosuch"}`, nil, 400, "session: there is no session"},
		{"unknown deliver_to", "POST", "/api/schedules", `{"name":"x","when":"@daily","prompt":"hi","deliver_to":"nosuch"}`, nil, 400, "deliver_to"},
		{"unknown model", "POST", "/api/schedules", `{"name":"x","when":"@daily","prompt":"hi","model":"nosuch/m"}`, nil, 400, "nosuch"},
		{"unknown field", "POST", "/api/schedules", `{"name":"x","when":"@daily","prompt":"hi","cron":"x"}`, nil, 400, "unknown field"},
		{"foreign origin", "POST", "/api/schedules", `{"name":"x","when":"@daily","prompt":"hi"}`, []string{"Origin", "https://evil.example"}, 403, ""},
		{"get unknown", "GET", "/api/schedules/nosuch", "", nil, 404, "no such schedule"},
		{"patch unknown", "PATCH", "/api/schedules/nosuch", `{"enabled":false}`, nil, 404, "no such schedule"},
		{"patch bad when", "PATCH", "/api/schedules/" + sc.ID, `{"when":"61 * * * *"}`, nil, 400, "above maximum"},
		{"delete unknown", "DELETE", "/api/schedules/nosuch", "", nil, 404, "no such schedule"},
		{"run unknown", "POST", "/api/schedules/nosuch/run", "", nil, 404, "no such schedule"},
		{"runs unknown", "GET", "/api/schedules/nosuch/runs", "", nil, 404, "no such schedule"},
		{"get", "GET", "/api/schedules/" + sc.ID, "", nil, 200, `"name":"ok"`},
		{"patch", "PATCH", "/api/schedules/" + sc.ID, `{"enabled":false,"name":"renamed"}`, nil, 200, `"enabled":false`},
		{"delete", "DELETE", "/api/schedules/" + sc.ID, "", nil, 204, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			resp := ss.do(tt.method, tt.path, body, tt.hdr...)
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(string(got), tt.want) {
				t.Errorf("status %d %s, want %d with %q", resp.StatusCode, got, tt.status, tt.want)
			}
			if resp.StatusCode == 400 {
				var e struct{ Error string }
				if json.Unmarshal(got, &e) != nil || e.Error == "" {
					t.Errorf("400 without an error message: %s", got)
				}
			}
		})
	}

	other := newScheduleServer(t, false)
	sc = other.add(t, `{"name":"elsewhere","when":"@daily","prompt":"hi"}`)
	resp := other.do("POST", "/api/schedules/"+sc.ID+"/run", nil)
	wantStatus(t, resp, http.StatusConflict)
}
