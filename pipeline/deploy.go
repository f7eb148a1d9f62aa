package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/mjolnir-forge/forgesync/installer"
	"github.com/mjolnir-forge/forgesync/native"
)

// Deploy redeploys what the game needs beside the inventory: the Lua lift
// scripts into <mods>/MJOLNIRLevelLoader/Scripts/ and, when a release
// bundle is configured, the native door module into
// <mods>/MJOLNIRLobby/dlls/. Each file is written only when missing or
// different, and never over a file forgesync did not write. It runs on the
// writer (a game update can wipe the files at any time, so the daemon calls
// it at start and after every transaction).
func (p *Pipeline) Deploy(ctx context.Context) ([]installer.FileReport, error) {
	d := &installer.Deployer{StateDir: p.store.Dir, Renamer: p.opts.Renamer, Now: p.opts.Now}
	var reports []installer.FileReport
	var errs []error
	if p.opts.DeployLua {
		r, err := d.DeployLua(ctx, p.opts.Mods)
		reports = append(reports, r...)
		errs = append(errs, err)
	}
	if p.opts.DeployNative {
		r, err := p.deployNative(ctx, d)
		reports = append(reports, r...)
		errs = append(errs, err)
	}
	return reports, errors.Join(errs...)
}

// deployNative deploys the module DLL and its version file from the
// release bundle. Without a bundle it reports the module missing.
func (p *Pipeline) deployNative(ctx context.Context, d *installer.Deployer) ([]installer.FileReport, error) {
	names := []string{native.ModulePath(), native.VersionPath()}
	if p.opts.Modules == "" {
		return []installer.FileReport{missingModule("no release bundle configured ([deploy] modules)")}, nil
	}
	src := os.DirFS(p.opts.Modules)
	for _, n := range names {
		if _, err := fs.Stat(src, n); err != nil {
			return []installer.FileReport{missingModule(fmt.Sprintf("the release bundle %s has no %s (build it with `make dist`)", p.opts.Modules, n))}, nil
		}
	}
	return d.Deploy(ctx, installer.Deployment{Component: "native", Source: src, Names: names, Target: p.opts.Mods})
}

func missingModule(reason string) installer.FileReport {
	return installer.FileReport{Component: "native", Name: native.ModulePath(), Status: installer.DeployFailed,
		Reason: "native door module missing: " + reason}
}
