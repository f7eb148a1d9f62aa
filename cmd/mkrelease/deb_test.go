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

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/internal/toolcheck"
)

// TestDeb builds the .deb for hosts from a bundle and reads it back with
// dpkg-deb: its files, control fields, conffile, maintainer scripts and
// unit, a default configuration that finds the modules bundle, and the
// same bytes from two builds. It does not install it.
func TestDeb(t *testing.T) {
	dpkg := toolcheck.Need(t, "dpkg-deb")[0]
	bundle := t.TempDir()
	os.WriteFile(filepath.Join(bundle, "forgesync"), []byte("#!/bin/sh\n"), 0o755)
	mods := filepath.Join(bundle, "modules", "MJOLNIRLobby", "dlls")
	os.MkdirAll(mods, 0o755)
	os.WriteFile(filepath.Join(mods, "forge_doors.dll"), []byte("MZ"), 0o644)
	os.WriteFile(filepath.Join(mods, "forge_doors.version"), []byte("forge_doors 1.0.0 api 1\n"), 0o644)
	mtime := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	var a, b bytes.Buffer
	if err := writeDeb(&a, "1.2.3", bundle, "../..", mtime); err != nil {
		t.Fatal(err)
	}
	if err := writeDeb(&b, "1.2.3", bundle, "../..", mtime); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two builds of the .deb differ")
	}
	deb := filepath.Join(t.TempDir(), debName("1.2.3"))
	os.WriteFile(deb, a.Bytes(), 0o644)
	dpkgDeb := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(dpkg, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("dpkg-deb %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	info := dpkgDeb("--info", deb)
	for _, want := range []string{"Package: forgesync\n", "Version: 1.2.3\n", "Architecture: amd64\n", "Depends: passwd\n",
		" postinst ", " prerm ", " postrm ", " conffiles "} {
		if !strings.Contains(info, want) {
			t.Errorf("dpkg-deb --info lacks %q:\n%s", want, info)
		}
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(dpkgDeb("--contents", deb)), "\n") {
		f := strings.Fields(l)
		if strings.HasPrefix(f[0], "-") { // the files, not the folders
			if f[1] != "root/root" {
				t.Errorf("%s is owned by %s; want root/root", f[len(f)-1], f[1])
			}
			got = append(got, strings.TrimPrefix(f[len(f)-1], "."))
		}
	}
	want := []string{debConfig, debBinary, debModules + "/MJOLNIRLobby/dlls/forge_doors.dll", debModules + "/MJOLNIRLobby/dlls/forge_doors.version",
		debUnit, debUnits, debDoc + "/README.md", debDoc + "/copyright"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the .deb holds\n%q\nwant\n%q", got, want)
	}

	control := t.TempDir()
	dpkgDeb("--control", deb, control)
	read := func(p string) string {
		t.Helper()
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if c := read(filepath.Join(control, "conffiles")); strings.TrimSpace(c) != debConfig {
		t.Errorf("conffiles = %q; want %s", c, debConfig)
	}
	post := read(filepath.Join(control, "postinst"))
	for _, want := range []string{"useradd --system --user-group --home-dir /var/lib/forgesync", "install -d -o forgesync -g forgesync -m 0750 /var/lib/forgesync",
		"set [paths] mods and paks in /etc/forgesync/forgesync.toml, then: systemctl enable --now forgesync"} {
		if !strings.Contains(post, want) {
			t.Errorf("postinst lacks %q:\n%s", want, post)
		}
	}
	if p := read(filepath.Join(control, "prerm")); !strings.Contains(p, "systemctl stop forgesync.service") {
		t.Errorf("prerm does not stop the service:\n%s", p)
	}
	if p := read(filepath.Join(control, "postrm")); !strings.Contains(p, "rm -rf /var/lib/forgesync") {
		t.Errorf("postrm does not remove the state on purge:\n%s", p)
	}

	tree := t.TempDir()
	dpkgDeb("-x", deb, tree)
	unit := read(filepath.Join(tree, debUnit))
	for _, want := range []string{"\nExecStart=/usr/bin/forgesync daemon --config /etc/forgesync/forgesync.toml --machine\n",
		"\nUser=forgesync\n", "\nStateDirectory=forgesync\n", "\nWantedBy=multi-user.target\n"} {
		if !strings.Contains(unit, want) {
			t.Errorf("the unit lacks %q:\n%s", want, unit)
		}
	}
	checkUnits(t, read(filepath.Join(tree, debUnit)), read(filepath.Join(tree, debUnits)), read("../../README.md"))
	// The default configuration, once a host names the game's folders,
	// points the daemon at the packaged modules and the service's state.
	conf := filepath.Join(t.TempDir(), "forgesync.toml")
	sample := strings.Replace(read(filepath.Join(tree, debConfig)), "# mods = \"/srv/game/Mods\"\n# paks = \"/srv/game/Content/Paks\"\n",
		"mods = \"/srv/game/Mods\"\npaks = \"/srv/game/Content/Paks\"\n", 1)
	os.WriteFile(conf, []byte(sample), 0o644)
	cfg, err := config.Load(conf)
	if err != nil {
		t.Fatalf("the packaged configuration: %v\n%s", err, sample)
	}
	if cfg.Deploy.Modules != debModules || cfg.Paths.State != "/var/lib/forgesync" || cfg.Paths.Mods != "/srv/game/Mods" {
		t.Errorf("the packaged configuration gives modules %q, state %q, mods %q", cfg.Deploy.Modules, cfg.Paths.State, cfg.Paths.Mods)
	}
}

// checkUnits checks the template unit of several servers on one host
// (the instance is the config's name, each with its own state) and that
// both units run as the user the README names.
func checkUnits(t *testing.T, unit, template, readme string) {
	t.Helper()
	for _, want := range []string{"\nExecStart=/usr/bin/forgesync daemon --config /etc/forgesync/%i.toml --machine\n",
		"\nStateDirectory=forgesync/%i\n", "\nWantedBy=multi-user.target\n"} {
		if !strings.Contains(template, want) {
			t.Errorf("forgesync@.service lacks %q:\n%s", want, template)
		}
	}
	user := func(u string) string {
		_, rest, ok := strings.Cut(u, "\nUser=")
		if !ok {
			return "root"
		}
		name, _, _ := strings.Cut(rest, "\n")
		return name
	}
	for name, u := range map[string]string{"forgesync.service": unit, "forgesync@.service": template} {
		if got := user(u); !strings.Contains(readme, "Both units run as the `"+got+"` user") {
			t.Errorf("%s runs as %s; the README does not say so (\"Both units run as the `%s` user\")", name, got, got)
		}
	}
	if !strings.Contains(readme, "`forgesync@.service`") || !strings.Contains(readme, "`forgesync@league` reads `/etc/forgesync/league.toml`") {
		t.Error("the README does not describe forgesync@.service and its instances")
	}
}
