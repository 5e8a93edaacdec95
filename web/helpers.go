package web

import (
	"net/http"
	"strconv"
)

// Small functions the components call; the ones worth testing on their own
// live with the view models.

func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func errorTitle(status int) string {
	if text := http.StatusText(status); text != "" {
		return strconv.Itoa(status) + " " + text
	}
	return "Error " + strconv.Itoa(status)
}

func listPage(v HomeView) string {
	if v.Subagents {
		return "subagents"
	}
	if v.Archived {
		return "archived"
	}
	return "home"
}

func sessionLayout(v SessionView) LayoutView {
	l := LayoutView{
		Title:            v.Title,
		Page:             "session",
		Profile:          v.Profile,
		SessionID:        v.ID,
		Archived:         v.Archived,
		NotificationsOff: v.NotificationsOff, NotifyAfter: v.NotifyAfter,
	}
	if v.Streams() {
		l.EventsURL, l.EventsSeq = v.EventsURL(), v.EventsSeq
	}
	return l
}

// threadLabel names a thread for people, who count from one.
func threadLabel(t ThreadView) string {
	return "Thread " + strconv.Itoa(t.Index+1)
}

func imageAlt(mediaType string) string {
	if mediaType == "" {
		return "Image"
	}
	return "Image (" + mediaType + ")"
}

// modelOr names the model a session uses: its own, or the profile's default.
func modelOr(model string) string {
	if model == "" {
		return "default"
	}
	return model
}

// pageScript is the entry module of a page (static/page-*.js): the one
// script it loads, which imports what that page uses and nothing else.
// The error page needs none.
func pageScript(page string) string {
	switch page {
	case "home", "archived":
		return "page-home.js"
	case "session":
		return "page-session.js"
	case "settings":
		return "page-settings.js"
	case "schedules":
		return "page-schedules.js"
	case "import":
		return "page-import.js"
	}
	return ""
}
