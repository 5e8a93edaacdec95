package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// anthropicPrompt is a Messages request as the prompt cache sees it: its
// blocks in cache order (tools, then system, then each message's content
// blocks), each with the hash of the prefix through it, the tokens through
// it and its breakpoint.
type anthropicPrompt struct {
	model  string
	blocks []promptBlock
}

type promptBlock struct {
	hash      [32]byte
	tokens    int           // of the prefix through this block
	ttl       time.Duration // a breakpoint's lifetime; 0: no breakpoint
	cacheable bool          // may carry a breakpoint (not a thinking block)
}

// The parts of a Messages request the cache reads.
type anthropicCacheRequest struct {
	Model        string            `json:"model"`
	CacheControl json.RawMessage   `json:"cache_control"`
	Tools        []json.RawMessage `json:"tools"`
	System       json.RawMessage   `json:"system"`
	Messages     []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Thinking   json.RawMessage `json:"thinking"`
	ToolChoice json.RawMessage `json:"tool_choice"`
}

// parseAnthropicPrompt reads the blocks and breakpoints of a Messages
// request, and refuses what the API refuses: a malformed cache_control,
// more than four breakpoints, a 1-hour breakpoint after a 5-minute one.
func parseAnthropicPrompt(body []byte) (*anthropicPrompt, error) {
	var req anthropicCacheRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("request body is not valid JSON: %w", err)
	}
	b := promptBuilder{hash: seed(providerAnthropic, req.Model)}
	for i, t := range req.Tools {
		if err := b.add("tool", t); err != nil {
			return nil, fmt.Errorf("tools.%d: %w", i, err)
		}
	}
	if err := b.addContent("system", req.System); err != nil {
		return nil, fmt.Errorf("system: %w", err)
	}
	// Thinking and tool_choice are not blocks, but changing them
	// invalidates the cached messages (not the tools and system).
	settings, err := canonAll(req.Thinking, req.ToolChoice)
	if err != nil {
		return nil, err
	}
	b.hash = chain(b.hash, "messages", settings)
	for i, m := range req.Messages {
		if err := b.addContent("message "+m.Role, m.Content); err != nil {
			return nil, fmt.Errorf("messages.%d: %w", i, err)
		}
	}
	if err := b.automatic(req.CacheControl); err != nil {
		return nil, fmt.Errorf("cache_control: %w", err)
	}
	if err := checkBreakpoints(b.blocks); err != nil {
		return nil, err
	}
	return &anthropicPrompt{model: req.Model, blocks: b.blocks}, nil
}

// promptBuilder hashes blocks into a prefix one by one.
type promptBuilder struct {
	hash   [32]byte
	tokens int
	blocks []promptBlock
}

// addContent adds a string (one text block) or a list of blocks.
func (b *promptBuilder) addContent(tag string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		// A string is the text block it stands for, so a client that
		// switches between the two forms keeps its cache.
		block, _ := json.Marshal(map[string]string{"type": "text", "text": s})
		return b.add(tag, block)
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return fmt.Errorf("want a string or a list of blocks: %w", err)
	}
	for j, block := range blocks {
		if err := b.add(fmt.Sprintf("%s %d", tag, j), block); err != nil {
			return fmt.Errorf("%d: %w", j, err)
		}
	}
	return nil
}

// add hashes one block into the prefix. tag tells where it sits, so the
// same text as a tool, a system block or a user message is another prefix.
func (b *promptBuilder) add(tag string, raw json.RawMessage) error {
	content, err := canon(raw, true)
	if err != nil {
		return err
	}
	var head struct {
		Type         string          `json:"type"`
		CacheControl json.RawMessage `json:"cache_control"`
	}
	_ = json.Unmarshal(raw, &head) // a tool or a block: an object
	ttl, err := breakpointTTL(head.CacheControl)
	if err != nil {
		return fmt.Errorf("cache_control: %w", err)
	}
	cacheable := head.Type != "thinking" && head.Type != "redacted_thinking"
	if ttl > 0 && !cacheable {
		return fmt.Errorf("cache_control: not allowed on a %s block", head.Type)
	}
	b.hash = chain(b.hash, tag, content)
	b.tokens += tokensOf(content)
	b.blocks = append(b.blocks, promptBlock{hash: b.hash, tokens: b.tokens, ttl: ttl, cacheable: cacheable})
	return nil
}

