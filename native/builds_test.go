package native

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSupportedBuildsOnePlace: the release's build allowlist is set once,
// in the Makefile, which compiles the DLL and links forgesync with it; the
// Go default (a build without make) and the header's default agree with it.
func TestSupportedBuildsOnePlace(t *testing.T) {
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^SUPPORTED_BUILDS := (\S+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile does not set SUPPORTED_BUILDS")
	}
	release := strings.Split(string(m[1]), ",")
	for _, use := range []string{"-DFD_SUPPORTED_BUILDS=", "native.supportedBuilds=$(SUPPORTED_BUILDS)"} {
		if !strings.Contains(string(mk), use) {
			t.Errorf("the Makefile does not pass the allowlist as %s", use)
		}
	}
	if got := SupportedBuilds(); !slices.Equal(got, release) {
		t.Errorf("SupportedBuilds() = %q; the Makefile sets %q", got, release)
	}
	h, err := os.ReadFile("lobby/forge_doors_runtime.h")
	if err != nil {
		t.Fatal(err)
	}
	def := regexp.MustCompile(`(?m)^#define FD_SUPPORTED_BUILDS (.+)$`).FindSubmatch(h)
	if def == nil || string(def[1]) != `"`+strings.Join(release, `", "`)+`"` {
		t.Errorf("the header's default FD_SUPPORTED_BUILDS is %q; want the release's %q", def, release)
	}
}
