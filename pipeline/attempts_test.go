package pipeline

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/mjolnir-forge/forgesync/installer/store"
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
	if err := p.forget(got, false); err != nil {
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

// TestAttemptsTriesAppendedAreFolded: a try is one line appended after the
// counts; a load counts each line once and writes the counts again, the
// lines folded in, so that a second load counts them no more. Lines a
// power loss cut or zeroed at the end are left out; lines appended to no
// file count from nothing.
func TestAttemptsTriesAppendedAreFolded(t *testing.T) {
	e := newEnv(t)
	p := e.open(t)
	path := filepath.Join(e.state, attemptsFile)
	if err := p.saveAttempts(attempts{"a.zip": {Count: 1, Last: "the program stopped"}}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.zip", "b.zip", "a.zip", attemptsKeyPrefix + "x\n.zip"} {
		if err := p.appendTry(n); err != nil {
			t.Fatal(err)
		}
	}
	want := attempts{"a.zip": {Count: 3, Last: "the program stopped"}, "b.zip": {Count: 1}, attemptsKeyPrefix + "x\n.zip": {Count: 1}}
	for range 2 {
		if got := p.loadAttempts(); !maps.Equal(got, want) {
			t.Fatalf("loadAttempts = %+v; want %+v", got, want)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil || !json.Valid(data) || data[0] != '{' {
		t.Fatalf("%s after a load = %q, %v; want the counts alone", attemptsFile, data, err)
	}

	torn := append(slices.Clone(data), "\"b.zip\"\n\"a.z"...)
	torn = append(torn, make([]byte, 16)...)
	if err := os.WriteFile(path, torn, 0o600); err != nil {
		t.Fatal(err)
	}
	want["b.zip"] = attempt{Count: 2}
	if got := p.loadAttempts(); !maps.Equal(got, want) {
		t.Fatalf("loadAttempts with a torn end = %+v; want %+v", got, want)
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := p.appendTry("c.zip"); err != nil {
		t.Fatal(err)
	}
	if got := p.loadAttempts(); !maps.Equal(got, attempts{"c.zip": {Count: 1}}) {
		t.Fatalf("loadAttempts of tries alone = %+v; want c.zip once", got)
	}
}
