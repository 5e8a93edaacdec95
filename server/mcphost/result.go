package mcphost

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"myco/internal/textcut"
)

// MaxResultBytes bounds the text of one result kept for the agent; the
// rest is cut from its middle, saying so.
const MaxResultBytes = 64 << 10

// maxImages bounds the images of one result.
const maxImages = 4

// Result is a tool call's outcome for the agent: its text, and the images
// it returned (which the caller keeps in the image store).
type Result struct {
	Text    string
	Images  []Image
	IsError bool
}

// Image is one image of a result.
type Image struct {
	Data      []byte
	MediaType string
}

func errorResult(format string, args ...any) Result {
	return Result{Text: fmt.Sprintf(format, args...), IsError: true}
}

// resultOf turns a server's answer into a Result: text as it is, images
// kept, a resource's text with its URI, what cannot be shown (audio, a
// binary resource) named with its size.
func resultOf(res *mcp.CallToolResult) Result {
	var parts []string
	out := Result{IsError: res.IsError}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			if len(out.Images) < maxImages {
				out.Images = append(out.Images, Image{Data: c.Data, MediaType: c.MIMEType})
			} else {
				parts = append(parts, fmt.Sprintf("[image (%s, %d bytes) not kept: at most %d images a result]", c.MIMEType, len(c.Data), maxImages))
			}
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio (%s, %d bytes) not shown]", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s: %s]", c.Name, c.URI))
		case *mcp.EmbeddedResource:
			parts = append(parts, resourceText(c.Resource))
		default:
			parts = append(parts, fmt.Sprintf("[content of type %T not shown]", c))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	out.Text = cut(strings.Join(parts, "\n"))
	if out.Text == "" && len(out.Images) == 0 {
		out.Text = "(no output)"
	}
	return out
}

func resourceText(r *mcp.ResourceContents) string {
	switch {
	case r == nil:
		return "[empty resource]"
	case r.Text != "" || len(r.Blob) == 0:
		return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
	default:
		return fmt.Sprintf("[resource %s (%s, %d bytes of binary) not shown]", r.URI, r.MIMEType, len(r.Blob))
	}
}

// cut keeps the head and tail of a text over MaxResultBytes.
func cut(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= MaxResultBytes {
		return s
	}
	head, tail := textcut.Bytes(s, MaxResultBytes/2), textcut.TailBytes(s, MaxResultBytes/2)
	return head + fmt.Sprintf("\n[… %d bytes of the result cut: results are kept to %d KB …]\n", len(s)-len(head)-len(tail), MaxResultBytes>>10) + tail
}
