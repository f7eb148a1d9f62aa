package toolcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// DesyncVersion is the desync (casync's Go implementation) the interop
// tests build and run. The module proxy serves it only at this exact
// version.
const DesyncVersion = "v1.0.4"

var desync struct {
	once sync.Once
	path string
	err  error
}

// Desync returns the path of a desync binary built from its module at
// DesyncVersion, built once and kept under the user's cache folder
// (forgesync-test/desync-v1.0.4), so later runs and other test binaries
// reuse it. When it cannot be built it stops the test as Missing does.
func Desync(t testing.TB) string {
	t.Helper()
	desync.once.Do(func() { desync.path, desync.err = buildDesync() })
	if desync.err != nil {
		Missing(t, "desync %s (built from its Go module): %v", DesyncVersion, desync.err)
	}
	return desync.path
}

// RunDesync runs desync with args and returns what it wrote, failing the
// test when it fails. desync gets an empty home folder, so a developer's
// own config ($HOME/.config/desync/config.json) changes nothing.
func RunDesync(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), Desync(t), args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("desync %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String() + stderr.String()
}

func buildDesync() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "forgesync-test", "desync-"+DesyncVersion)
	bin := filepath.Join(dir, "desync")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// `go install module@version` asks the proxy for the module's version
	// list, which it does not serve for desync; downloading the exact
	// version and building inside it needs only that version.
	dl := exec.Command("go", "mod", "download", "-json", "github.com/folbricht/desync@"+DesyncVersion)
	dl.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	dl.Dir = dir
	out, err := dl.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download desync: %w", err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download desync: no folder in %q: %v", out, err)
	}
	// A name of its own: two test binaries may build at once; the last
	// rename wins, and both binaries are the same.
	tmp, err := os.CreateTemp(dir, "desync-*.tmp")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	build := exec.Command("go", "build", "-o", tmp.Name(), "./cmd/desync")
	build.Dir = mod.Dir
	// The go command's own settings otherwise, so the standard library
	// compiled for the project's builds is reused from the build cache.
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod -buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build desync: %w: %s", err, out)
	}
	return bin, os.Rename(tmp.Name(), bin)
}
