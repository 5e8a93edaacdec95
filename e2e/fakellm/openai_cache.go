package fakellm

import (
	"encoding/json"
	"fmt"
	"time"
)

// openaiPrompt is a chat completions request as OpenAI's prompt cache sees
// it: the prompt's tokens and the hash of its prefix at every step of
// openaiStepTokens, in the cache of its model and prompt_cache_key.
type openaiPrompt struct {
	model, key string
	tokens     int
	steps      [][32]byte // steps[k-1]: the prefix of k steps
	ttl        time.Duration
}

// The parts of a chat completions request the cache reads.
type openaiCacheRequest struct {
	Model                string            `json:"model"`
	Tools                []json.RawMessage `json:"tools"`
	Messages             []json.RawMessage `json:"messages"`
	PromptCacheKey       string            `json:"prompt_cache_key"`
	PromptCacheRetention string            `json:"prompt_cache_retention"`
}

// parseOpenAIPrompt serialises the tools and then the messages, each as
// its canonical JSON, and hashes the result step by step.
func parseOpenAIPrompt(body []byte) (*openaiPrompt, error) {
	var req openaiCacheRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("request body is not valid JSON: %w", err)
	}
	p := &openaiPrompt{model: req.Model, key: req.PromptCacheKey, ttl: openaiTTL}
	switch req.PromptCacheRetention {
	case "", "in_memory":
	case "24h":
		p.ttl = openaiTTL24h
	default:
		return nil, fmt.Errorf("prompt_cache_retention: want \"in_memory\" or \"24h\", got %q", req.PromptCacheRetention)
	}
	serial, err := openaiSerial(req.Tools, req.Messages)
	if err != nil {
		return nil, err
	}
	p.tokens = tokensOf(serial)
	const stepBytes = openaiStepTokens * bytesPerToken
	h := seed(providerOpenAI, req.Model, req.PromptCacheKey)
	for end := stepBytes; end <= len(serial); end += stepBytes {
		h = chain(h, "", serial[end-stepBytes:end])
		p.steps = append(p.steps, h)
	}
	return p, nil
}

// openaiSerial is the prompt as bytes: [tools][messages].
func openaiSerial(tools, messages []json.RawMessage) ([]byte, error) {
	var out []byte
	for _, list := range [][]json.RawMessage{tools, messages} {
		out = append(out, '[')
		for i, v := range list {
			c, err := canon(v, false)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, c...)
		}
		out = append(out, ']')
	}
	return out, nil
}

// settleOpenAI works out the cached tokens and updates the cache: the
// longest live prefix of whole steps, from openaiMinTokens on, that leaves
// at least one token of the prompt to read; every such prefix of this
// prompt is then stored, or refreshed.
func (p *promptCache) settleOpenAI(pr *openaiPrompt) usage {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	cacheable := cacheableSteps(pr)
	cached := 0
	for k := len(cacheable); k >= 1; k-- {
		if e := p.live(cacheable[k-1], now); e != nil && k*openaiStepTokens >= openaiMinTokens {
			p.read(e, now)
			cached = k * openaiStepTokens
			break
		}
	}
	for k := openaiMinTokens / openaiStepTokens; k <= len(cacheable); k++ {
		p.write(cacheable[k-1], cacheEntry{provider: providerOpenAI, model: pr.model, key: pr.key, tokens: k * openaiStepTokens, ttl: pr.ttl}, now)
	}
	u := usage{in: pr.tokens - cached, cacheRead: cached}
	p.count(u)
	return u
}

// cacheableSteps are the prefixes that may be cached: the whole steps
// that end before the prompt's last token. None when the prompt is
// shorter than openaiMinTokens.
func cacheableSteps(pr *openaiPrompt) [][32]byte {
	if pr.tokens < openaiMinTokens {
		return nil
	}
	n := min(len(pr.steps), (pr.tokens-1)/openaiStepTokens)
	return pr.steps[:n]
}
