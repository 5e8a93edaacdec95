// Package lsptest gives tests a gopls: $MYCO_GOPLS, or one built from the
// pin in tools/gopls, so a fresh clone needs only Go.
package lsptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Version is the gopls tools/gopls pins; the built binary is kept under
// this name in the temporary folder and reused by later runs.
const Version = "v0.23.0"

var (
	once  sync.Once
	built string
	err   error
)

// Gopls is the path of a gopls for tests. Without one the test is
// skipped, except under CI=true, where it fails: the check must run.
func Gopls(t testing.TB) string {
	t.Helper()
	once.Do(func() { built, err = find() })
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("gopls is needed in CI: %v", err)
		}
		t.Skipf("no gopls: %v", err)
	}
	return built
}

func find() (string, error) {
	if p := os.Getenv("MYCO_GOPLS"); p != "" {
		return p, nil
	}
	out := filepath.Join(os.TempDir(), "myco-gopls-"+Version, "gopls")
	if st, err := os.Stat(out); err == nil && st.Mode().IsRegular() {
		return out, nil
	}
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module: %w", err)
	}
	dir := filepath.Join(filepath.Dir(strings.TrimSpace(string(gomod))), "tools", "gopls")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	// Built beside, then renamed: test binaries of two packages may build
	// it at once, and neither may run a half-written file.
	tmp := fmt.Sprintf("%s.%d", out, os.Getpid())
	cmd := exec.Command("go", "build", "-o", tmp, "golang.org/x/tools/gopls")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building gopls in %s: %w\n%s", dir, err, b)
	}
	return out, os.Rename(tmp, out)
}
