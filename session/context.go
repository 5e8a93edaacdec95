package session

// Token estimates, for a thread no model call has measured yet (a new
// successor thread, a session just opened): the usual four characters a
// token, and a fixed cost for an image, whose bytes are never read.

// imageTokens is what an image is assumed to cost.
const imageTokens = 1500

// EstimateText guesses the tokens of s.
func EstimateText(s string) int { return len(s) / 4 }

// EstimateTokens guesses the tokens of a message as a model call sends it.
func EstimateTokens(m Message) int {
	n := 4
	for _, b := range m.Content {
		switch b.Type {
		case BlockImage:
			n += imageTokens
		case BlockFile:
			// A text file is its text; a PDF's bytes are mostly not text
			// (fonts, images, compression): a rough guess.
			if b.MediaType == MediaPDF {
				n += int(b.Size / 100)
			} else {
				n += int(b.Size / 4)
			}
		default:
			n += EstimateText(b.Text) + (len(b.Input)+len(b.Content))/4
		}
	}
	return n
}

// Reported is the context the thread's last model call reported: the
// usage on the last of its own messages (not those carried from the thread
// before, whose usage measured that thread). ok is false when none has.
func (t Thread) Reported() (used int, ok bool) {
	own := t.Messages[min(t.Carried, len(t.Messages)):]
	for i := len(own) - 1; i >= 0; i-- {
		if u := own[i].Usage; u != nil {
			return u.Context(), true
		}
	}
	return 0, false
}

// Estimate guesses the context the thread's next model call will send:
// its summary and the messages a model sees (not those a retry replaced),
// without the caller's system prompt.
func (t Thread) Estimate() int {
	n := EstimateText(t.Summary)
	for _, m := range t.Messages {
		if m.ReplacedBy == "" {
			n += EstimateTokens(m)
		}
	}
	return n
}

// Context is what the gauge shows for the thread: the reported context,
// else the estimate (estimated is then true; the caller may add its system
// prompt), and 0 for a thread with nothing in it.
func (t Thread) Context() (used int, estimated bool) {
	if used, ok := t.Reported(); ok {
		return used, false
	}
	if t.Summary == "" && len(t.Messages) == 0 {
		return 0, false
	}
	return t.Estimate(), true
}