// automatic applies the request's top-level cache_control ("automatic
// caching") to the last cacheable block, unless that block has its own.
func (b *promptBuilder) automatic(raw json.RawMessage) error {
	ttl, err := breakpointTTL(raw)
	if err != nil || ttl == 0 {
		return err
	}
	for i := len(b.blocks) - 1; i >= 0; i-- {
		if b.blocks[i].cacheable {
			if b.blocks[i].ttl == 0 {
				b.blocks[i].ttl = ttl
			}
			return nil
		}
	}
	return nil
}

// breakpointTTL reads a cache_control: 0 when there is none.
func breakpointTTL(raw json.RawMessage) (time.Duration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var cc struct {
		Type string `json:"type"`
		TTL  string `json:"ttl"`
	}
	if err := json.Unmarshal(raw, &cc); err != nil {
		return 0, fmt.Errorf("want an object: %w", err)
	}
	if cc.Type != "ephemeral" {
		return 0, fmt.Errorf("type: input should be 'ephemeral', got %q", cc.Type)
	}
	switch cc.TTL {
	case "", "5m":
		return ttl5m, nil
	case "1h":
		return ttl1h, nil
	}
	return 0, fmt.Errorf("ttl: input should be '5m' or '1h', got %q", cc.TTL)
}

// checkBreakpoints enforces the API's limits on breakpoints.
func checkBreakpoints(blocks []promptBlock) error {
	n, short := 0, false
	for _, bl := range blocks {
		if bl.ttl == 0 {
			continue
		}
		n++
		if bl.ttl == ttl1h && short {
			return fmt.Errorf("a cache_control with ttl '1h' must not come after one with ttl '5m': longer lifetimes come first")
		}
		short = short || bl.ttl == ttl5m
	}
	if n > maxBreakpoints {
		return fmt.Errorf("a maximum of %d blocks with cache_control may be provided. Found %d", maxBreakpoints, n)
	}
	return nil
}

// canonAll joins the canonical bytes of several values.
func canonAll(values ...json.RawMessage) ([]byte, error) {
	var out []byte
	for _, v := range values {
		if len(bytes.TrimSpace(v)) == 0 {
			v = json.RawMessage("null")
		}
		c, err := canon(v, false)
		if err != nil {
			return nil, err
		}
		out = append(append(out, c...), 0)
	}
	return out, nil
}

// settleAnthropic works out the request's input figures and updates the
// cache: the read is the longest live entry at a block boundary within
// lookbackBlocks before a breakpoint (the breakpoint's own included); what
// lies between the read and the last breakpoint long enough to cache is
// written; the rest is input. Every breakpoint long enough to cache is
// stored (or refreshed) with its lifetime, and the entry read is
// refreshed.
func (p *promptCache) settleAnthropic(pr *anthropicPrompt) usage {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	blocks := pr.blocks
	hit, entry := p.longestRead(blocks, now)
	read := 0
	if entry != nil {
		read = blocks[hit].tokens
		p.read(entry, now)
	}
	u := usage{cacheRead: read}
	end := read // the prefix the cache holds once this request is done
	for _, bl := range blocks {
		if bl.ttl == 0 || bl.tokens < p.minTokens {
			continue
		}
		if bl.tokens > end {
			u.cacheWrite += bl.tokens - end
			if bl.ttl == ttl1h {
				u.cacheWrite1h += bl.tokens - end
			}
			end = bl.tokens
		}
		p.write(bl.hash, cacheEntry{provider: providerAnthropic, model: pr.model, tokens: bl.tokens, ttl: bl.ttl}, now)
	}
	if n := len(blocks); n > 0 {
		u.in = blocks[n-1].tokens - end
	}
	p.count(u)
	return u
}

// longestRead finds the furthest block whose prefix is cached and live,
// looking back from each breakpoint.
func (p *promptCache) longestRead(blocks []promptBlock, now time.Time) (int, *cacheEntry) {
	hit, found := -1, (*cacheEntry)(nil)
	for i, bl := range blocks {
		if bl.ttl == 0 {
			continue
		}
		for j := i; j >= max(0, i-lookbackBlocks) && j > hit; j-- {
			if e := p.live(blocks[j].hash, now); e != nil {
				hit, found = j, e
				break
			}
		}
	}
	return hit, found
}
