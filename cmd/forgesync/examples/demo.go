package examples

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/installer/intake"
	"github.com/mjolnir-forge/forgesync/installer/place"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// demoMarker marks a folder laid out by demo mode, so a second run may
// clear it and nothing else is ever cleared.
const demoMarker = ".forgesync-demo"

// Demo lays out root for `forgesync demo` (see layOutDemo), saying on w
// when the folders of a previous demo are cleared, and returns the demo's
// configuration.
func Demo(root string, w io.Writer) (*config.Config, error) {
	if previousDemo(root) {
		fmt.Fprintf(w, "starting over in %s: the previous demo's folders are cleared\n", rejection.Escape(root))
	}
	path, err := layOutDemo(root)
	if err != nil {
		return nil, err
	}
	return config.Load(path)
}

// previousDemo reports whether root holds a demo laid out before, which
// layOutDemo clears to start over.
func previousDemo(root string) bool {
	_, err := os.Stat(filepath.Join(root, demoMarker))
	return err == nil
}

// layOutDemo prepares root for `forgesync demo` and returns the path of
// its config file: a game folder (drop, Mods, paks, state) with the MJOLNIR
// mods at the versions the gates need, every example pack dropped in as a
// reproducible zip, and one archive that carries code, to show a rejection
// with its reasons. A root that holds anything but a previous demo is
// refused; a previous demo is cleared.
func layOutDemo(root string) (string, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if entries, err := os.ReadDir(root); err == nil && len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(root, demoMarker)); err != nil {
			return "", fmt.Errorf("%s exists and was not made by demo mode; pick an empty folder with --root", root)
		}
		if err := os.RemoveAll(root); err != nil {
			return "", fmt.Errorf("clear the previous demo: %w", err)
		}
	}
	mods := filepath.Join(root, "mods")
	drop := filepath.Join(mods, "MJOLNIRForgePacks", "drop")
	for _, d := range []string{drop, filepath.Join(root, "paks"), filepath.Join(root, "state")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(root, demoMarker), []byte("laid out by forgesync demo\n"), 0o644); err != nil {
		return "", err
	}
	// The MJOLNIR mods at the versions the gates need, as a game would have them.
	for mod, v := range map[string]string{"MJOLNIRForge": "0.4.0", "MJOLNIRLobby": "0.19.2", "MJOLNIRLevelLoader": "0.9.8"} {
		if err := os.MkdirAll(filepath.Join(mods, mod), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(mods, mod, "version.txt"), []byte(v+"\n"), 0o644); err != nil {
			return "", err
		}
	}
	for _, id := range packs() {
		if err := zipExample(id, filepath.Join(drop, id+".zip")); err != nil {
			return "", err
		}
	}
	// One archive that carries code, to show a rejection with its reasons.
	if err := writeBadDemoPack(filepath.Join(drop, "sneaky-scripts.zip")); err != nil {
		return "", err
	}
	cfgPath := filepath.Join(root, "forgesync.toml")
	// No native module: the demo has no game to load it, and a `go run`
	// binary has no release bundle beside it to deploy from.
	text := "# written by forgesync demo\n[paths]\nmods = \"mods\"\npaks = \"paks\"\nstate = \"state\"\n\n[watch]\nsettle = \"300ms\"\nrescan = \"30s\"\n\n[deploy]\nnative = false\n"
	if err := os.WriteFile(cfgPath, []byte(text), 0o644); err != nil {
		return "", err
	}
	return cfgPath, nil
}

// zipExample packs an embedded example with the packer's reproducible writer.
func zipExample(id, dst string) error {
	sub, err := fs.Sub(packsFS, id)
	if err != nil {
		return err
	}
	var files []intake.File
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files = append(files, intake.File{Path: p, Size: info.Size()})
		return nil
	})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := intake.WritePackZip(&buf, sub, files); err != nil {
		return err
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}

func writeBadDemoPack(dst string) error {
	dir, err := os.MkdirTemp("", "forgesync-demo-bad-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	manifest, err := fs.ReadFile(packsFS, path.Join("foundry-wide", "forgepack.json"))
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"forgepack.json":        bytes.ReplaceAll(manifest, []byte("foundry-wide"), []byte("sneaky-scripts")),
		"scripts/autorun.lua":   []byte("-- packs are data; this is rejected\n"),
		"content/LiftBoost.dll": []byte("MZ"),
		"content/Orphan.utoc":   []byte("-==--==--==--==-"),
	}
	var list []intake.File
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
		list = append(list, intake.File{Path: name, Size: int64(len(data))})
	}
	var buf bytes.Buffer
	if err := intake.WritePackZip(&buf, os.DirFS(dir), list); err != nil {
		return err
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}

// WriteDemoGuide writes what a running demo laid out (its root is the
// folder of cfg's file) and how to ask it from another terminal.
func WriteDemoGuide(w io.Writer, cfg *config.Config) error {
	root := filepath.Dir(cfg.File)
	_, err := fmt.Fprintf(w, `forgesync demo is running in %s
  drop folder:   %s   (drop more pack archives here)
  inventory:     %s
  pack content:  %s
  state:         %s
Ask it, from another terminal:
  forgesync status --config %s
  forgesync status --watch --config %s
  forgesync packs --config %s
  curl --unix-socket %s http://forgesync/v1/status
Ctrl-C stops the daemon.
`, root, cfg.Paths.Drop, filepath.Join(cfg.Paths.Mods, "MJOLNIRForgePacks"), filepath.Join(cfg.Paths.Paks, place.ContentRoot),
		cfg.Paths.State, cfg.File, cfg.File, cfg.File, cfg.Paths.Socket)
	return err
}
