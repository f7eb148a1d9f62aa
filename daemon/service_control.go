package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/native"
)

// Service describes the OS service that runs `forgesync daemon` with the
// configuration file of cfg: a service of the current user when user is
// set, else a machine service that resolves the config as the machine
// does and admits the installing user to the socket's folder. run is what
// the service runs (nil to only control it).
func Service(cfg *config.Config, user bool, log *slog.Logger, run func(ctx context.Context) error) ServiceConfig {
	args := []string{"daemon"}
	if cfg.File != "" {
		args = append(args, "--config", cfg.File)
	}
	if !user {
		args = append(args, "--machine")
		// The owner is a Windows SID; elsewhere the socket's mode guards it.
		if sid, err := currentUserSID(); err == nil && runtime.GOOS == "windows" {
			args = append(args, "--owner", sid)
		}
	}
	return ServiceConfig{
		Name: "forgesync", DisplayName: "forgesync",
		Description: "Keeps MJOLNIR Forge packs installed, validated and in sync",
		Arguments:   args, Run: run, Logger: log, UserService: user,
	}
}

// checkServiceInstall reports why the service of cfg cannot be installed:
// a configuration the service would not find, no game folder, or folders
// that cannot be given their ACL (see [secureFolders], which warns on log).
func checkServiceInstall(cfg *config.Config, user bool, log *slog.Logger) error {
	if err := config.CheckServiceInstall(cfg.File, user); err != nil {
		return err
	}
	if err := cfg.RequireGame(); err != nil {
		return err
	}
	return secureFolders(cfg, "", log)
}

// ServiceOptions says how [ControlService] controls the service.
type ServiceOptions struct {
	// User controls a service of the current user.
	User bool
	// NoNative installs without the native door module's bundle.
	NoNative bool
	// GOOS and Root are the OS and the file system root the service
	// manager is probed on: runtime.GOOS and "/" by default.
	GOOS, Root string
	// Home is the user's home folder, named for a user service's file.
	Home string
	// Control runs the action; [control] on a real service by
	// default (tests give a fake).
	Control func(cfg ServiceConfig, action string, out io.Writer) error
	// State reports whether the service is running, stopped or not
	// installed ([serviceState]); the real service's by default.
	State func(cfg ServiceConfig) (string, error)
}

// Fill sets the defaults of o's empty fields for a service action.
func (o *ServiceOptions) Fill(action string) error {
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	if o.Root == "" {
		o.Root = string(filepath.Separator)
	}
	if o.Home == "" && o.User {
		// A user service's file lies there: without it the file would be
		// named relative to wherever the command runs.
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("service %s: a user service's file lies in the home folder: %w", action, err)
		}
		o.Home = home
	}
	if o.Control == nil {
		o.Control = func(sc ServiceConfig, action string, out io.Writer) error {
			svc, err := serviceFor(sc)
			if err != nil {
				return err
			}
			return control(svc, action, out)
		}
	}
	if o.State == nil {
		o.State = func(sc ServiceConfig) (string, error) {
			svc, err := serviceFor(sc)
			if err != nil {
				return "", err
			}
			return serviceState(svc)
		}
	}
	return nil
}

// ControlService runs a service action for the service of cfg: it
// refuses, leaving nothing behind, where the machine has no service
// manager forgesync supports (never a SysV or upstart script); install
// checks the config and the native module's bundle first and names what
// it wrote, uninstall what it removed. status says not installed where
// there is no service manager.
func ControlService(cfg *config.Config, action string, opts ServiceOptions, log *slog.Logger, out io.Writer) error {
	if err := opts.Fill(action); err != nil {
		return err
	}
	name, err := DetectServiceManager(opts.GOOS, opts.Root, cfg.File)
	if err != nil {
		if action == actionStatus {
			_, err = fmt.Fprintf(out, "not installed (%s)\n", err)
			return err
		}
		return err
	}
	if action == ActionInstall {
		if err := CheckBundle(cfg, opts.NoNative); err != nil {
			return err
		}
		if err := checkServiceInstall(cfg, opts.User, log); err != nil {
			return err
		}
	}
	sc := Service(cfg, opts.User, log, nil)
	if err := opts.Control(sc, action, out); err != nil {
		return err
	}
	m := serviceManager{Name: name, User: opts.User, Home: opts.Home}
	verb := map[string]string{ActionInstall: "wrote", ActionUninstall: "removed"}[action]
	if verb == "" {
		return nil
	}
	for _, f := range m.Files(sc.Name) {
		if _, err := fmt.Fprintf(out, "%s %s\n", verb, f); err != nil {
			return err
		}
	}
	if action == ActionInstall && cfg.Log.File != "" {
		_, err = fmt.Fprintf(out, "the service logs to %s\n", cfg.Log.File)
	}
	return err
}

// CheckBundle reports why the service would run without the native door
// module: the release bundle's modules/ folder (beside the executable, or
// [deploy] modules) lacks it. It passes when noNative is set or the
// config says [deploy] native = false.
func CheckBundle(cfg *config.Config, noNative bool) error {
	if noNative || !cfg.Deploy.Native {
		return nil
	}
	if cfg.Deploy.Modules == "" {
		return errors.New("no release bundle: there is no modules/ folder beside the executable and no [deploy] modules; install from the unzipped release archive, or pass --no-native (or set [deploy] native = false) for a server that needs no door module")
	}
	for _, n := range []string{native.ModulePath(), native.VersionPath()} {
		p := filepath.Join(cfg.Deploy.Modules, filepath.FromSlash(n))
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("the release bundle %s has no %s, so the service could not deploy the native door module: install from the unzipped release archive (or `make dist`), set [deploy] modules, or pass --no-native (or set [deploy] native = false) for a server that needs no door module", cfg.Deploy.Modules, n)
		}
	}
	return nil
}

// SetupService returns the options `forgesync setup --service` installs
// the service with on an OS goos: a service of the user for the user's
// config, the machine's for the machine's (--machine). Windows has no
// user services that start without a stored password, so there setup
// needs --machine.
func SetupService(goos string, machine bool) (ServiceOptions, error) {
	if goos == "windows" && !machine {
		return ServiceOptions{}, errors.New("--service on Windows installs the machine service, which reads the machine's config: run `forgesync setup --machine --service` from an administrator prompt")
	}
	return ServiceOptions{GOOS: goos, User: !machine}, nil
}
