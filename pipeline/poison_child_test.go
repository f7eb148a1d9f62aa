//go:build unix

package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/intake"
)

// dyingUnpacker makes the isolated unpacker die (exit 3, saying nothing)
// on its first die starts, then work; it returns the file counting starts.
func dyingUnpacker(t *testing.T, p *Pipeline, die int) string {
	t.Helper()
	dir := t.TempDir()
	count := filepath.Join(dir, "starts")
	script := filepath.Join(dir, "unpacker.sh")
	text := "#!/bin/sh\nn=$(cat \"$STARTS\" 2>/dev/null || echo 0)\necho $((n+1)) > \"$STARTS\"\n" +
		"if [ \"$n\" -lt \"$DIE\" ]; then exit 3; fi\nexec \"$TESTBIN\"\n"
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	iso := testIsolation()
	iso.Command = []string{"/bin/sh", script}
	iso.Env = append(iso.Env, "STARTS="+count, "DIE="+string(rune('0'+die)), "TESTBIN="+os.Args[0])
	isolateFor(t, p, iso)
	return count
}

func starts(t *testing.T, count string) string {
	t.Helper()
	data, err := os.ReadFile(count)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// TestUnpackerDiesOnceIsRetried: an unpacker that dies once (killed by
// something else, the machine short of memory) is not a verdict on the
// archive: it is unpacked again and installs.
func TestUnpackerDiesOnceIsRetried(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	count := dyingUnpacker(t, p, 1)
	e.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0"})
	mustSync(t, p, map[string]Result{"a1.zip": ResultInstalled})
	if n := starts(t, count); n != "2" {
		t.Fatalf("the unpacker started %s times; want 2", n)
	}
}

// TestPoisonAfterThreeDeaths: an archive the unpacker dies on three times
// is poison: rejected with the crash rule, saying so.
func TestPoisonAfterThreeDeaths(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	count := dyingUnpacker(t, p, 9)
	e.dropPack(t, "a1.zip", spec{id: "pack-a", version: "1.0.0"})
	sum := mustSync(t, p, map[string]Result{"a1.zip": ResultRejected})
	if n := starts(t, count); n != "3" {
		t.Fatalf("the unpacker started %s times; want 3", n)
	}
	r := rejectedReasons(sum, "a1.zip")
	if len(r) != 1 || !strings.HasPrefix(r[0], intake.RuleUnpackerCrashed) || !strings.Contains(r[0], "3 times") {
		t.Fatalf("reasons = %q; want the crash rule, 3 times", r)
	}
}
