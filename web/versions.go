package web

// A message's Edit and Regenerate (versions.templ): a person's message is
// edited, an answer regenerated, each making a new version of it
// (session/versions.go). Only the latest thread's messages change; those
// of an earlier thread say why they do not.

// Editable reports whether the message is the person's, in the latest
// thread, and can be edited into a new version.
func (m MessageView) Editable() bool {
	return m.Human && m.Forkable && m.Command == "" && m.ReplacedBy == ""
}

// Regenerable reports whether the message is an answer of the latest
// thread that can be asked for again (a folded replaced one cannot).
func (m MessageView) Regenerable() bool {
	return m.Role == "assistant" && m.Forkable && m.ReplacedBy == ""
}

// inEarlierThread: the message is kept in a thread before a compaction,
// where nothing is edited or regenerated.
func (m MessageView) inEarlierThread() bool {
	return m.ID != "" && !m.Forkable && m.ReplacedBy == "" && (m.Human || m.Role == "assistant")
}

// earlierThreadNote says why an earlier thread's message has no working
// Edit or Regenerate.
const earlierThreadNote = "This message is in an earlier thread, before the conversation was compacted: it can be read and copied, not edited or regenerated. Only the latest thread's messages can be."
