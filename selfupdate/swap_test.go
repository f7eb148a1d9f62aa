package selfupdate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mjolnir-forge/forgesync/internal/errkind"
)

// newInstall lays out an installed version "old": the executable and
// modules/m, and stages version "new" beside it.
func newInstall(t *testing.T, aside bool) install {
	t.Helper()
	in := install{dir: t.TempDir(), exe: "forgesync", aside: aside}
	must(t, os.WriteFile(in.path(in.exe), []byte("old"), 0o755))
	must(t, os.MkdirAll(in.path(modulesName), 0o755))
	must(t, os.WriteFile(in.path(modulesName, "m"), []byte("old"), 0o644))
	must(t, os.MkdirAll(in.work(), 0o755))
	must(t, in.stageVersion([]file{{name: in.exe, data: []byte("new"), exec: true}, {name: "modules/m", data: []byte("new")}}, "2.0.0"))
	return in
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func read(p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		return "(none)"
	}
	return string(data)
}

// TestSwapCutShortLeavesAWorkingBinary: a swap stopped before any of its
// steps, as a crash would stop it, leaves an executable that runs (the
// old or the new; on Windows, between its two renames, the old one as
// forgesync.exe.old, which recovery renames back); the recovery at the
// next start then makes the binary and modules/ one version, both old
// or both new, leaves no journal, and a new version keeps the old one
// for a rollback, which brings it back whole.
func TestSwapCutShortLeavesAWorkingBinary(t *testing.T) {
	for _, aside := range []bool{false, true} {
		for _, step := range []string{"modules out", "modules in", "aside", "binary", "finish", "forget"} {
			if step == "aside" && !aside {
				continue
			}
			name := step
			if aside {
				name = "windows/" + step
			}
			t.Run(name, func(t *testing.T) {
				in := newInstall(t, aside)
				in.crash = func(s string) bool { return s == step }
				if err := in.swap(in.work(newName), "1.0.0"); !errors.Is(err, errCrash) {
					t.Fatalf("swap stopped at %q = %v; want the crash", step, err)
				}
				bin := read(in.path(in.exe))
				if aside && bin == "(none)" {
					bin = read(in.path(in.exe + oldSuffix))
				}
				if bin != "old" && bin != "new" {
					t.Fatalf("after a crash at %q the executable is %q; want old or new", step, bin)
				}
				in.crash = nil
				if err := in.recover(); err != nil {
					t.Fatalf("recover after a crash at %q: %v", step, err)
				}
				bin, mod := read(in.path(in.exe)), read(in.path(modulesName, "m"))
				if bin != mod || (bin != "old" && bin != "new") {
					t.Fatalf("after recovering from %q: executable %q, modules %q; want one version", step, bin, mod)
				}
				for _, p := range []string{in.work(journalName), in.work(keepName), in.work(newName)} {
					if exists(p) {
						t.Errorf("after recovering from %q, %s is left", step, p)
					}
				}
				if bin == "old" {
					return
				}
				if _, err := Rollback(t.Context(), in.path(in.exe), "2.0.0"); err != nil {
					t.Fatalf("Rollback after recovering from %q: %v", step, err)
				}
				if bin, mod := read(in.path(in.exe)), read(in.path(modulesName, "m")); bin != "old" || mod != "old" {
					t.Errorf("after the rollback: executable %q, modules %q; want old, old", bin, mod)
				}
			})
		}
	}
}

// TestRollbackWithoutAnUpdate: nothing kept, nothing changed, and the
// error says when a rollback works.
func TestRollbackWithoutAnUpdate(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "forgesync")
	must(t, os.WriteFile(exe, []byte("bin"), 0o755))
	_, err := Rollback(t.Context(), exe, "1.0.0")
	if errkind.Of(err) != errkind.NotFound || !strings.Contains(err.Error(), "a rollback goes back after `forgesync update`") {
		t.Fatalf("Rollback = %v; want not found, saying when it works", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("Rollback left %v; want only the executable", entries)
	}
}

