package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"myco/e2e/fakellm"
	"myco/server/llm"
	"myco/session"
)

// provider builds a real SDK client aimed at the fake server.
type provider struct {
	name   string
	client func(srv *fakellm.Server, images llm.ImageReader) llm.Client
}

var providers = []provider{
	{"anthropic", func(srv *fakellm.Server, images llm.ImageReader) llm.Client {
		return llm.NewAnthropic(llm.ProviderConfig{Name: "anthropic", BaseURL: srv.URL, APIKey: "test-key"}, images)
	}},
	{"openai", func(srv *fakellm.Server, images llm.ImageReader) llm.Client {
		return llm.NewOpenAI(llm.ProviderConfig{Name: "openai", BaseURL: srv.URL + "/v1"}, images)
	}},
}

var bashTool = llm.Tool{
	Name:        "bash",
	Description: "Run a shell command.",
	InputSchema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"command": map[string]any{"type": "string"}},
		"required":   []string{"command"},
	},
}

func human(text string, more ...session.Block) session.Message {
	content := append([]session.Block{{Type: session.BlockText, Text: text}}, more...)
	return session.Message{ID: "human", Role: "user", Human: true, Content: content}
}

func request(msgs ...session.Message) llm.Request {
	return llm.Request{Model: "test-model", System: "You are a test.", Messages: msgs, Tools: []llm.Tool{bashTool}, MaxTokens: 1024}
}

// stream runs one call and returns the response, the deltas seen and the
// error.
func stream(t *testing.T, c llm.Client, req llm.Request) (llm.Response, []string, error) {
	t.Helper()
	var deltas []string
	resp, err := c.Stream(context.Background(), req, func(d string) { deltas = append(deltas, d) })
	return resp, deltas, err
}

func mustStream(t *testing.T, c llm.Client, req llm.Request) (llm.Response, []string) {
	t.Helper()
	resp, deltas, err := stream(t, c, req)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return resp, deltas
}

// text joins the text blocks of a response.
func text(r llm.Response) string {
	var parts []string
	for _, b := range r.Content {
		if b.Type == session.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "")
}

func toolUses(r llm.Response) []session.Block {
	var uses []session.Block
	for _, b := range r.Content {
		if b.Type == session.BlockToolUse {
			uses = append(uses, b)
		}
	}
	return uses
}

// imageStore is a real image store on a temp folder holding one PNG.
func imageStore(t *testing.T) (*session.Images, session.ImageRef, []byte) {
	t.Helper()
	store, err := session.OpenImages(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	ref, err := store.Put(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return store, ref, buf.Bytes()
}

// lastBody decodes the body of the last request the fake received.
func lastBody(t *testing.T, srv *fakellm.Server, into any) {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the fake server received no request")
	}
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, into); err != nil {
		t.Fatalf("decode recorded body: %v", err)
	}
}
