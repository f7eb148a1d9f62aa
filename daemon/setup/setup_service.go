package setup

import (
	"errors"
	"fmt"

	"github.com/mjolnir-forge/forgesync/daemon"
)

// errServiceNotRunning wraps what stops the service once setup has
// written the config, with what undoes it.
var errServiceNotRunning = errors.New("--service: the config is written, but the service is not running (`forgesync setup --undo` removes what setup made, the service too)")

// checkService refuses `setup --service` before anything is written when
// the service cannot be installed: the user's config on Windows (only the
// machine's service starts there without a stored password), no service
// manager, no release bundle, or a service of that name that setup did
// not install (setup would neither take it over nor record it).
func (r *setupRun) checkService() error {
	opts := r.o.Service
	if opts == nil {
		return nil
	}
	if err := opts.Fill(daemon.ActionInstall); err != nil {
		return err
	}
	if _, err := daemon.SetupService(opts.GOOS, r.o.Env.Machine); err != nil {
		return err
	}
	opts.User = !r.o.Env.Machine
	if _, err := daemon.DetectServiceManager(opts.GOOS, opts.Root, r.file); err != nil {
		return fmt.Errorf("--service: %w", err)
	}
	if err := daemon.CheckBundle(r.cfg, opts.NoNative); err != nil {
		return fmt.Errorf("--service: %w", err)
	}
	sc := daemon.Service(r.cfg, opts.User, r.o.Log, nil)
	state, err := opts.State(sc)
	if err != nil {
		return fmt.Errorf("--service: %w", err)
	}
	if state == daemon.StateNotInstalled {
		return nil
	}
	if prev, err := readSetupRecord(r.recordPath); err != nil || prev.Config != r.file || prev.Service == nil {
		return fmt.Errorf("--service: a %s service is installed already (%s), and setup did not install it: leave out --service, or remove that service first (`forgesync service uninstall`)", sc.Name, state)
	}
	return nil
}

// startService installs the service when setup is to and it is not
// installed, recording it in rec first (so that an undo after a crash
// still removes it), and starts it when it is not running.
func (r *setupRun) startService(rec *setupRecord) error {
	opts := r.o.Service
	if opts == nil {
		return nil
	}
	sc := daemon.Service(r.cfg, opts.User, r.o.Log, nil)
	state, err := opts.State(sc)
	if err != nil {
		return fmt.Errorf("%w: %w", errServiceNotRunning, err)
	}
	if state == daemon.StateNotInstalled {
		if rec.Config == "" {
			rec.Config, rec.SHA256 = r.file, hash(r.text)
		}
		rec.Service = &serviceRecord{Name: sc.Name, User: opts.User}
		if err := writeSetupRecord(r.recordPath, *rec); err != nil {
			return err
		}
		if err := daemon.ControlService(r.cfg, daemon.ActionInstall, *opts, r.o.Log, r.out); err != nil {
			return fmt.Errorf("%w: %w", errServiceNotRunning, err)
		}
	}
	if state == daemon.StateRunning {
		_, err := fmt.Fprintf(r.out, "service %s: running\n", sc.Name)
		return err
	}
	if err := daemon.ControlService(r.cfg, daemon.ActionStart, *opts, r.o.Log, r.out); err != nil {
		return fmt.Errorf("%w: %w", errServiceNotRunning, err)
	}
	return nil
}
