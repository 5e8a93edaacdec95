package mycotest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Build compiles myco's command into dir and returns the binary's path.
// The package path works from any folder of the module. It builds as the
// README's start command does: without cgo (BuildEnv).
func Build(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "myco")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "myco/cmd/myco")
	cmd.Env = BuildEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build myco/cmd/myco: %w\n%s", err, out)
	}
	return bin, nil
}

// BuildEnv is the environment myco is built in, as the README's start
// command builds it: CGO_ENABLED=0, one static binary that maps no C
// library (1.5 MB less resident, docs/PERFORMANCE.md). A benchmark that
// built it otherwise would measure a binary nobody runs.
func BuildEnv() []string {
	return append(os.Environ(), "CGO_ENABLED=0")
}
