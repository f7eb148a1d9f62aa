package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// treeOf describes every file and folder under root: its type, mode, size,
// modification time and, for a file, the SHA-256 of its bytes. Two equal
// descriptions are a tree left byte-identical.
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		desc := fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			desc += " " + hex.EncodeToString(sum[:])
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// treeChanges says what differs between two descriptions of treeOf.
func treeChanges(before, after map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(after)) {
		switch b, ok := before[k]; {
		case !ok:
			out = append(out, "made "+k)
		case b != after[k]:
			out = append(out, "changed "+k+": "+b+" -> "+after[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(before)) {
		if _, ok := after[k]; !ok {
			out = append(out, "removed "+k)
		}
	}
	return out
}

// TestReadingChangesNothing is issue 37's "Reading writes": every command
// that reads (packs, lock, export's reading of the machine or of a folder
// of archives with --from, status, diff, history, scan, package-id,
// lift-preview, utoc, schema, version, help, openapi) leaves the game, its
// config and the state byte-identical, on a fresh config (no state folder,
// no inventory published yet) and on a populated one with an archive
// waiting in drop: no state folder or lock file made, no recovery, no
// publication, nothing claimed. What a command is asked to write (lock -o,
// export DIR) goes outside the tree.
func TestReadingChangesNothing(t *testing.T) {
	out := t.TempDir()
	archives := filepath.Join(out, "archives")
	pack := filepath.Join(archives, "waiting.zip")
	if err := os.MkdirAll(archives, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pack, packZip(t, "lockout-gates", "0.3.1", 0), 0o644); err != nil {
		t.Fatal(err)
	}
	reads := func(tag string) [][]string {
		lockFile := filepath.Join(out, tag+".lock")
		return [][]string{
			{"packs"}, {"packs", "--json"}, {"lock"}, {"lock", "-o", lockFile},
			{"export", filepath.Join(out, tag+"-export")}, {"diff", lockFile},
			{"lock", "--from", archives}, {"export", filepath.Join(out, tag+"-from"), "--from", archives},
			{"status"}, {"status", "--json"}, {"history"}, {"history", "--json"},
			{"scan", pack}, {"scan", filepath.Join("examples", "foundry-wide")},
			{"package-id", "/Game/MJOLNIR/Forge/x/Surfaces/MI_GlassCyan"},
			{"lift-preview", filepath.Join("examples", "foundry-wide"), "lift_pad_4x4"},
			{"utoc", filepath.Join("examples", "glass-works", "content", "Surfaces.utoc")},
			{"schema"}, {"version"}, {"help"}, {"openapi"},
		}
	}
	check := func(t *testing.T, g *game, tag string) {
		for _, args := range reads(tag) {
			before := treeOf(t, g.root)
			code, stdout, stderr := g.exe(t, args...)
			if changes := treeChanges(before, treeOf(t, g.root)); len(changes) > 0 {
				t.Errorf("%v (exit %d) changed the tree:\n%v\n%s%s", args, code, changes, stdout, stderr)
			}
		}
	}
	t.Run("fresh", func(t *testing.T) {
		g := newGame(t)
		os.Remove(g.drop) // as setup leaves it: no inventory folder yet either
		os.Remove(g.inv)
		check(t, g, "fresh")
	})
	t.Run("populated", func(t *testing.T) {
		g := newGame(t)
		g.dropPacks(t)
		if err := os.WriteFile(filepath.Join(g.drop, "waiting.zip"), packZip(t, "lockout-gates", "0.3.1", 0), 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, g, "populated")
	})
}
