package profiles

import "strings"

// fallbackContextWindow is assumed for a model nobody described: small
// enough that automatic compaction starts before most servers refuse.
const fallbackContextWindow = 128000

// knownWindows are the context windows of model families, by a prefix of
// the provider's model ID, for models settings do not describe.
var knownWindows = []struct {
	prefix string
	window int
}{
	{"claude-", 200000},
	{"gpt-4.1", 1047576},
	{"gpt-4o", 128000},
	{"gpt-5", 400000},
	{"o3", 200000},
	{"o4", 200000},
}

// ModelLimits returns what settings say of model ("provider/model-id"),
// with the context window filled in from the model's family when settings
// leave it out. CompactAt of the result is the automatic compaction
// threshold: auto_compact_at when set (0 turns it off), else 80% of the
// window.
func (s Settings) ModelLimits(model string) Model {
	m := s.Models[model]
	if m.ContextWindow == 0 {
		m.ContextWindow = knownWindow(model)
	}
	return m
}

func knownWindow(model string) int {
	_, id, err := SplitModel(model)
	if err != nil {
		id = model
	}
	for _, k := range knownWindows {
		if strings.HasPrefix(id, k.prefix) {
			return k.window
		}
	}
	return fallbackContextWindow
}
