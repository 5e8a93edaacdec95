package llm

import "testing"

func TestChatModel(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"gpt-5", true}, {"gpt-4.1-mini", true}, {"o4-mini", true}, {"gpt-4o-search-preview", true},
		{"text-embedding-3-large", false}, {"tts-1-hd", false}, {"whisper-1", false}, {"dall-e-3", false},
		{"gpt-image-1", false}, {"omni-moderation-latest", false}, {"gpt-4o-transcribe", false},
		{"gpt-4o-realtime-preview", false}, {"gpt-4o-audio-preview", false}, {"davinci-002", false},
	}
	for _, tt := range tests {
		if got := chatModel(tt.id); got != tt.want {
			t.Errorf("chatModel(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestExplicitCacheModel(t *testing.T) {
	for model, want := range map[string]bool{
		"gpt-5.6": true, "gpt-5.6-mini": true, "gpt-5.6-2026-07-01": true, "gpt-5.10": true, "gpt-6": true, "gpt-6.1-nano": true,
		"gpt-5.5": false, "gpt-5": false, "gpt-5-mini": false, "gpt-4o": false, "o3": false, "gpt-5.6x": false, "my-gpt-5.6": false, "": false,
	} {
		if got := explicitCacheModel(model); got != want {
			t.Errorf("explicitCacheModel(%q) = %v, want %v", model, got, want)
		}
	}
}
