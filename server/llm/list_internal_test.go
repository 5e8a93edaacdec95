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
