package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"aead.dev/minisign"

	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
	"github.com/mjolnir-forge/forgesync/native"
)

// TestArchivesReproducible: the same files give the same bytes in any
// order, entries are sorted and dated mtime, and a name given twice is
// refused.
func TestArchivesReproducible(t *testing.T) {
	mtime := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	a := []entry{{Name: "forgesync", Data: []byte("bin"), Exec: true}, {Name: "modules/x/a.dll", Data: []byte("dll")}, {Name: "LICENSE", Data: []byte("MIT")}}
	b := []entry{a[2], a[1], a[0]}
	for _, f := range []struct {
		name string
		pack func([]entry, time.Time) ([]byte, error)
	}{{"Zip", makeZip}, {"TarGz", makeTarGz}} {
		x, err := f.pack(a, mtime)
		if err != nil {
			t.Fatal(err)
		}
		y, err := f.pack(b, mtime)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s of the same files in another order differs", f.name)
		}
		if z, _ := f.pack(a, mtime.Add(time.Second)); bytes.Equal(x, z) {
			t.Errorf("%s ignores the time it is given", f.name)
		}
		if _, err := f.pack(append(a, entry{Name: "LICENSE"}), mtime); err == nil || err.Error() != "release: LICENSE is in the bundle twice" {
			t.Errorf("%s of a name given twice = %v", f.name, err)
		}
	}
}

