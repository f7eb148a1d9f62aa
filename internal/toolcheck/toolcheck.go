// Package toolcheck owns the rule for tests that drive external programs
// (zip, 7z, tar, bsdtar, lua5.4, a C compiler): on a developer's machine a
// missing tool skips the test; in CI (CI=true) it fails it, because CI
// installs every tool its tests use.
package toolcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mjolnir-forge/forgesync/internal/casefold"
)

// InCI reports whether the tests run in CI, where every tool must be present.
func InCI() bool { return os.Getenv("CI") == "true" }

// Need returns the path of each named program, in order. When one is
// missing it skips the test, or fails it under CI.
func Need(t testing.TB, names ...string) []string {
	t.Helper()
	paths := make([]string, 0, len(names))
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			if InCI() {
				t.Fatalf("tool %q is missing in CI (add it to .ci/run): %v", n, err)
			}
			t.Skipf("tool %q not installed: %v", n, err)
		}
		paths = append(paths, p)
	}
	return paths
}

// Missing stops a test whose prerequisite other than a program on PATH (a
// library, a runtime, a kernel feature) is absent: it skips the test on a
// developer's machine and fails it under CI. The message should name what to
// install, e.g. the Debian package.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("missing in CI (add it to .ci/run): "+format, args...)
	}
	t.Skipf("not installed: "+format, args...)
}

// CaseInsensitiveDir returns a new empty folder on a case-insensitive,
// case-preserving file system (internal/casefold, served over FUSE as
// NTFS and APFS treat names), unmounted when the test ends, or stops the
// test as Missing does where FUSE cannot be mounted (it needs root and
// /dev/fuse; CI has both). It checks that the folder really ignores case:
// a test that passes on a case-sensitive disk proves nothing.
func CaseInsensitiveDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	unmount, err := casefold.Mount(t.TempDir(), dir, 10*time.Second)
	if err != nil {
		Missing(t, "a case-insensitive file system (FUSE, as root, with /dev/fuse): %v", err)
	}
	t.Cleanup(func() {
		if err := unmount(); err != nil {
			t.Errorf("case-insensitive folder %s: %v", dir, err)
		}
	})
	probe := filepath.Join(dir, "Probe")
	if err := os.WriteFile(probe, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "PROBE")); err != nil {
		t.Fatalf("%s does not ignore case (PROBE: %v)", dir, err)
	}
	if err := os.Remove(probe); err != nil {
		t.Fatal(err)
	}
	return dir
}
