package web

import (
	"bytes"
	"context"

	"github.com/a-h/templ"

	"myco/session"
)

// The HTML the live session's tool events carry (server/live renders
// through these, injected): the page's own components, so what a tab
// swaps in is what a reload shows.

// ToolCallHTML renders the card of a tool call as the page shows it before
// its outcome is recorded, for the tool.start event.
func ToolCallHTML(use session.Block) (string, error) {
	return renderString(toolCall(newToolCallView(use)))
}

// ToolResultHTML renders a tool's recorded outcome as the page shows it
// inside the call's card, for the tool.end event.
func ToolResultHTML(result session.Block) (string, error) {
	return renderString(toolResult(newToolResultView(result)))
}

// renderString renders c to a string: the HTML an event carries.
func renderString(c templ.Component) (string, error) {
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		return "", err
	}
	return buf.String(), nil
}
