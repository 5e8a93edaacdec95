package live

import (
	"strings"
	"testing"

	"myco/profiles"
	"myco/server/event"
	"myco/server/tools"
)

// The person's !command runs in the agent's shell, so what it prints is
// what the agent's bash sees: no provider key (the reproduction
// was `env | grep ANTHROPIC` showing it), no secret-looking variable, and
// one the person kept on purpose.
func TestShellDoesNotInheritProviderKeys(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-live-test-0123456789")
	t.Setenv("LOCAL_LLM", "local-llm-value-0123456789")
	t.Setenv("DEPLOY_TOKEN", "deploy-token-0123456789")
	t.Setenv("KEPT_TOKEN", "kept-token-0123456789")
	t.Setenv("PLAIN_SETTING", "plain-0123456789")
	e := newFileEnv(t, func(o *Options) {
		withSettings(o, func(st *profiles.Settings) {
			st.ShellEnvDrop, st.ShellEnvKeep = []string{tools.SecretNames, "LOCAL_LLM"}, []string{"KEPT_TOKEN"}
		})
	})
	s := e.newSession(t)
	id, err := s.RunCommand("env; echo done-env")
	if err != nil {
		t.Fatal(err)
	}
	var out string
	for {
		ev := e.events.next(t, "note")
		if n := ev.data.(event.Note); n.ID == id && n.Exit != nil {
			out = n.Text
			break
		}
	}
	if !strings.Contains(out, "done-env") {
		t.Fatalf("the command did not run to its end:\n%s", out)
	}
	for _, hidden := range []string{"ANTHROPIC_API_KEY", "sk-ant-live-test", "LOCAL_LLM", "DEPLOY_TOKEN"} {
		if strings.Contains(out, hidden) {
			t.Errorf("the shell sees %s:\n%s", hidden, out)
		}
	}
	for _, seen := range []string{"KEPT_TOKEN=kept-token-0123456789", "PLAIN_SETTING=plain-0123456789"} {
		if !strings.Contains(out, seen) {
			t.Errorf("the shell does not see %s:\n%s", seen, out)
		}
	}
}
