// Package toolcheck owns the rule for tests that drive external programs
// (zip, 7z, tar, bsdtar, lua5.4, a C compiler): on a developer's machine a
// missing tool skips the test; in CI (CI=true) it fails it, because CI
// installs every tool its tests use.
package toolcheck

import (
	"os"
	"os/exec"
	"testing"
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
