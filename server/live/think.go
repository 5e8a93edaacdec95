package live

import (
	"fmt"
	"slices"
	"strings"

	"myco/profiles"
	"myco/server/event"
	"myco/server/llm"
	"myco/session"
)

// Steering is what settings say of reasoning and personas.
type Steering struct {
	// Think is the settings' think: the level of a session that chose
	// none (off when empty).
	Think string
	// Thinks reports whether a model reasons on request
	// (profiles.Settings.ModelThinks); nil: none does.
	Thinks func(model string) bool
	// Personalities are the settings' personas by name.
	Personalities map[string]string
}

// SteeringOf is what settings s say of reasoning effort and personas.
func SteeringOf(s profiles.Settings) Steering {
	return Steering{Think: s.Think, Thinks: s.ModelThinks, Personalities: s.Personalities}
}

// SteeringView is a session's reasoning effort and persona as the tab
// shows them (GET /api/sessions/{id}/steering).
type SteeringView struct {
	Model string `json:"model"`
	// Think is the session's own level, "" when it follows the settings;
	// Effective the level its calls use; Supported whether its model
	// reasons at all (when not, the level is kept and not sent).
	Think         string   `json:"think"`
	Effective     string   `json:"effective"`
	Supported     bool     `json:"supported"`
	Levels        []string `json:"levels"`
	Personality   string   `json:"personality"`
	Personalities []string `json:"personalities"`
	// Chip is what the page's steering chip says: the level when the
	// session thinks, and the persona, "" when neither is set.
	Chip string `json:"chip"`
}

// View is d's steering under st; defaultModel names the model of a
// session that names none.
func (st Steering) View(d *session.Document, defaultModel string) SteeringView {
	model := d.ModelOr(defaultModel)
	v := SteeringView{
		Model: model, Think: d.Think, Effective: st.level(d),
		Supported:   st.Thinks != nil && st.Thinks(model),
		Levels:      append(slices.Clone(profiles.ThinkLevels), profiles.ThinkDefault),
		Personality: d.Personality, Personalities: names(st.Personalities),
	}
	v.Chip = v.chip()
	return v
}

// chip is the steering chip's text: "think high", "(not supported)"
// after it when the model does not reason on request, then the persona.
func (v SteeringView) chip() string {
	var parts []string
	if v.Effective != "" && v.Effective != "off" {
		p := "think " + v.Effective
		if !v.Supported {
			p += " (not supported)"
		}
		parts = append(parts, p)
	}
	if v.Personality != "" {
		parts = append(parts, v.Personality)
	}
	return strings.Join(parts, " · ")
}

// level is the reasoning effort d asks for, before asking its model.
func (st Steering) level(d *session.Document) string {
	if d.Think != "" {
		return d.Think
	}
	if st.Think != "" {
		return st.Think
	}
	return profiles.ThinkOff
}

// Apply sets d's level and persona as a PATCH asks (nil leaves one as it
// is). A level or persona myco does not know is an error naming the valid
// ones, and nothing changes. "default" follows the settings again; "off"
// (or "") drops the persona.
func (st Steering) Apply(d *session.Document, think, personality *string) error {
	next := *d
	if think != nil {
		level := strings.ToLower(strings.TrimSpace(*think))
		switch {
		case level == profiles.ThinkDefault || level == "":
			next.Think = ""
		case slices.Contains(profiles.ThinkLevels, level):
			next.Think = level
		default:
			return fmt.Errorf("%w: think %q: want one of %s, %s", ErrSteering, *think, strings.Join(profiles.ThinkLevels, ", "), profiles.ThinkDefault)
		}
	}
	if personality != nil {
		name := strings.TrimSpace(*personality)
		switch _, ok := st.Personalities[name]; {
		case name == "" || name == "off":
			next.Personality = ""
		case ok:
			next.Personality = name
		case len(st.Personalities) == 0:
			return fmt.Errorf("%w: personality %q: settings.json has no personalities (add \"personalities\": {\"terse\": \"Answer in as few words as you can.\"})", ErrSteering, name)
		default:
			return fmt.Errorf("%w: personality %q: want one of %s, or off", ErrSteering, name, strings.Join(names(st.Personalities), ", "))
		}
	}
	d.Think, d.Personality = next.Think, next.Personality
	return nil
}

// ErrSteering is a level or persona that does not exist: the request is
// at fault (a 400).
var ErrSteering = fmt.Errorf("unknown setting")

func names(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for name := range m {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// loopWithoutThinking reports whether msgs continue an Anthropic tool loop
// whose answer did not think: /think was turned on while the turn ran.
// Anthropic refuses thinking then (a tool loop's last answer must start
// with its thinking), so the turn goes on without it, and the level
// takes effect from the next turn. Other providers take reasoning_effort
// at any call, and send no thinking back to check.
func loopWithoutThinking(msgs []session.Message, model string) bool {
	if provider, _, err := profiles.SplitModel(model); err != nil || provider != llm.ProviderAnthropic {
		return false
	}
	n := len(msgs)
	if n < 2 || msgs[n-1].Role != "user" || msgs[n-2].Role != "assistant" {
		return false
	}
	answer := msgs[n-2].Content
	calls := slices.ContainsFunc(answer, func(b session.Block) bool { return b.Type == session.BlockToolUse })
	thought := len(answer) > 0 && (answer[0].Type == session.BlockThinking || answer[0].Type == session.BlockRedactedThinking)
	return calls && !thought
}

// applyThinking adds the session's reasoning effort and persona to req, a call of
// model (provider/model-id): the level only when the model reasons, the
// persona's instructions at the end of the system prompt.
func (s *Session) applyThinking(req *llm.Request, model, msgID string) {
	st := SteeringOf(s.m.settings())
	var d session.Document
	s.w.View(func(doc *session.Document) { d.Think, d.Personality = doc.Think, doc.Personality })
	if level := st.level(&d); level != profiles.ThinkOff && st.Thinks != nil && st.Thinks(model) && !loopWithoutThinking(req.Messages, model) {
		req.Think = level
	}
	if text := st.Personalities[d.Personality]; text != "" {
		req.System += "\n\nPersonality (" + d.Personality + "), chosen by the person for this session:\n" + text
	}
	req.OnThinking = func(delta string) {
		if delta != "" {
			s.publish(event.ThinkingDelta{Message: msgID, Text: delta})
		}
	}
}
