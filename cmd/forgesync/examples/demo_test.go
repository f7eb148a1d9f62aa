package examples

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/config"
)

func TestLayOutDemo(t *testing.T) {
	root := filepath.Join(t.TempDir(), "demo")
	cfg, err := layOutDemo(root)
	if err != nil {
		t.Fatalf("layOutDemo = %v", err)
	}
	if cfg != filepath.Join(root, "forgesync.toml") {
		t.Errorf("config at %s", cfg)
	}
	drop := filepath.Join(root, "mods", "MJOLNIRForgePacks", "drop")
	entries, err := os.ReadDir(drop)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"sneaky-scripts.zip"}
	for _, id := range packs() {
		want = append(want, id+".zip")
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("drop holds %q; want %q", names, want)
	}
	// A second run clears the first; a folder it did not make is refused.
	if _, err := layOutDemo(root); err != nil {
		t.Errorf("layOutDemo again = %v; want the previous demo cleared", err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "mine.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := layOutDemo(other); err == nil || !strings.Contains(err.Error(), "was not made by demo mode") {
		t.Errorf("layOutDemo(a foreign folder) = %v; want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(other, "mine.txt")); err != nil {
		t.Errorf("the foreign folder lost its file: %v", err)
	}
}

func TestWriteDemoGuide(t *testing.T) {
	root := filepath.Join(t.TempDir(), "demo")
	path, err := layOutDemo(root)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteDemoGuide(&b, cfg); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"forgesync demo is running in " + root + "\n",
		"  drop folder:   " + cfg.Paths.Drop + "   (drop more pack archives here)\n",
		"  forgesync packs --config " + path + "\n",
		"  curl --unix-socket " + cfg.Paths.Socket + " http://forgesync/v1/status\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("WriteDemoGuide =\n%s\nwant a line %q", b.String(), want)
		}
	}
}
