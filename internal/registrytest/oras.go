package registrytest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// OrasVersion is the version of the oras CLI that [Oras] builds.
const OrasVersion = "v1.3.6"

var (
	orasOnce sync.Once
	orasPath string
	orasErr  error
)

// Oras returns the path of the oras CLI, built from its module at
// OrasVersion with `go install` into os.UserCacheDir()/forgesync-test the
// first time and reused after. When it cannot be built it skips the test,
// or fails it under CI.
func Oras(t testing.TB) string {
	t.Helper()
	orasOnce.Do(func() { orasPath, orasErr = buildOras() })
	if orasErr != nil {
		toolcheck.Missing(t, "the oras CLI %s (built with go install oras.land/oras/cmd/oras@%s): %v", OrasVersion, OrasVersion, orasErr)
	}
	return orasPath
}

func buildOras() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the cache folder: %w", err)
	}
	dir := filepath.Join(cache, "forgesync-test", "oras-"+OrasVersion)
	exe := "oras"
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	bin := filepath.Join(dir, exe)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("find the go command: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("build oras: %w", err)
	}
	// Other test processes may build at the same time: each installs into
	// its own folder and renames the binary into place.
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", fmt.Errorf("build oras: %w", err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(goTool, "install", "oras.land/oras/cmd/oras@"+OrasVersion)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOFLAGS=", "GOWORK=off", "GOOS=", "GOARCH=", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install oras.land/oras/cmd/oras@%s: %w\n%s", OrasVersion, err, out)
	}
	if err := os.Rename(filepath.Join(tmp, exe), bin); err != nil {
		return "", fmt.Errorf("build oras: %w", err)
	}
	return bin, nil
}
