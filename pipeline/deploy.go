package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/mjolnir-forge/forgesync/installer/deploy"
	"github.com/mjolnir-forge/forgesync/native"
)

// Deploy redeploys what the game needs beside the inventory: the Lua lift
// scripts into <mods>/MJOLNIRLevelLoader/Scripts/ and, when a release
// bundle is configured, the native door module into
// <mods>/MJOLNIRLobby/dlls/. Each file is written only when missing or
// different, and never over a file forgesync did not write. It runs on the
// writer (a game update can wipe the files at any time, so the daemon calls
// it at start and after every transaction). Files the game holds share the
// pass's one wait (see BeginPass) with its transactions: then each waits as
// a pending file for the next deploy, and the writer is not stalled.
func (p *Pipeline) Deploy(ctx context.Context) ([]deploy.FileReport, error) {
	r := p.passRenamer()
	d := &deploy.Deployer{StateDir: p.store.Dir, Renamer: r, Now: p.opts.Now}
	var reports []deploy.FileReport
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
	for _, r := range reports {
		if r.Status == deploy.Deployed || r.Status == deploy.StagedLocked {
			p.obs.ModuleDeployed(r)
		}
	}
	return reports, errors.Join(errs...)
}

// Modules is what status shows of the deployed modules: the version
// gates, what the last deploy did with each file, whether doors can be
// automated at all (the gates allow it and the native module was not
// missing or failed), and the game builds the release's native module
// accepts.
type Modules struct {
	Gates           native.Gates
	Deployed        []deploy.FileReport
	DoorAutomation  bool
	SupportedBuilds []string
	// DoorAutomationOff says why doors are not automated when the
	// machine's configuration, not the gates, turned it off; empty
	// otherwise.
	DoorAutomationOff string
}

// NativeOff is why door automation is off on a machine that deploys no
// door module.
const NativeOff = "[deploy] native = false: this machine deploys no door module (set it true to animate doors)"

// DeployModules deploys (see Deploy) and returns what status shows of it,
// and the warnings a user must hear of.
func (p *Pipeline) DeployModules(ctx context.Context) (*Modules, []string) {
	reports, err := p.Deploy(ctx)
	m := &Modules{Gates: native.CheckGatesDir(p.opts.Mods), Deployed: reports, SupportedBuilds: native.SupportedBuilds()}
	m.DoorAutomation = m.Gates.DoorAutomation && !slices.ContainsFunc(reports, func(r deploy.FileReport) bool {
		return r.Component == "native" && r.Status == deploy.DeployFailed
	})
	if !p.opts.DeployNative {
		// Nothing puts the module in place: the gates alone make nothing work.
		m.DoorAutomation, m.DoorAutomationOff = false, NativeOff
	}
	warnings, _ := DeployWarnings(reports, err)
	return m, warnings
}

// deployNative deploys the module DLL and its version file from the
// release bundle. Without a bundle it reports the module missing.
func (p *Pipeline) deployNative(ctx context.Context, d *deploy.Deployer) ([]deploy.FileReport, error) {
	dep := p.nativeDeployment()
	if p.opts.Modules == "" {
		return []deploy.FileReport{missingModule("no release bundle configured ([deploy] modules)")}, nil
	}
	dep.Source = os.DirFS(p.opts.Modules)
	for _, n := range dep.Names {
		if _, err := fs.Stat(dep.Source, n); err != nil {
			return []deploy.FileReport{missingModule(fmt.Sprintf("the release bundle %s has no %s (build it with `make dist`)", p.opts.Modules, n))}, nil
		}
	}
	return d.Deploy(ctx, dep)
}

// nativeDeployment is the deployment of the native module into the mods
// folder, without its source.
func (p *Pipeline) nativeDeployment() deploy.Deployment { return nativeDeploymentOf(p.opts.Mods) }

// nativeDeploymentOf is the deployment of the native module into mods,
// without its source.
func nativeDeploymentOf(mods string) deploy.Deployment {
	return deploy.Deployment{Component: "native", Names: []string{native.ModulePath(), native.VersionPath()}, Target: mods, Base: mods}
}

func missingModule(reason string) deploy.FileReport {
	return deploy.FileReport{Component: "native", Name: native.ModulePath(), Status: deploy.DeployFailed,
		Reason: "native door module missing: " + reason}
}

// DeployWarnings turns what a deploy could not do into warnings, one per
// problem (a file's report already says what its error says, so the error
// is added only when no report carries it), and reports whether a file
// failed: `sync` then exits non-zero. A module missing from the bundle is
// a warning, not a failure.
func DeployWarnings(reports []deploy.FileReport, err error) (warnings []string, failed bool) {
	seen := map[string]bool{}
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			warnings = append(warnings, w)
		}
	}
	for _, r := range reports {
		switch r.Status {
		case deploy.DeployFailed, deploy.ForeignSkipped, deploy.StagedLocked:
			add(fmt.Sprintf("%s %s: %s: %s", r.Component, r.Name, r.Status, r.Reason))
		}
		if r.Status == deploy.DeployFailed && r.Path != "" {
			failed = true
		}
	}
	if err != nil && !failed {
		add("deploy: " + err.Error())
		failed = true
	}
	return warnings, failed
}