// TestAptOwnsThisInstall: an executable dpkg lists (the .deb's
// /usr/bin/forgesync) is refused with the apt command to use, and
// nothing is written beside it.
func TestAptOwnsThisInstall(t *testing.T) {
	defer func(d, g string) { dpkgInfo, goos = d, g }(dpkgInfo, goos)
	dpkgInfo, goos = t.TempDir(), "linux"
	dir := t.TempDir()
	exe := filepath.Join(dir, "forgesync")
	must(t, os.WriteFile(exe, []byte("bin"), 0o755))
	real, err := filepath.EvalSymlinks(exe)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dpkgInfo, "forgesync.list"), []byte("/.\n/usr\n"+real+"\n"), 0o644))
	_, err = Update(t.Context(), Options{Feed: "http://127.0.0.1:1/", Key: "unused"}, exe)
	if errkind.Of(err) != errkind.Refused || !strings.Contains(err.Error(), "apt owns this install ("+real+", from the forgesync package): run apt upgrade") {
		t.Fatalf("Update of a dpkg-listed executable = %v; want refused, apt named", err)
	}
	if _, err := Rollback(t.Context(), exe, "1.0.0"); errkind.Of(err) != errkind.Refused {
		t.Errorf("Rollback of a dpkg-listed executable = %v; want refused", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the refused update left %v; want only the executable", entries)
	}
	must(t, os.WriteFile(filepath.Join(dpkgInfo, "forgesync.list"), []byte("/usr/bin/forgesync\n"), 0o644))
	if _, err := locate(exe); err != nil {
		t.Errorf("locate of an executable dpkg does not list = %v", err)
	}
}

// TestBuiltWithoutAKey: a binary built without the release key refuses to
// update, says so and asks nothing of the network.
func TestBuiltWithoutAKey(t *testing.T) {
	defer func(k string) { releaseKey = k }(releaseKey)
	releaseKey = ""
	_, err := Check(t.Context(), Options{Feed: "http://127.0.0.1:1/", Current: "1.0.0"})
	if errkind.Of(err) != errkind.Unavailable || !errors.Is(err, errNoKey) || !strings.Contains(err.Error(), "built without the release key") {
		t.Fatalf("Check without a key = %v; want unavailable (exit 2: no answer, not a newer version), saying the key is missing", err)
	}
}

// TestPick: the archive of this OS is chosen by its name, its version
// read from it; SHA256SUMS without one, with two, or with a bad line is
// refused saying which.
func TestPick(t *testing.T) {
	h := strings.Repeat("ab", 32)
	sums := h + "  forgesync_1.2.0_windows_amd64.zip\n" + h + "  forgesync_1.2.0_linux_amd64.tar.gz\n" + h + "  forgesync_1.2.0_amd64.deb\n"
	r, err := pick([]byte(sums), "linux", "amd64")
	if err != nil || r.Latest != "1.2.0" || r.Archive != "forgesync_1.2.0_linux_amd64.tar.gz" {
		t.Errorf("pick(linux) = %+v, %v", r, err)
	}
	if r, err := pick([]byte(sums), "windows", "amd64"); err != nil || r.Archive != "forgesync_1.2.0_windows_amd64.zip" {
		t.Errorf("pick(windows) = %+v, %v", r, err)
	}
	for _, tt := range []struct{ sums, goarch, want string }{
		{sums, "arm64", "no release archive for this system (linux/arm64)"},
		{sums + h + "  forgesync_1.3.0_linux_amd64.tar.gz\n", "amd64", "2 archives for linux/amd64"},
		{"xyz  forgesync_1.2.0_linux_amd64.tar.gz\n", "amd64", "line 1: want \"SHA-256  NAME\""},
		{h + "  forgesync_v1_linux_amd64.tar.gz\n", "amd64", "line 1: forgesync_v1_linux_amd64.tar.gz: version \"v1\""},
	} {
		if _, err := pick([]byte(tt.sums), "linux", tt.goarch); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("pick(%q, linux/%s) = %v; want %q", tt.sums, tt.goarch, err, tt.want)
		}
	}
}
