package event

// ThinkingDelta is reasoning appended to a streaming message's thinking
// block, before its text: the tab shows it folded ("Thinking…"), and
// message.end brings the stored block.
type ThinkingDelta struct {
	Message string `json:"message"`
	Text    string `json:"text"`
}

func (ThinkingDelta) Name() string { return "thinking.delta" }
