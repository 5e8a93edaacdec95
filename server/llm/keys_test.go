package llm_test

import (
	"errors"
	"strings"
	"testing"

	"myco/profiles"
	"myco/server/llm"
)

// TestStoredKey: a key stored in the profile configures its provider
// without the environment, and comes before the variable when both are
// set; removing it falls back to the variable.
func TestStoredKey(t *testing.T) {
	dir := t.TempDir()
	settings := profiles.DefaultSettings()
	if llm.NewProfileRegistry(settings, env(nil), nil, dir).Configured() {
		t.Fatal("configured with no key at all")
	}
	if err := profiles.SaveKey(dir, "anthropic", "sk-ant-stored\n"); err != nil {
		t.Fatal(err)
	}
	reg := llm.NewProfileRegistry(settings, env(map[string]string{"ANTHROPIC_API_KEY": "sk-env"}), nil, dir)
	if _, _, err := reg.Client("anthropic/claude-haiku-4-5"); err != nil || !reg.Stored("anthropic") {
		t.Errorf("with a stored key: client error %v, stored %v; want a client from the stored key", err, reg.Stored("anthropic"))
	}
	refused := llm.Explain(&llm.Error{Provider: "anthropic", Status: 401, Err: errors.New("401 Unauthorized")}, reg.KeyEnv)
	if !strings.Contains(refused.Reason, "stored in the profile") || strings.Contains(refused.Reason, "ANTHROPIC_API_KEY") {
		t.Errorf("a refused stored key is explained as %q, want the stored key named, not the variable", refused.Reason)
	}
	if err := profiles.RemoveKey(dir, "anthropic"); err != nil {
		t.Fatal(err)
	}
	reg = llm.NewProfileRegistry(settings, env(map[string]string{"ANTHROPIC_API_KEY": "sk-env"}), nil, dir)
	if _, _, err := reg.Client("anthropic/claude-haiku-4-5"); err != nil || reg.Stored("anthropic") {
		t.Errorf("after Remove: client error %v, stored %v; want the variable's key", err, reg.Stored("anthropic"))
	}
}
