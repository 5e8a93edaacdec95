package web

// The status chip above the composer says what the session's turn is
// doing. Its words live here alone: the page renders the chip, and every
// status event and snapshot carries the same rendering (StatusChipHTML),
// so the tab never names a state itself.

// statusLabels are the chip's words for each status a session can be in
// (server/live's states, and the page's archived and locked).
var statusLabels = map[string]string{
	"idle":       "Idle",
	"thinking":   "Thinking…",
	"writing":    "Writing…",
	"tool":       "Running",
	"approval":   "Waiting for approval",
	"retrying":   "Retrying",
	"compacting": "Compacting…",
	"stopping":   "Stopping…",
	"archived":   "Archived",
	"locked":     "Open in another process",
	"closed":     "Closed",
}

// restingStatuses are those in which no turn runs: the Stop button hides
// and a message sent starts a turn rather than waiting in the queue.
var restingStatuses = map[string]bool{"idle": true, "archived": true, "locked": true, "closed": true}

// StatusView is the chip of one status and its detail (the tool running,
// the retry's reason); the zero view is idle.
type StatusView struct {
	Status string
	Detail string
}

// Name is the status, "idle" for none.
func (v StatusView) Name() string {
	if v.Status == "" {
		return "idle"
	}
	return v.Status
}

// Label is the chip's text: the state's words, then the detail.
func (v StatusView) Label() string {
	label, ok := statusLabels[v.Name()]
	if !ok {
		label = v.Status
	}
	if v.Detail != "" {
		return label + " · " + v.Detail
	}
	return label
}

// Title is the whole text on hover when a detail may be cut (the chip
// stays one line), else none.
func (v StatusView) Title() string {
	if v.Detail == "" {
		return ""
	}
	return v.Label()
}

// Running reports whether a turn runs in this status.
func (v StatusView) Running() bool { return !restingStatuses[v.Name()] }

// StatusChipHTML is the chip of status, for the status event and the
// snapshot.
func StatusChipHTML(status, detail string) string {
	// Rendering text into a fixed element fails only with its writer, and
	// a buffer does not fail.
	html, _ := renderString(StatusChip(StatusView{Status: status, Detail: detail}))
	return html
}
