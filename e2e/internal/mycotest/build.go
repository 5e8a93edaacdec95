package mycotest

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// Build compiles myco's command into dir and returns the binary's path.
// The package path works from any folder of the module.
func Build(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "myco")
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "myco/cmd/myco").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build myco/cmd/myco: %w\n%s", err, out)
	}
	return bin, nil
}
