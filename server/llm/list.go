package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
)

// maxListed bounds what one provider's listing keeps: OpenAI lists about a
// hundred models, a local server a handful; a list past this is a server
// that lost its mind, not a menu.
const maxListed = 1000

// ServedModel is a model a provider says it serves (GET /v1/models).
// Only its ID is kept: windows and prices come from the catalogue and
// settings (profiles), which the compaction threshold follows too, so the
// list never shows a window myco does not use.
type ServedModel struct {
	ID string
}

// ListModels asks provider which models it serves, through its SDK:
// Anthropic's Models.List, or the OpenAI one, which Ollama, vLLM,
// llama.cpp and LM Studio answer too. A provider that cannot be called
// gives an error wrapping ErrNoProvider.
func (r *Registry) ListModels(ctx context.Context, provider string) ([]ServedModel, error) {
	c, ok := r.clients[provider]
	if !ok {
		return nil, fmt.Errorf("provider %q: %s: %w", provider, r.fix(provider), ErrNoProvider)
	}
	l, ok := c.(interface {
		list(context.Context) ([]ServedModel, error)
	})
	if !ok {
		return nil, fmt.Errorf("provider %q cannot list its models", provider)
	}
	return l.list(ctx)
}

// list pages through Anthropic's models, leaving out retired ones, which
// no request can use any more.
func (c *anthropicClient) list(ctx context.Context) ([]ServedModel, error) {
	pager := c.sdk.Models.ListAutoPaging(ctx, anthropic.ModelListParams{Limit: anthropic.Int(maxListed)})
	var out []ServedModel
	for pager.Next() && len(out) < maxListed {
		m := pager.Current()
		if m.Lifecycle == anthropic.ModelInfoLifecycleRetired {
			continue
		}
		out = append(out, ServedModel{ID: m.ID})
	}
	if err := pager.Err(); err != nil {
		return nil, c.classify(ctx, err, false)
	}
	return out, nil
}

// list pages through an OpenAI-compatible server's models; of OpenAI's
// own, only those a chat completion takes.
func (c *openaiClient) list(ctx context.Context) ([]ServedModel, error) {
	pager := c.models.ListAutoPaging(ctx)
	var out []ServedModel
	for pager.Next() && len(out) < maxListed {
		id := pager.Current().ID
		if c.official && !chatModel(id) {
			continue
		}
		out = append(out, ServedModel{ID: id})
	}
	if err := pager.Err(); err != nil {
		return nil, c.classify(ctx, err, false)
	}
	return out, nil
}

// notChat are words in the IDs of the models api.openai.com lists that no
// chat completion takes (embeddings, speech, images, moderation, realtime
// and legacy completions): /model offers models to talk to. A local
// server lists what it serves and is taken at its word.
var notChat = []string{"embedding", "tts", "whisper", "dall-e", "image", "moderation", "transcribe", "realtime", "audio", "sora", "davinci", "babbage", "computer-use"}

func chatModel(id string) bool {
	for _, w := range notChat {
		if strings.Contains(id, w) {
			return false
		}
	}
	return true
}
