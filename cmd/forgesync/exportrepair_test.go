package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/sets/casync"
)

// TestExportRepairsDamagedChunk is issue 35's item 10 through the CLI: a
// chunk file of the folder damaged in place is written again by the next
// `export`, which says so, and every chunk then decompresses to its name.
func TestExportRepairsDamagedChunk(t *testing.T) {
	host, drop, _ := gameEnv(t)
	storedPackZip(t, filepath.Join(drop, "kept-pack.zip"), "kept-pack", "1.0.0", bigPak(7, 256<<10))
	site := filepath.Join(t.TempDir(), "site")
	for _, args := range [][]string{{"sync"}, {"export", site}} {
		if code, out, errs := runCLI(t, append(args, "--config", host)...); code != cli.ExitOK {
			t.Fatalf("%s = %d\n%s%s", args[0], code, out, errs)
		}
	}
	var chunks []string
	filepath.WalkDir(filepath.Join(site, "chunks"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".cacnk") {
			chunks = append(chunks, p)
		}
		return nil
	})
	if len(chunks) == 0 {
		t.Fatal("the export wrote no chunk")
	}
	if err := os.WriteFile(chunks[0], casync.EncodeChunk([]byte("other bytes")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "export", site, "--config", host)
	if code != cli.ExitOK || !strings.Contains(out, "repaired 1 damaged file in the folder") {
		t.Fatalf("export over a damaged chunk = %d\n%s%s; want it written again and said", code, out, errs)
	}
	for _, p := range chunks {
		name := strings.TrimSuffix(filepath.Base(p), ".cacnk")
		id, err := casync.ParseChunkID(name)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(p)
		if _, err := casync.DecodeChunk(id, data, casync.DefaultMaxChunkSize); err != nil {
			t.Errorf("after the export: %v", err)
		}
	}
}
