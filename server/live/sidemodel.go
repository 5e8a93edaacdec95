package live

import (
	"errors"
	"fmt"
	"strings"

	"myco/server/llm"
	"myco/session"
)

// summaryMaxTokens bounds a compaction summary's answer.
const summaryMaxTokens = 4096

// errNoSideModel means no candidate model of a side job could be called.
var errNoSideModel = errors.New("no model can be called")

// sideModel is a model chosen for a side job (a title, a compaction
// summary), with its client and the ID to send.
type sideModel struct {
	name   string // provider/model-id
	id     string
	client llm.Client
}

// titleModel picks the model that titles the session: fast_model when
// set, else title_model, else the session's own model; the first whose
// provider can be called. A person with only a local OpenAI-compatible
// server thus gets titles from their own model although title_model
// names an Anthropic one by default.
func (s *Session) titleModel() (sideModel, error) {
	st := s.m.settings()
	return s.sideClient("title", st.FastModel, st.TitleModel, s.model())
}

// summaryModel picks the model that writes a compaction summary of
// transcript: fast_model when set and its context window holds the
// transcript and the answer, else the session's own model (title_model
// is not a candidate: it was never meant for summaries).
func (s *Session) summaryModel(transcript string) (sideModel, error) {
	fast := s.m.settings().FastModel
	if fast != "" && s.m.opts.Limits != nil {
		need := session.EstimateText(compactPrompt+transcript) + summaryMaxTokens
		if window := s.m.opts.Limits(fast).ContextWindow; window < need {
			s.m.log.Info("compaction summary not on fast_model: the thread does not fit its window",
				"session", s.id, "fast_model", fast, "window", window, "need", need)
			fast = ""
		}
	}
	return s.sideClient("summary", fast, s.model())
}

// sideClient returns the first of candidates ("" skipped) whose provider
// can be called. Each one passed over is logged with the reason, so a
// person who set fast_model or title_model learns why it is not used.
func (s *Session) sideClient(job string, candidates ...string) (sideModel, error) {
	var reasons []string
	tried := map[string]bool{}
	for _, name := range candidates {
		if name == "" || tried[name] {
			continue
		}
		tried[name] = true
		client, id, err := s.m.opts.Models.Client(name)
		if err == nil {
			return sideModel{name: name, id: id, client: client}, nil
		}
		s.m.log.Info("model passed over", "job", job, "session", s.id, "model", name, "err", err)
		reasons = append(reasons, err.Error())
	}
	return sideModel{}, fmt.Errorf("%s: %w: %s", job, errNoSideModel, strings.Join(reasons, "; "))
}
