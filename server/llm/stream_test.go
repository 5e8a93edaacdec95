package llm_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"myco/e2e/fakellm"
	"myco/session"
)

func TestStreamTextArrivesInOrderedDeltas(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			resp, deltas := mustStream(t, p.client(srv, nil), request(human("write [[text:20]]")))

			if len(deltas) < 2 {
				t.Fatalf("got %d deltas, want several", len(deltas))
			}
			if got := strings.Join(deltas, ""); got != text(resp) {
				t.Errorf("deltas joined = %q, final text %q", got, text(resp))
			}
			if n := len(strings.Fields(text(resp))); n != 20 {
				t.Errorf("got %d words, want 20: %q", n, text(resp))
			}
			if resp.StopReason != "end_turn" || resp.Model != "test-model" {
				t.Errorf("stop %q model %q, want end_turn test-model", resp.StopReason, resp.Model)
			}
		})
	}
}

func TestToolRoundTrip(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			c := p.client(srv, nil)
			ask := human(`list files [[tool:bash {"command":"ls -la"}]]`)

			first, _ := mustStream(t, c, request(ask))
			uses := toolUses(first)
			if first.StopReason != "tool_use" || len(uses) != 1 {
				t.Fatalf("stop %q, tool uses %+v; want one tool_use", first.StopReason, uses)
			}
			if uses[0].Name != "bash" || uses[0].ID == "" || string(uses[0].Input) != `{"command":"ls -la"}` {
				t.Errorf("tool use = %s %s %s", uses[0].ID, uses[0].Name, uses[0].Input)
			}
			if text(first) != "Calling bash." {
				t.Errorf("text before the call = %q", text(first))
			}

			result := session.Block{Type: session.BlockToolResult, ToolUseID: uses[0].ID, Content: jsontext.Value(`"total 2\nmain.go\ngo.mod"`)}
			second, _ := mustStream(t, c, request(ask,
				session.Message{ID: "a1", Role: "assistant", Content: first.Content},
				session.Message{ID: "r1", Role: "user", Content: []session.Block{result}},
			))
			if want := "Tool result: total 2\nmain.go\ngo.mod"; text(second) != want || second.StopReason != "end_turn" {
				t.Errorf("after the result: %q (%s), want %q", text(second), second.StopReason, want)
			}
		})
	}
}

// Ollama ends tool calls with finish_reason "stop": the client must look
// at the message, not at the reason.
func TestOpenAIToolCallsDecidedFromMessage(t *testing.T) {
	srv := fakellm.Start(t)
	resp, _ := mustStream(t, providers[1].client(srv, nil), request(human(`[[tool:bash {"command":"pwd"}]] [[stop:stop]]`)))
	if resp.StopReason != "tool_use" || len(toolUses(resp)) != 1 {
		t.Errorf("stop %q with %d tool uses, want tool_use with 1", resp.StopReason, len(toolUses(resp)))
	}
}

func TestStopReasonMaxTokens(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			resp, _ := mustStream(t, p.client(srv, nil), request(human("[[text:5]] [[stop:max_tokens]]")))
			if resp.StopReason != "max_tokens" {
				t.Errorf("stop = %q, want max_tokens", resp.StopReason)
			}
		})
	}
}

func TestUsageParsed(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			resp, _ := mustStream(t, p.client(srv, nil), request(human("[[usage:in=100,out=20,cache_read=50,cache_write=30]]")))
			// input is the uncached part for both (OpenAI's prompt_tokens
			// holds its cached_tokens); OpenAI reports no cache writes.
			want := session.Usage{InputTokens: 100, OutputTokens: 20, CacheReadInputTokens: 50}
			if p.name == "anthropic" {
				// The fake says its writes' lifetime, as Anthropic does.
				want.CacheCreationInputTokens, want.CacheCreation5mInputTokens = 30, 30
			}
			if diff := cmp.Diff(want, resp.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
		})
	}
}

func TestImageBlocksReachTheServer(t *testing.T) {
	store, ref, pngBytes := imageStore(t)
	encoded := base64.StdEncoding.EncodeToString(pngBytes)
	stored := session.Block{Type: session.BlockImage, SHA256: ref.SHA256, MediaType: ref.MediaType}
	legacy := session.Block{Type: session.BlockImage, MediaType: "image/png", Data: encoded}

	t.Run("anthropic", func(t *testing.T) {
		srv := fakellm.Start(t)
		mustStream(t, providers[0].client(srv, store), request(human("look", stored, legacy)))
		var body struct {
			Messages []struct {
				Content []struct {
					Type   string
					Source struct {
						Type      string
						MediaType string `json:"media_type"`
						Data      string
					}
				}
			}
		}
		lastBody(t, srv, &body)
		for _, i := range []int{1, 2} {
			b := body.Messages[0].Content[i]
			if b.Type != "image" || b.Source.Type != "base64" || b.Source.MediaType != "image/png" || b.Source.Data != encoded {
				t.Errorf("block %d = %+v, want a base64 image/png of the stored bytes", i, b)
			}
		}
	})
	t.Run("openai", func(t *testing.T) {
		srv := fakellm.Start(t)
		mustStream(t, providers[1].client(srv, store), request(human("look", stored, legacy)))
		var body struct {
			Messages []struct {
				Role    string
				Content json.RawMessage // a string for the system message
			}
		}
		lastBody(t, srv, &body)
		var parts []struct {
			Type     string
			ImageURL struct{ URL string } `json:"image_url"`
		}
		if err := json.Unmarshal(body.Messages[1].Content, &parts); err != nil {
			t.Fatalf("user content %s: %v", body.Messages[1].Content, err)
		}
		for _, i := range []int{1, 2} {
			if b := parts[i]; b.Type != "image_url" || b.ImageURL.URL != "data:image/png;base64,"+encoded {
				t.Errorf("part %d = %+v, want the image as a data URL", i, b)
			}
		}
	})
}

// A tool result may carry images (a screenshot, a read image file): they
// reach Anthropic inside the result and OpenAI in a user message after it.
func TestToolResultWithImage(t *testing.T) {
	store, ref, _ := imageStore(t)
	content := jsontext.Value(`[{"type":"text","text":"the screenshot"},{"type":"image","sha256":"` + ref.SHA256 + `","media_type":"image/png"}]`)
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			c := p.client(srv, store)
			ask := human(`[[tool:bash {"command":"shot"}]]`)
			first, _ := mustStream(t, c, request(ask))
			result := session.Block{Type: session.BlockToolResult, ToolUseID: toolUses(first)[0].ID, Content: content}
			second, _ := mustStream(t, c, request(ask,
				session.Message{ID: "a1", Role: "assistant", Content: first.Content},
				session.Message{ID: "r1", Role: "user", Content: []session.Block{result}},
			))
			if !strings.Contains(text(second), "the screenshot") {
				t.Errorf("reply %q does not quote the result", text(second))
			}
		})
	}
}

// Empty text blocks (a stopped reply) are refused by the API; the fake
// refuses them too, so this passes only if the client leaves them out.
func TestEmptyMessagesLeftOut(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			srv := fakellm.Start(t)
			msgs := []session.Message{
				human("first"),
				{ID: "a1", Role: "assistant", StopReason: session.StopInterrupted, Content: []session.Block{{Type: session.BlockText}}},
				human("second"),
			}
			resp, _ := mustStream(t, p.client(srv, nil), request(msgs...))
			// Both APIs merge consecutive user turns, and so does the fake.
			if text(resp) != "You said: first second" {
				t.Errorf("reply = %q", text(resp))
			}
		})
	}
}
