package native

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRuntimeHeaderRules holds NATIVE.md's lines for the runtime header:
// only <stddef.h>, <stdint.h>, <string.h> and <math.h>; no heap; no
// mutable static state (function-local static tables must be const).
func TestRuntimeHeaderRules(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("lobby", "forge_doors_runtime.h"))
	if err != nil {
		t.Fatal(err)
	}
	allowed := []string{"<stddef.h>", "<stdint.h>", "<string.h>", "<math.h>"}
	include := regexp.MustCompile(`^\s*#\s*include\s+(\S+)`)
	global := regexp.MustCompile(`^(const\s+)?[A-Za-z_][A-Za-z0-9_]*(\s+|\s*\*\s*)[A-Za-z_][A-Za-z0-9_]*\s*(=|;|\[)`)
	heap := regexp.MustCompile(`\b(malloc|calloc|realloc|free|alloca)\s*\(`)
	for i, line := range strings.Split(string(src), "\n") {
		n := i + 1
		if m := include.FindStringSubmatch(line); m != nil && !slices.Contains(allowed, m[1]) {
			t.Errorf("forge_doors_runtime.h:%d includes %s; only %v are allowed", n, m[1], allowed)
		}
		if heap.MatchString(line) {
			t.Errorf("forge_doors_runtime.h:%d uses the heap: %s", n, strings.TrimSpace(line))
		}
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "static ") && !strings.HasPrefix(trimmed, "static const ") {
			// at file scope only function definitions may be static
			if line == trimmed && strings.Contains(line, "(") {
				continue
			}
			t.Errorf("forge_doors_runtime.h:%d holds mutable static state: %s", n, trimmed)
		}
		// a file-scope object definition: "type name;", "type name = …",
		// "type name[…]" with no parenthesis (not a function)
		if global.MatchString(line) && !strings.Contains(line, "(") && !strings.HasPrefix(line, "typedef ") {
			t.Errorf("forge_doors_runtime.h:%d looks like a global variable: %s", n, trimmed)
		}
	}
}
