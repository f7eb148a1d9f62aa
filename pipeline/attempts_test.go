package pipeline

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mjolnir-forge/forgesync/store"
)

// TestAttemptsKeepNonUTF8Names: the tries of an archive whose name is not
// UTF-8 (For\xeat.zip) survive a save and a load, and forget keeps them
// while the archive is in processing. A JSON key replaced those bytes, so
// the count never matched again and an archive that crashes forgesync was
// tried for ever. A name that looks like the encoded form round-trips too.
func TestAttemptsKeepNonUTF8Names(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("the file system takes only valid names")
	}
	e := newEnv(t)
	p := e.open(t)
	names := []string{"For\xeat.zip", "B\xe4d.zip", "B\xf6d.zip", attemptsKeyPrefix + "Zm9v", "plain.zip"}
	want := attempts{}
	for i, n := range names {
		want[n] = attempt{Count: i%MaxAttempts + 1, Last: "the program stopped"}
		if err := os.WriteFile(filepath.Join(e.state, store.ProcessingDir, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.saveAttempts(want); err != nil {
		t.Fatal(err)
	}
	got := p.loadAttempts()
	if err := p.forget(got); err != nil {
		t.Fatal(err)
	}
	got = p.loadAttempts()
	if len(got) != len(want) {
		t.Fatalf("loadAttempts = %+q; want %+q", keys(got), keys(want))
	}
	for n, w := range want {
		if got[n] != w {
			t.Fatalf("loadAttempts()[%q] = %+v; want %+v (all: %+q)", n, got[n], w, keys(got))
		}
	}
}

func keys(a attempts) []string {
	out := make([]string, 0, len(a))
	for n := range a {
		out = append(out, n)
	}
	return out
}
