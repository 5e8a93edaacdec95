package web_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"myco/session"
	"myco/web"
)

// fork is a document forked from session "p" ("Parent") after its
// second turn, in the parent's second thread.
func fork() *session.Document {
	d := doc(
		session.Thread{Messages: chat(2)},
		session.Thread{Messages: []session.Message{
			human("q1", "first question"), agent("a1", "first answer"),
			human("q2", "  Why   does the\nbuild fail on a clean checkout of the repository with Go 1.26?"), agent("a2", "second answer"),
		}},
	)
	d.Title = ""
	d.Parent = &session.Parent{Session: "p", Thread: 1, Message: "a2", Title: "Parent"}
	return d
}

func TestSessionViewLineage(t *testing.T) {
	t1 := t0.Add(time.Hour)
	tests := []struct {
		name      string
		doc       func() *session.Document
		lineage   web.Lineage
		title     string
		parent    *web.ParentView
		parentURL string
		forks     []web.ForkView
	}{
		{
			name:  "not a fork, no forks",
			doc:   func() *session.Document { return doc(session.Thread{Messages: chat(2)}) },
			title: "T",
		},
		{
			name:      "untitled fork",
			doc:       fork,
			title:     "Fork of Parent",
			parent:    &web.ParentView{SessionID: "p", Thread: 1, Message: "a2", Title: "Parent", Point: "turn 2 of thread 2, “Why does the build fail on a clean checkout of the…”"},
			parentURL: "/s/p#m-a2",
		},
		{
			name:      "parent renamed since: the link says its title now, the fork keeps its name",
			doc:       fork,
			lineage:   web.Lineage{ParentTitle: "Parent, renamed"},
			title:     "Fork of Parent",
			parent:    &web.ParentView{SessionID: "p", Thread: 1, Message: "a2", Title: "Parent, renamed", Point: "turn 2 of thread 2, “Why does the build fail on a clean checkout of the…”"},
			parentURL: "/s/p#m-a2",
		},
		{
			name: "fork with a title of its own, parent deleted",
			doc: func() *session.Document {
				d := fork()
				d.Title = "Try the other way"
				return d
			},
			lineage:   web.Lineage{ParentGone: true},
			title:     "Try the other way",
			parent:    &web.ParentView{SessionID: "p", Thread: 1, Message: "a2", Title: "Parent", Point: "turn 2 of thread 2, “Why does the build fail on a clean checkout of the…”", Gone: true},
			parentURL: "/s/p#m-a2",
		},
		{
			name: "fork that kept none of the thread",
			doc: func() *session.Document {
				d := doc()
				d.Title = ""
				d.Threads = []session.Thread{{}}
				d.Parent = &session.Parent{Session: "p"}
				return d
			},
			title:     "Fork of Untitled",
			parent:    &web.ParentView{SessionID: "p", Title: "Untitled", Point: "the start"},
			parentURL: "/s/p",
		},
		{
			name: "a parent lists its forks",
			doc:  func() *session.Document { return doc(session.Thread{Messages: chat(2)}) },
			lineage: web.Lineage{Forks: []session.Summary{
				{ID: "f1", Parent: sessionID, ParentTitle: "T", UpdatedAt: t1},
				{ID: "f2", Title: "Named", Parent: sessionID, ParentTitle: "T", UpdatedAt: t0, Archived: true},
			}},
			title: "T",
			forks: []web.ForkView{
				{ID: "f1", Title: "Fork of T", UpdatedAt: t1},
				{ID: "f2", Title: "Named", UpdatedAt: t0, Archived: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := web.NewSessionView(tt.doc(), web.SessionViewOptions{Lineage: tt.lineage})
			if v.Title != tt.title {
				t.Errorf("Title = %q, want %q", v.Title, tt.title)
			}
			switch {
			case tt.parent == nil && v.Parent != nil:
				t.Errorf("Parent = %+v, want none", v.Parent)
			case tt.parent != nil && v.Parent == nil:
				t.Errorf("Parent = nil, want %+v", tt.parent)
			case tt.parent != nil:
				if diff := cmp.Diff(*tt.parent, *v.Parent, cmpopts.IgnoreUnexported(web.ParentView{})); diff != "" {
					t.Errorf("Parent (-want +got):\n%s", diff)
				}
				if got := v.Parent.URL(); got != tt.parentURL {
					t.Errorf("Parent.URL() = %q, want %q", got, tt.parentURL)
				}
			}
			if diff := cmp.Diff(tt.forks, v.Forks, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Forks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSessionPageLineage(t *testing.T) {
	d := fork()
	d.Threads[1].Messages = append(d.Threads[1].Messages, human("q3", "third"))
	html := render(t, web.SessionPage(web.NewSessionView(d, web.SessionViewOptions{})))
	page := parseHTML(t, html)
	if got := byTestID(page, "session-title").Text(); got != "Fork of Parent" {
		t.Errorf("heading %q", got)
	}
	if got, _ := byTestID(page, "session-title").Attr("data-untitled"); got != "Fork of Parent" {
		t.Errorf("data-untitled %q: the tab keeps it when a title event says empty", got)
	}
	if got := page.Find("title").Text(); got != "Fork of Parent" {
		t.Errorf("<title> %q", got)
	}
	link := byTestID(page, "lineage-link")
	if href, _ := link.Attr("href"); href != "/s/p#m-a2" || link.Text() != "Parent" {
		t.Errorf("lineage link %q %q", href, link.Text())
	}
	// Fork is on the latest thread's messages only (the earlier thread's
	// load as a fragment, which has none).
	latest := byTestID(page, "thread")
	if n, want := latest.Find(`[data-testid="fork-message"]`).Length(), latest.Find(`[data-testid="message"]`).Length(); n != want || n == 0 {
		t.Errorf("%d Fork buttons on %d latest messages", n, want)
	}
	if n := byTestID(page, "earlier-thread").Find(`[data-testid="fork-message"]`).Length(); n != 0 {
		t.Errorf("%d Fork buttons on the earlier thread", n)
	}
	earlier, err := web.MessagesFragment(d, 0, -1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if frag := parseHTML(t, render(t, web.Messages(earlier))); frag.Find(`[data-testid="fork-message"]`).Length() != 0 {
		t.Error("an earlier thread's fragment offers Fork")
	}
	if byTestID(page, "forks-panel").Length() != 0 {
		t.Error("a session without forks shows a Forks panel")
	}
}

func TestArchivedPageDelete(t *testing.T) {
	v := homeView()
	v.Archived = true
	page := parseHTML(t, render(t, web.HomePage(v)))
	row := page.Find(`[data-testid="session-row"]`).First()
	if row.Find(`[data-testid="delete-button"]`).Length() != 1 {
		t.Fatal("an archived row has no Delete")
	}
	confirm := row.Find(`[data-testid="delete-confirm"]`)
	if url, _ := confirm.Attr("data-url"); url != "/api/sessions/0193c7b2-6c1e-7c4a-9a0e-3f5b2d1e8a90" {
		t.Errorf("Confirm sends to %q", url)
	}
	if _, hidden := confirm.Parent().Attr("hidden"); !hidden {
		t.Error("the question is shown before Delete was pressed")
	}
	v.Archived = false
	active := parseHTML(t, render(t, web.HomePage(v)))
	if active.Find(`[data-testid="delete-button"]`).Length() != 0 {
		t.Error("an active row offers Delete: archive comes first")
	}
}
