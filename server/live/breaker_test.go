package live

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"myco/profiles"
	"myco/server/llm"
	"myco/session"
)

// loopModel is a model stuck in a tool loop: every call with tools asks
// for one more read_file (another file each time) and reports a context
// over any small threshold; a call without tools is a compaction summary
// of summaryWords words.
type loopModel struct {
	summaryWords int

	mu        sync.Mutex
	calls     int
	summaries int
}

func (m *loopModel) Client(string) (llm.Client, string, error) { return m, "loop-model", nil }
func (m *loopModel) Configured() bool                          { return true }
func (m *loopModel) Help() string                              { return "" }

func (m *loopModel) Stream(_ context.Context, req llm.Request, onText func(string)) (llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(req.Tools) == 0 {
		m.summaries++
		text := "Summary:" + strings.Repeat(" word", m.summaryWords)
		onText(text)
		return llm.Response{Content: []session.Block{{Type: session.BlockText, Text: text}}, StopReason: "end_turn",
			Usage: session.Usage{InputTokens: 100, OutputTokens: int64(m.summaryWords)}}, nil
	}
	m.calls++
	input := fmt.Sprintf(`{"path":"file-%d"}`, m.calls)
	return llm.Response{
		Content:    []session.Block{{Type: session.BlockToolUse, ID: fmt.Sprintf("call-%d", m.calls), Name: "read_file", Input: []byte(input)}},
		StopReason: "tool_use",
		Usage:      session.Usage{InputTokens: 50_000, OutputTokens: 10},
	}, nil
}

func (m *loopModel) counts() (calls, summaries int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls, m.summaries
}

// A turn whose context is over the compaction threshold at every round
// compacts at the first due round; a compaction that leaves the context
// still over the threshold (its summary is as large as what it replaced)
// turns automatic compaction off, so a loop of many rounds makes one
// summary, not one per round. Compactions that do shrink the context run
// each time it is due again: the turn's call limit bounds those.
func TestCompactionBreakerStopsACompactingLoop(t *testing.T) {
	tests := []struct {
		name          string
		summaryWords  int // 5 bytes a word: 20,000 words are over the threshold
		wantSummaries int
		wantOff       bool
	}{
		{name: "summaries that do not shrink the context", summaryWords: 20_000, wantSummaries: 1, wantOff: true},
		{name: "summaries that do", summaryWords: 10, wantSummaries: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := &loopModel{summaryWords: tt.summaryWords}
			e := newFileEnv(t, func(o *Options) {
				o.Models = model
				o.DefaultModel = "fake/loop-model"
				o.Settings = profiles.NewLiveSettings(profiles.Settings{MaxModelCalls: 10})
				o.Limits = func(string) Limits { return Limits{ContextWindow: 200_000, CompactAt: 20_000} }
			})
			s := e.titledSession(t)
			failure := e.turn(t, s, "loop")
			calls, summaries := model.counts()
			if calls != 10 || !strings.Contains(failure, "after 10 model calls") {
				t.Fatalf("%d calls, turn error %q: want the turn stopped at its limit of 10", calls, failure)
			}
			if summaries != tt.wantSummaries {
				t.Errorf("%d compaction summaries in %d rounds, want %d", summaries, calls, tt.wantSummaries)
			}
			s.mu.Lock()
			off := s.autoOff
			s.mu.Unlock()
			if got := strings.Contains(off, "over the threshold"); got != tt.wantOff {
				t.Errorf("automatic compaction off: %q, want off: %v", off, tt.wantOff)
			}
		})
	}
}

// A compaction a budget refuses is not the compaction's failure: automatic
// compaction stays on (it runs once the budget is raised), and the turn
// stops at its next call, saying which budget is spent.
func TestBudgetRefusedCompactionKeepsAutoCompaction(t *testing.T) {
	model := &loopModel{summaryWords: 10}
	e := newFileEnv(t, func(o *Options) {
		o.Models = model
		o.DefaultModel = "fake/loop-model"
		// The first call (50,010 tokens reported) fits; nothing after it.
		o.Settings = profiles.NewLiveSettings(profiles.Settings{Budgets: profiles.Budgets{SessionTokens: 54_000}})
		o.Limits = func(string) Limits { return Limits{ContextWindow: 200_000, CompactAt: 20_000} }
	})
	s := e.titledSession(t)
	failure := e.turn(t, s, "loop")
	if calls, summaries := model.counts(); calls != 1 || summaries != 0 {
		t.Fatalf("%d calls, %d summaries; want the first call only", calls, summaries)
	}
	if !strings.Contains(failure, "the session's budget of 54,000 tokens is spent: 50,010 used") {
		t.Fatalf("turn error %q, want the session's budget", failure)
	}
	s.mu.Lock()
	off := s.autoOff
	s.mu.Unlock()
	if off != "" {
		t.Fatalf("automatic compaction turned off by a budget: %q", off)
	}
}
