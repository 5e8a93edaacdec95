package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"myco/internal/reexec"
	"myco/server/tools"
)

const secretEnv = "MYCO_TEST_SECRET"

// The agent's shell (and !command, which runs in it) cannot read myco's
// environment or memory through /proc once myco has hidden them, though
// the shell got none of the secret. A copy of this test binary stands for
// myco, as uid 65534 when the tests run as root (root reads /proc
// anyway): first as it was (the shell must read the secret, or the test
// proves nothing), then after hideSecrets, as main calls it.
func TestShellCannotReadMycoSecrets(t *testing.T) {
	if reexec.Role() == "secrets" {
		shellReadsSecrets(t)
		return
	}
	secret := secretEnv + "=sk-test-" + strings.Repeat("x", 16)
	if os.Geteuid() == 0 {
		reexec.RunAsNobody(t, "TestShellCannotReadMycoSecrets", "secrets", secret)
		return
	}
	out, err := reexec.Command(t, "TestShellCannotReadMycoSecrets", "secrets", secret).CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatal(err)
	}
}

// readSecrets is what the agent's shell tries: its parent's environment
// block and memory.
const readSecrets = `tr '\0' '\n' < /proc/$PPID/environ; exec 3< /proc/$PPID/mem && echo mem-is-open`

func shellReadsSecrets(t *testing.T) {
	secret := os.Getenv(secretEnv)
	if secret == "" {
		t.Fatal("no secret to hide")
	}
	before := shellOutput(t, readSecrets)
	if !strings.Contains(before, secret) || !strings.Contains(before, "mem-is-open") {
		t.Fatalf("before hideSecrets the shell should read the secret and open the memory; it got %q", before)
	}
	if err := hideSecrets(); err != nil {
		t.Fatal(err)
	}
	after := shellOutput(t, readSecrets)
	if strings.Contains(after, secret) || strings.Contains(after, "mem-is-open") {
		t.Errorf("the shell read myco's secrets: %q", after)
	}
	t.Logf("after hideSecrets the shell got: %q", after)
}

// shellOutput runs command in a new shell of the agent's kind, without
// the secret in its environment.
func shellOutput(t *testing.T, command string) string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, secretEnv+"=") {
			env = append(env, kv)
		}
	}
	sh, err := tools.NewShell(t.TempDir(), env)
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	res, err := sh.Run(context.Background(), command, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return res.Output
}

// BenchmarkHideSecrets is the start-up cost of hiding the secrets.
func BenchmarkHideSecrets(b *testing.B) {
	for b.Loop() {
		if err := hideSecrets(); err != nil {
			b.Fatal(err)
		}
	}
}