// TestSignedReleaseCarriesThePublicKey: a signed release holds
// forgesync.pub beside SHA256SUMS.minisig, the public half of the signing
// key, which verifies the signature; SHA256SUMS does not list it, and an
// unsigned release has neither.
func TestSignedReleaseCarriesThePublicKey(t *testing.T) {
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	for name, data := range map[string]string{"forgesync.exe": "MZ bin", "modules/" + native.ModulePath(): "MZ dll", "modules/" + native.VersionPath(): "forge_doors 1.0.0 api 1\n"} {
		p := filepath.Join(dist, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pub, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	keyText, _ := priv.MarshalText()
	key := filepath.Join(tmp, "key")
	if err := os.WriteFile(key, keyText, 0o600); err != nil {
		t.Fatal(err)
	}
	signed, unsigned := filepath.Join(tmp, "signed"), filepath.Join(tmp, "unsigned")
	for _, args := range [][]string{{"-out", signed, "-sign-key", key}, {"-out", unsigned}} {
		if err := run(append(append([]string{"-version", "1.0.0", "-epoch", "0", "-root", "../.."}, args...), "windows="+dist)); err != nil {
			t.Fatalf("mkrelease %q: %v", args, err)
		}
	}
	got, err := os.ReadFile(filepath.Join(signed, pubName))
	wantText, _ := pub.MarshalText()
	if err != nil || string(got) != string(wantText)+"\n" {
		t.Fatalf("signed release's %s = %q, %v; want %q", pubName, got, err, wantText)
	}
	var shipped minisign.PublicKey
	if err := shipped.UnmarshalText(got); err != nil {
		t.Fatal(err)
	}
	sums, _ := os.ReadFile(filepath.Join(signed, sumsName))
	sig, _ := os.ReadFile(filepath.Join(signed, sumsName+".minisig"))
	if !minisign.Verify(shipped, sums, sig) {
		t.Errorf("the shipped %s does not verify %s.minisig", pubName, sumsName)
	}
	if strings.Contains(string(sums), pubName) {
		t.Errorf("%s lists %s:\n%s", sumsName, pubName, sums)
	}
	for _, n := range []string{pubName, sumsName + ".minisig"} {
		if _, err := os.Stat(filepath.Join(unsigned, n)); err == nil {
			t.Errorf("an unsigned release holds %s", n)
		}
	}
}

// TestBundleNeedsModules: a bundle without the native module is refused
// with the fix, not released.
func TestBundleNeedsModules(t *testing.T) {
	dist := t.TempDir()
	os.WriteFile(filepath.Join(dist, "forgesync"), []byte("bin"), 0o755)
	_, err := readBundle(dist, "../..")
	if want := "bundle " + dist + " has no modules/MJOLNIRLobby/dlls/forge_doors.dll: build it with `make dist`"; err == nil || err.Error() != want {
		t.Errorf("Bundle without modules = %v; want %q", err, want)
	}
}

// TestMakeRelease runs `make release` as CI does, twice, and checks what a
// player downloads: the same bytes from both builds, exactly the files a
// player needs in each archive, SHA256SUMS that sha256sum accepts and a
// signature that minisign accepts, a Linux binary that knows its version
// and finds the modules bundle beside it.
func TestMakeRelease(t *testing.T) {
	toolcheck.Need(t, "make", "x86_64-w64-mingw32-gcc", "unzip", "tar", "sha256sum", "minisign", "git", "dpkg-deb")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	pub, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	key, pubFile := filepath.Join(tmp, "key"), filepath.Join(tmp, "pub")
	keyText, _ := priv.MarshalText()
	pubText, _ := pub.MarshalText()
	os.WriteFile(key, keyText, 0o600)
	os.WriteFile(pubFile, append(pubText, '\n'), 0o644)

	const version, epoch, built = "1.2.3-test", "1796284158", "2026-12-03T07:49:18Z"
	makeRelease := func(dist string, args ...string) {
		t.Helper()
		cmd := exec.Command("make", append([]string{"-C", root, "release", "DIST=" + dist, "VERSION=v" + version, "SOURCE_DATE_EPOCH=" + epoch}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make release: %v\n%s", err, out)
		}
	}
	distA, distB := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	makeRelease(distA, "SIGN_KEY="+key)
	makeRelease(distB)
	rel := filepath.Join(distA, "release")
	zipName, tarName := "forgesync_"+version+"_windows_amd64.zip", "forgesync_"+version+"_linux_amd64.tar.gz"

	entries, _ := os.ReadDir(rel)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	debName := "forgesync_" + version + "_amd64.deb"
	if want := []string{"SHA256SUMS", "SHA256SUMS.minisig", "forgesync.pub", debName, tarName, zipName}; !slices.Equal(names, want) {
		t.Fatalf("dist/release holds %q; want %q", names, want)
	}
	for _, n := range []string{sumsName, zipName, tarName, debName} {
		a, _ := os.ReadFile(filepath.Join(rel, n))
		b, err := os.ReadFile(filepath.Join(distB, "release", n))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two builds of one commit (%v)", n, err)
		}
	}
	check := exec.Command("sha256sum", "--check", "--strict", sumsName)
	check.Dir = rel
	if out, err := check.CombinedOutput(); err != nil || strings.Count(string(out), ": OK\n") != 3 {
		t.Errorf("sha256sum --check: %v\n%s", err, out)
	}
	if out, err := exec.Command("minisign", "-V", "-p", pubFile, "-m", filepath.Join(rel, sumsName)).CombinedOutput(); err != nil {
		t.Errorf("minisign -V of SHA256SUMS: %v\n%s", err, out)
	}

	winDir, linDir := filepath.Join(tmp, "win"), filepath.Join(tmp, "lin")
	os.Mkdir(winDir, 0o755)
	os.Mkdir(linDir, 0o755)
	if out, err := exec.Command("unzip", "-q", filepath.Join(rel, zipName), "-d", winDir).CombinedOutput(); err != nil {
		t.Fatalf("unzip: %v\n%s", err, out)
	}
	if out, err := exec.Command("tar", "-xzf", filepath.Join(rel, tarName), "-C", linDir).CombinedOutput(); err != nil {
		t.Fatalf("tar -x: %v\n%s", err, out)
	}
	common := []string{"LICENSE", "README.md", "openapi.json", "openapi.yaml", "lua/h2_lifts.lua", "lua/halo2_math.lua", "lua/lifts.lua", "lua/pack_lifts.lua", "lua/script_writer.lua",
		"modules/MJOLNIRLobby/dlls/forge_doors.dll", "modules/MJOLNIRLobby/dlls/forge_doors.version"}
	for dir, bin := range map[string]string{winDir: "forgesync.exe", linDir: "forgesync"} {
		want := append([]string{bin}, common...)
		slices.Sort(want)
		if got := filesUnder(t, dir); !slices.Equal(got, want) {
			t.Errorf("%s unpacks to\n%q\nwant\n%q", filepath.Base(dir), got, want)
		}
	}

	bin := filepath.Join(linDir, "forgesync")
	commit, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	// The contract a launcher developer takes from the archive is the one
	// the unpacked binary prints (and its daemon serves).
	printed, err := exec.Command(bin, "openapi").Output()
	if carried, rerr := os.ReadFile(filepath.Join(linDir, "openapi.json")); err != nil || rerr != nil || !bytes.Equal(printed, carried) {
		t.Errorf("the release's openapi.json is not what its forgesync openapi prints (%v, %v)", err, rerr)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if want := "forgesync " + version + " (commit " + strings.TrimSpace(string(commit)) + ", built " + built + ")\n"; err != nil || string(out) != want {
		t.Errorf("unpacked forgesync version = %v, %q; want %q", err, out, want)
	}

	// A player's first hour, as typed, from the unpacked folder: setup
	// with the game's folders (no config names a modules folder), a pack
	// dropped and synced, which also deploys the bundle's DLL into the
	// game, a second pack, packs, and a rollback to the first.
	game, home := filepath.Join(tmp, "game"), filepath.Join(tmp, "home")
	for _, d := range []string{filepath.Join(game, "Mods", "MJOLNIRForge"), filepath.Join(game, "Paks"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(game, "Mods", "MJOLNIRForge", "version.txt"), []byte("0.5.0\n"), 0o644)
	player := func(wantCode int, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = home, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("forgesync %s: %v", strings.Join(args, " "), err)
		}
		if code != wantCode {
			t.Fatalf("forgesync %s = exit %d, want %d\n%s", strings.Join(args, " "), code, wantCode, out)
		}
		return string(out)
	}
	out = []byte(player(0, "setup", "--mods", filepath.Join(game, "Mods"), "--paks", filepath.Join(game, "Paks"), "--state", filepath.Join(game, "state")))
	if !strings.Contains(string(out), "found MJOLNIRForge 0.5.0\n") {
		t.Errorf("setup does not name the MJOLNIR mod it found:\n%s", out)
	}
	drop := filepath.Join(game, "Mods", "MJOLNIRForgePacks", "drop")
	player(0, "pack", filepath.Join(root, "cmd", "forgesync", "examples", "glass-works"), "-o", filepath.Join(drop, "glass-works.zip"))
	if got := player(0, "sync"); !strings.Contains(got, "glass-works") {
		t.Errorf("sync of the dropped pack:\n%s", got)
	}
	for _, n := range []string{"forge_doors.dll", "forge_doors.version"} {
		got, err1 := os.ReadFile(filepath.Join(game, "Mods", "MJOLNIRLobby", "dlls", n))
		want, err2 := os.ReadFile(filepath.Join(linDir, "modules", "MJOLNIRLobby", "dlls", n))
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Errorf("sync from the unpacked folder did not deploy the bundle's %s: %v, %v", n, err1, err2)
		}
	}
	player(0, "pack", filepath.Join(root, "cmd", "forgesync", "examples", "foundry-wide"), "-o", filepath.Join(drop, "foundry-wide.zip"))
	player(0, "sync")
	if got := player(0, "packs"); !strings.Contains(got, "glass-works") || !strings.Contains(got, "foundry-wide") {
		t.Errorf("packs after two syncs:\n%s", got)
	}
	player(0, "rollback")
	if got := player(0, "packs"); !strings.Contains(got, "glass-works") || strings.Contains(got, "foundry-wide") {
		t.Errorf("packs after the rollback:\n%s", got)
	}
}

// filesUnder lists the regular files under dir, slash-separated, sorted.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}
