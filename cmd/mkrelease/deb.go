package main

import (
	"embed"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the deb packager
	"github.com/goreleaser/nfpm/v2/files"

	"github.com/mjolnir-forge/forgesync/native"
)

// debian holds the .deb's systemd unit, its default configuration (a
// conffile) and its maintainer scripts.
//
//go:embed debian
var debian embed.FS

// Where the .deb puts things.
const (
	debBinary  = "/usr/bin/forgesync"
	debModules = "/usr/lib/forgesync/modules"
	debUnit    = "/usr/lib/systemd/system/forgesync.service"
	debUnits   = "/usr/lib/systemd/system/forgesync@.service" // one per server: the instance is the config's name
	debConfig  = "/etc/forgesync/forgesync.toml"
	debDoc     = "/usr/share/doc/forgesync"
)

// debName is the file name of the .deb of version.
func debName(version string) string { return "forgesync_" + debVersion(version) + "_amd64.deb" }

// debVersion makes version a Debian version, which starts with a digit
// (a bare commit hash does not).
func debVersion(v string) string {
	if v != "" && v[0] >= '0' && v[0] <= '9' {
		return v
	}
	return "0~" + v
}

// writeDeb writes the .deb for hosts from a Linux bundle (as `make dist` leaves
// it in dist/linux) and the repository root (README.md, LICENSE): the
// binary in /usr/bin, the modules bundle in /usr/lib/forgesync/modules
// (which the default configuration names, as [deploy] modules), the
// systemd unit running `forgesync daemon --machine` as the forgesync user
// that postinst makes, state in /var/lib/forgesync, the template unit
// forgesync@.service for several servers on one host (forgesync@NAME reads
// /etc/forgesync/NAME.toml, state in /var/lib/forgesync/NAME), and
// /etc/forgesync/forgesync.toml as a conffile. Every file is dated mtime.
func writeDeb(w io.Writer, version, bundle, root string, mtime time.Time) error {
	tmp, err := os.MkdirTemp("", "forgesync-deb")
	if err != nil {
		return fmt.Errorf("deb: %w", err)
	}
	defer os.RemoveAll(tmp)
	// nfpm reads its sources from files: the embedded ones go to tmp.
	own := map[string]string{}
	for _, n := range []string{"forgesync.service", "forgesync@.service", "forgesync.toml", "postinst", "prerm", "postrm"} {
		data, err := debian.ReadFile("debian/" + n)
		if err != nil {
			return fmt.Errorf("deb: %w", err)
		}
		own[n] = filepath.Join(tmp, n)
		if err := os.WriteFile(own[n], data, 0o644); err != nil {
			return fmt.Errorf("deb: %w", err)
		}
	}
	at := func(mode os.FileMode) *files.ContentFileInfo {
		return &files.ContentFileInfo{Owner: "root", Group: "root", Mode: mode, MTime: mtime}
	}
	contents := files.Contents{
		{Source: filepath.Join(bundle, "forgesync"), Destination: debBinary, FileInfo: at(0o755)},
		{Source: own["forgesync.service"], Destination: debUnit, FileInfo: at(0o644)},
		{Source: own["forgesync@.service"], Destination: debUnits, FileInfo: at(0o644)},
		{Source: own["forgesync.toml"], Destination: debConfig, Type: files.TypeConfigNoReplace, FileInfo: at(0o644)},
		{Source: filepath.Join(root, "README.md"), Destination: debDoc + "/README.md", FileInfo: at(0o644)},
		{Source: filepath.Join(root, "LICENSE"), Destination: debDoc + "/copyright", FileInfo: at(0o644)},
	}
	for _, n := range []string{native.ModulePath(), native.VersionPath()} {
		contents = append(contents, &files.Content{Source: filepath.Join(bundle, "modules", filepath.FromSlash(n)),
			Destination: path.Join(debModules, n), FileInfo: at(0o644)})
	}
	for _, c := range contents {
		if _, err := os.Stat(c.Source); err != nil {
			return fmt.Errorf("deb: %s: %w", c.Destination, err)
		}
	}
	info := nfpm.WithDefaults(&nfpm.Info{
		Name: "forgesync", Arch: "amd64", Platform: "linux",
		Version: debVersion(version), VersionSchema: "none",
		Section: "games", Priority: "optional",
		Maintainer:  "the forgesync authors <forgesync@localhost>",
		Description: "keeps MJOLNIR Forge mod packs installed, validated and in sync\nThe forgesync daemon as a systemd service for game server hosts.",
		License:     "MIT",
		MTime:       mtime,
		Overridables: nfpm.Overridables{
			Depends:  []string{"passwd"},
			Contents: contents,
			Scripts:  nfpm.Scripts{PostInstall: own["postinst"], PreRemove: own["prerm"], PostRemove: own["postrm"]},
		},
	})
	if err := nfpm.PrepareForPackager(info, "deb"); err != nil {
		return fmt.Errorf("deb: %w", err)
	}
	if err := nfpm.Validate(info); err != nil {
		return fmt.Errorf("deb: %w", err)
	}
	p, err := nfpm.Get("deb")
	if err != nil {
		return fmt.Errorf("deb: %w", err)
	}
	if err := p.Package(info, w); err != nil {
		return fmt.Errorf("deb: %w", err)
	}
	return nil
}
