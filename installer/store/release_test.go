package store

import (
	"bytes"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReleaseState opens a state folder written by the release before the
// store had types of its own (testdata/release-state.README.md): it lists
// the same packs and generations, reading changes no file, and saving it
// unchanged writes packs.json byte for byte as that release did.
func TestReleaseState(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/release-state")); err != nil {
		t.Fatal(err)
	}
	before := fileSums(t, dir)
	orig, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Load()
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}

	var packs []string
	for _, r := range st.Packs {
		packs = append(packs, r.ID+" "+r.Version+" "+map[bool]string{true: "enabled", false: "disabled"}[r.Enabled]+" "+r.Archive+" "+r.Manifest+" "+strings.Join(r.Content, ","))
	}
	wantPacks := []string{
		"foundry-wide 1.4.0 enabled foundry-wide-1.4.0-c3d6e54e0c2a.zip foundry-wide-ecef0a1539362387.json ",
		"glass-works 2.0.0 disabled glass-works-2.0.0-f423322db0ec.zip glass-works-d21b401d07b37309.json MJOLNIRForge/glass-works/Surfaces.ucas,MJOLNIRForge/glass-works/Surfaces.utoc",
		"lockout-gates 0.3.1 enabled lockout-gates-0.3.1-dc086430af8c.zip lockout-gates-340c2855a3ed13d3.json ",
	}
	if strings.Join(packs, "\n") != strings.Join(wantPacks, "\n") {
		t.Errorf("packs:\n%s\nwant:\n%s", strings.Join(packs, "\n"), strings.Join(wantPacks, "\n"))
	}

	// The generations as `forgesync history` of that release listed them.
	const (
		glass  = "glass-works 2.0.0 f423322db0eca7fd8f25342d4ac2439510cb70da022f07a53eeb4e8262d8de4a"
		gates  = "lockout-gates 0.3.1 dc086430af8cc72982b30f3a5a5be1298eb0a9a1d4ebe76f891950ff80e1ebdc"
		fwide  = "foundry-wide 1.4.0 c3d6e54e0c2a41691bf792e5c211a95328e91632c7e2f435aab295c0e099b18a"
		prefix = "sha256:"
	)
	wantGens := []string{
		"1 2026-12-03T09:33:11.740919689Z install " + prefix + "c634e8a99c2d35ec7c486e685ed8baf7e3fc4f450169a89d2137e6619f832e0b [" + glass + " 1]",
		"2 2026-12-03T09:33:11.806820619Z install " + prefix + "b7e9c1cd158d2f753db1c41e6f17d8ea375c8405d3d5955b52ba41da79778892 [" + glass + " 1, " + gates + " 1]",
		"3 2026-12-03T09:33:13.931663907Z drop " + prefix + "f63c1b7652c9b4906cf46e7477e0c56735a8f491e40e83c07c561d0ba8937aa7 [" + fwide + " 1, " + glass + " 1, " + gates + " 1]",
		"4 2026-12-03T09:33:13.948466506Z disable " + prefix + "af1ed61b73e38d448b753ba5ada988fc9eb0766869edb071b53cfe616131cd96 [" + fwide + " 1, " + glass + " 0, " + gates + " 1]",
	}
	var gens []string
	for _, g := range st.Generations {
		var ps []string
		for _, p := range g.Packs {
			ps = append(ps, p.ID+" "+p.Version+" "+p.SHA256+" "+map[bool]string{true: "1", false: "0"}[p.Enabled])
		}
		gens = append(gens, strings.Join([]string{strconv.Itoa(g.N), g.Time.Format(time.RFC3339Nano), string(g.Cause), g.Fingerprint, "[" + strings.Join(ps, ", ") + "]"}, " "))
	}
	if strings.Join(gens, "\n") != strings.Join(wantGens, "\n") {
		t.Errorf("generations:\n%s\nwant:\n%s", strings.Join(gens, "\n"), strings.Join(wantGens, "\n"))
	}

	after := fileSums(t, dir)
	delete(after, lockFileName) // Open's own lock, which the release's folder leaves out
	if len(after) != len(before) {
		t.Errorf("files after Load: %d; before: %d", len(after), len(before))
	}
	for name, sum := range before {
		if after[name] != sum {
			t.Errorf("%s changed by opening and reading the state", name)
		}
	}

	if err := s.Save(st); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(saved, orig) {
		t.Errorf("packs.json saved unchanged differs from the release's:\n%s\nwant:\n%s", saved, orig)
	}
}

// fileSums returns the SHA-256 of every file under dir, by slash path.
func fileSums(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	sums := map[string][32]byte{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(filepath.Join(dir, p))
		sums[p] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}
