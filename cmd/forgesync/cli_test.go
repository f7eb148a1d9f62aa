package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/cmd/forgesync/cli"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// runCLI runs the CLI in-process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(t.Context(), args, &out, &errb, nil)
	return code, out.String(), errb.String()
}

// copyDir copies a pack folder so a test can break it.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestScanExamples(t *testing.T) {
	for _, dir := range []string{"foundry-wide", "lockout-gates", "glass-works"} {
		code, out, errs := runCLI(t, "scan", filepath.Join("examples", dir))
		if code != cli.ExitOK || !strings.Contains(out, ": valid") {
			t.Errorf("scan %s = %d\n%s%s; want 0 and valid", dir, code, out, errs)
		}
	}
}

func TestScanInvalidFolder(t *testing.T) {
	dir := copyDir(t, "examples/glass-works")
	os.WriteFile(filepath.Join(dir, "content", "evil.dll"), []byte("MZ"), 0o644)
	manifest := filepath.Join(dir, "forgepack.json")
	data, _ := os.ReadFile(manifest)
	os.WriteFile(manifest, bytes.Replace(data, []byte(`"travel_m": 4,`), []byte(`"travel_m": 17,`), 1), 0o644)

	code, out, _ := runCLI(t, "scan", dir)
	if code != cli.ExitInvalid {
		t.Fatalf("scan = %d; want 1\n%s", code, out)
	}
	for _, want := range []string{
		filepath.Join(dir, "content", "evil.dll") + ": not allowed in a pack",
		filepath.Join(dir, "forgepack.json") + ":34:29: pieces[2].door.travel_m: must be > 0 and ≤ 16, got 17",
		"glass-works 2.0.0: invalid, 2 problems",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("scan output lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = runCLI(t, "scan", "--json", dir)
	var doc struct {
		Valid  bool `json:"valid"`
		Pack   struct{ ID, Version string }
		Errors []struct {
			Path, Rule, Value, Message string
			Line, Column               int
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != cli.ExitInvalid {
		t.Fatalf("scan --json = %d, %v:\n%s", code, err, out)
	}
	if doc.Valid || doc.Pack.ID != "glass-works" || len(doc.Errors) != 2 {
		t.Fatalf("scan --json = %+v; want invalid glass-works with 2 errors", doc)
	}
	e := doc.Errors[1]
	if e.Path != "pieces[2].door.travel_m" || e.Line != 34 || e.Column != 29 || e.Rule != "range" || e.Value != "17" {
		t.Errorf("scan --json error = %+v", e)
	}
}

func TestScanMissingPackageNamesIt(t *testing.T) {
	dir := copyDir(t, "examples/glass-works")
	os.RemoveAll(filepath.Join(dir, "content"))
	code, out, _ := runCLI(t, "scan", dir)
	if code != cli.ExitInvalid {
		t.Fatalf("scan = %d; want 1\n%s", code, out)
	}
	for _, want := range []string{
		"/Game/MJOLNIR/Forge/glass-works/Surfaces/MI_GlassCyan",
		"/Game/MJOLNIR/Forge/glass-works/Surfaces/MI_TeleporterGreen",
		"package id 0x",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("scan output lacks %q:\n%s", want, out)
		}
	}
}

func TestScanUnreadable(t *testing.T) {
	code, _, errs := runCLI(t, "scan", filepath.Join(t.TempDir(), "missing.zip"))
	if code != cli.ExitFailure || !strings.Contains(errs, "missing.zip") {
		t.Fatalf("scan missing = %d %q; want 2 naming the file", code, errs)
	}
}

func TestPackReproducibleAndScannable(t *testing.T) {
	out := t.TempDir()
	a, b := filepath.Join(out, "a.zip"), filepath.Join(out, "b.zip")
	// Flags after and before the positional argument both work.
	if code, o, e := runCLI(t, "pack", "examples/glass-works", "-o", a); code != cli.ExitOK {
		t.Fatalf("pack = %d\n%s%s", code, o, e)
	}
	// Touch the folder's files: timestamps must not change the bytes.
	dir := copyDir(t, "examples/glass-works")
	if code, o, e := runCLI(t, "pack", "-o", b, dir); code != cli.ExitOK {
		t.Fatalf("pack = %d\n%s%s", code, o, e)
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if !bytes.Equal(da, db) || len(da) == 0 {
		t.Fatalf("packing the same folder twice gave different bytes (%d, %d)", len(da), len(db))
	}
	code, o, _ := runCLI(t, "scan", a)
	if code != cli.ExitOK || !strings.Contains(o, "glass-works 2.0.0: valid") {
		t.Fatalf("scan of packed zip = %d\n%s", code, o)
	}
	// The folder scan and the archive scan agree, problem for problem.
	_, dirJSON, _ := runCLI(t, "scan", "--json", "examples/glass-works")
	_, zipJSON, _ := runCLI(t, "scan", "--json", a)
	if strip(dirJSON) != strip(zipJSON) {
		t.Errorf("folder and archive verdicts differ:\n%s\n%s", dirJSON, zipJSON)
	}
	// A real unzip sees exactly the pack's files.
	paths := toolcheck.Need(t, "unzip")
	list, err := exec.Command(paths[0], "-Z1", a).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(list)); strings.Join(got, " ") != "README.md content/Surfaces.ucas content/Surfaces.utoc forgepack.json" {
		t.Errorf("unzip -Z1 = %v", got)
	}
}

func TestPackStoresContainersAndTheUncompressible(t *testing.T) {
	dir := copyDir(t, "examples/lockout-gates")
	os.MkdirAll(filepath.Join(dir, "content"), 0o755)
	pak := make([]byte, 4<<20) // cooked containers: their blocks are compressed already
	rand.NewChaCha8([32]byte{25}).Read(pak)
	os.WriteFile(filepath.Join(dir, "content", "Big.pak"), pak, 0o644)
	png := make([]byte, 200<<10) // a PNG is Deflate inside: the 5% rule stores it
	rand.NewChaCha8([32]byte{26}).Read(png)
	os.WriteFile(filepath.Join(dir, "preview.png"), png, 0o644)
	out := filepath.Join(t.TempDir(), "lockout-gates.zip")
	if code, o, e := runCLI(t, "pack", dir, "-o", out); code != cli.ExitOK {
		t.Fatalf("pack = %d\n%s%s", code, o, e)
	}
	zr, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	methods := map[string]uint16{}
	for _, f := range zr.File {
		methods[f.Name] = f.Method
	}
	want := map[string]uint16{"README.md": zip.Deflate, "content/Big.pak": zip.Store, "forgepack.json": zip.Deflate, "preview.png": zip.Store}
	if !maps.Equal(methods, want) {
		t.Errorf("entry methods = %v, want %v (0 stored, 8 deflated)", methods, want)
	}
	if code, o, _ := runCLI(t, "scan", out); code != cli.ExitOK || !strings.Contains(o, ": valid") {
		t.Fatalf("scan of the packed zip = %d\n%s", code, o)
	}
	// Real tools read it: Info-ZIP tests every CRC, and bsdtar reads it as
	// a stream from its first byte, without the central directory.
	paths := toolcheck.Need(t, "unzip", "bsdtar")
	if o, err := exec.Command(paths[0], "-t", out).CombinedOutput(); err != nil || !strings.Contains(string(o), "No errors detected") {
		t.Errorf("unzip -t = %v\n%s", err, o)
	}
	into := t.TempDir()
	cmd := exec.Command(paths[1], "-xf", "-", "-C", into)
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdin = struct{ io.Reader }{f} // a pipe, not a file it could seek in
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bsdtar -xf - = %v\n%s", err, o)
	}
	for name, b := range map[string][]byte{"content/Big.pak": pak, "preview.png": png} {
		if got, err := os.ReadFile(filepath.Join(into, name)); err != nil || !bytes.Equal(got, b) {
			t.Errorf("bsdtar streamed %s: %d bytes (%v), want its %d", name, len(got), err, len(b))
		}
	}
}

// strip removes the source line, which names the folder or the archive.
func strip(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, `"source"`) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func TestPackInvalidWritesNothing(t *testing.T) {
	dir := copyDir(t, "examples/lockout-gates")
	os.WriteFile(filepath.Join(dir, "install.ps1"), []byte("rm -r C:\\"), 0o644)
	out := filepath.Join(t.TempDir(), "x.zip")
	code, o, _ := runCLI(t, "pack", dir, "-o", out)
	if code != cli.ExitInvalid || !strings.Contains(o, "install.ps1") {
		t.Fatalf("pack invalid = %d\n%s; want 1 naming install.ps1", code, o)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("pack wrote %s for an invalid pack", out)
	}
	if left, _ := os.ReadDir(filepath.Dir(out)); len(left) != 0 {
		t.Fatalf("pack left files behind: %v", left)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := [][]string{
		{"frobnicate"},
		{"scan"},
		{"scan", "a", "b"},
		{"pack", "examples/foundry-wide", "-o", "foundry-wide.7z"},
		{"scan", "--log-format", "xml", "x"},
		{"scan", "--config", "/nonexistent/forgesync.toml", "x"},
	}
	for _, args := range tests {
		if code, _, errs := runCLI(t, args...); code != cli.ExitFailure || errs == "" {
			t.Errorf("forgesync %v = %d, stderr %q; want 2 with a message", args, code, errs)
		}
	}
}

func TestPackageIDAndUTOC(t *testing.T) {
	code, out, _ := runCLI(t, "package-id", "/Game/Fixtures/Maps/Empty", "/Game/PatchFixtures/DA_PatchTarget")
	if code != cli.ExitOK || !strings.Contains(out, "0x910BAD3EBD32CC77\t/Game/Fixtures/Maps/Empty") ||
		!strings.Contains(out, "0xEA6DCAF69ECA2F7A") {
		t.Fatalf("package-id = %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "utoc", "--json", "examples/glass-works/content/Surfaces.utoc")
	if code != cli.ExitOK || !strings.Contains(out, `"ExportBundleData"`) {
		t.Fatalf("utoc --json = %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "utoc", "../../installer/iostore/testdata/ue5_8-minimal-uncompressed.utoc")
	if code != cli.ExitOK || !strings.Contains(out, "112 chunks") || !strings.Contains(out, "910BAD3EBD32CC77  0      ExportBundleData") {
		t.Fatalf("utoc = %d\n%s", code, out)
	}
}

// TestScanArchiveAgreesWithFolder: an archive rejected for its files still
// has its manifest checked, so the verdict lists what a scan of the same
// folder lists.
func TestScanArchiveAgreesWithFolder(t *testing.T) {
	zipTool := toolcheck.Need(t, "zip")[0]
	dir := copyDir(t, "examples/lockout-gates")
	os.WriteFile(filepath.Join(dir, "setup.bat"), []byte("@echo off"), 0o644)
	manifest := filepath.Join(dir, "forgepack.json")
	data, _ := os.ReadFile(manifest)
	os.WriteFile(manifest, bytes.Replace(data, []byte(`"hold_open_s": 2 }`), []byte(`"hold_open_s": 12 }`), 1), 0o644)
	archive := filepath.Join(t.TempDir(), "gates.zip")
	cmd := exec.Command(zipTool, "-qr", archive, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zip: %v %s", err, out)
	}
	_, dirJSON, _ := runCLI(t, "scan", "--json", dir)
	code, zipJSON, _ := runCLI(t, "scan", "--json", archive)
	if code != cli.ExitInvalid || strip(dirJSON) != strip(zipJSON) {
		t.Fatalf("scan %s = %d; folder and archive verdicts differ:\n%s\n%s", archive, code, dirJSON, zipJSON)
	}
	if !strings.Contains(zipJSON, "setup.bat") || !strings.Contains(zipJSON, "hold_open_s") {
		t.Fatalf("archive verdict lacks a problem:\n%s", zipJSON)
	}
}

// TestCLIMessages pins the exact words of the CLI fixes of issue 11.
func TestCLIMessages(t *testing.T) {
	// No arguments: the usage goes to stderr, with exit status 2.
	code, out, errs := runCLI(t)
	if code != cli.ExitFailure || out != "" || !strings.HasPrefix(errs, "forgesync "+version+" keeps MJOLNIR Forge packs installed") {
		t.Errorf("forgesync = %d, stdout %q, stderr %q; want 2 and the usage on stderr", code, out, errs)
	}
	// help asks for it: stdout, exit 0.
	if code, out, _ := runCLI(t, "help"); code != cli.ExitOK || !strings.Contains(out, "usage: forgesync COMMAND") {
		t.Errorf("forgesync help = %d, %q", code, out)
	}

	// Global flags may come before the command.
	config, _, _ := gameEnv(t)
	code, out, errs = runCLI(t, "--config", config, "scan", "examples/foundry-wide")
	if code != cli.ExitOK || !strings.HasSuffix(out, "foundry-wide 1.4.0: valid (3 pieces, 2 lifts, 0 doors, 0 surface packages)\n") || errs != "" {
		t.Errorf("forgesync --config F scan DIR = %d, %q, %q", code, out, errs)
	}
	if code, _, errs := runCLI(t, "--json", "--log-level=warn", "version"); code != cli.ExitOK || errs != "" {
		t.Errorf("forgesync --json --log-level=warn version = %d, %q", code, errs)
	}
	// pack of a missing folder names the path once.
	missing := filepath.Join(t.TempDir(), "nope")
	code, _, errs = runCLI(t, "pack", missing, "-o", filepath.Join(t.TempDir(), "x.zip"))
	if want := "forgesync pack: " + missing + ": no such folder\n"; code != cli.ExitFailure || errs != want {
		t.Errorf("pack of a missing folder = %d, %q; want %q", code, errs, want)
	}
}

// TestOneShotLogsAtWarn: a one-shot command prints its own output; its log
// says nothing at info unless --log-level asks for it.
func TestOneShotLogsAtWarn(t *testing.T) {
	config, drop, _ := gameEnv(t)
	f, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("[deploy]\nnative = false\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.MkdirAll(drop, 0o755); err != nil {
		t.Fatal(err)
	}
	pack := func(id string) {
		t.Helper()
		if code, out, errs := runCLI(t, "pack", "examples/"+id, "-o", filepath.Join(drop, id+".zip")); code != cli.ExitOK {
			t.Fatalf("pack = %d\n%s%s", code, out, errs)
		}
	}
	pack("foundry-wide")
	code, out, errs := runCLI(t, "sync", "--config", config)
	if code != cli.ExitOK || errs != "" || out != "foundry-wide.zip: installed foundry-wide 1.4.0\npublished installed.json, lifts.txt, doors.txt, installed.txt\n" {
		t.Errorf("sync = %d, stdout %q, stderr %q; want the summary alone", code, out, errs)
	}
	pack("lockout-gates")
	code, _, errs = runCLI(t, "sync", "--config", config, "--log-level", "info")
	if code != cli.ExitOK || !strings.Contains(errs, `level=INFO msg="archive processed" archive=lockout-gates.zip`) {
		t.Errorf("sync --log-level info = %d, stderr %q; want the info log", code, errs)
	}
}
