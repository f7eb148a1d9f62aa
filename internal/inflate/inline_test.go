package inflate

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHotHelpersInline checks that the compiler inlines the helpers
// huffman calls for every symbol: a call would spill the loop's state
// around it and cost about a tenth of the decoder's speed. copyMatch's
// cost is near the inliner's budget, so a change to it or to the
// compiler can tip it over.
func TestHotHelpersInline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package with -gcflags=-m")
	}
	out, err := exec.Command("go", "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	for _, name := range []string{"refill", "literal", "follow", "withExtra", "copyMatch"} {
		if !strings.Contains(string(out), "inlining call to "+name+"\n") {
			t.Errorf("go build -gcflags=-m does not inline %s in huffman; keep it under the inliner's budget", name)
		}
	}
}
