package setup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/text"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// SetupUndo removes what [Setup] made for o.Env, as its record in the
// state folder of the config says: it stops and uninstalls the service
// setup installed (controlled with o.Service's options), removes the
// config file when it still holds the bytes setup wrote, the record, and
// the folders setup made that are empty. It never removes a pack, a file
// setup did not write, or a folder that is not empty; whatever it keeps
// it names. When the service cannot be removed it removes nothing.
func SetupUndo(ctx context.Context, o SetupOptions, out io.Writer) error {
	file := configFile(o.Env)
	data, err := atomicfile.ReadFile(file, config.MaxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		_, err = fmt.Fprintf(out, "nothing to undo: there is no %s\n", file)
		return err
	}
	if err != nil {
		return fmt.Errorf("setup --undo: read %s: %w", file, err)
	}
	cfg, err := config.ParseEnv(file, data, o.Env)
	if err != nil {
		return fmt.Errorf("setup --undo: %w", err)
	}
	recordPath := filepath.Join(cfg.Paths.State, setupRecordName)
	if _, err := undoRecord(recordPath, file, cfg); err != nil {
		return err
	}
	warnInstalled(cfg, out)
	o.State = cfg.Paths.State
	lock, err := lockSetup(ctx, &o, out)
	if err != nil {
		return err
	}
	rec, err := undoRecord(recordPath, file, cfg) // again, under the lock
	if err == nil {
		err = undoLocked(cfg, o, rec, data, recordPath, out)
	}
	lock.Unlock()
	if err != nil {
		return err
	}
	removeLockFile(filepath.Join(cfg.Paths.State, setupLockName), out)
	for i := len(rec.Made) - 1; i >= 0; i-- {
		undoFolder(rec.Made[i], out)
	}
	return nil
}

// undoRecord reads setup's record of file at path.
func undoRecord(path, file string, cfg *config.Config) (setupRecord, error) {
	rec, err := readSetupRecord(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && rec.Config != file {
		return rec, fmt.Errorf("setup --undo: %s has no record of %s (%s), so setup did not write it: remove it by hand if you want it gone", cfg.Paths.State, file, path)
	}
	if err != nil {
		return rec, fmt.Errorf("setup --undo: %w", err)
	}
	return rec, nil
}

// undoLocked removes, under the state folder's lock, the service, then
// the config file when it holds what setup wrote, then the record.
func undoLocked(cfg *config.Config, o SetupOptions, rec setupRecord, data []byte, recordPath string, out io.Writer) error {
	if rec.Service != nil {
		if err := undoService(cfg, o, *rec.Service, out); err != nil {
			return fmt.Errorf("setup --undo: the %s service setup installed is still there: %w; nothing else was removed: run setup --undo again as an administrator (root)", rec.Service.Name, err)
		}
	}
	if hash(data) == rec.SHA256 {
		if err := os.Remove(cfg.File); err != nil {
			return fmt.Errorf("setup --undo: %w", err)
		}
		fmt.Fprintf(out, "removed %s\n", cfg.File)
	} else {
		fmt.Fprintf(out, "kept %s: it was changed after setup wrote it\n", cfg.File)
	}
	unregisterURLHandler(rec.URLHandler, out)
	if err := os.Remove(recordPath); err != nil {
		return fmt.Errorf("setup --undo: %w", err)
	}
	_, err := fmt.Fprintf(out, "removed %s\n", recordPath)
	return err
}

// undoService stops the service s when it runs and uninstalls it, naming
// what it did on out; one that is gone already is named as gone.
func undoService(cfg *config.Config, o SetupOptions, s serviceRecord, out io.Writer) error {
	var opts daemon.ServiceOptions
	if o.Service != nil {
		opts = *o.Service
	}
	opts.User = s.User
	if err := opts.Fill(daemon.ActionUninstall); err != nil {
		return err
	}
	if _, err := daemon.DetectServiceManager(opts.GOOS, opts.Root, cfg.File); err != nil {
		_, err = fmt.Fprintf(out, "service %s: not installed (%v)\n", s.Name, err)
		return err
	}
	sc := daemon.Service(cfg, s.User, o.Log, nil)
	sc.Name = s.Name
	state, err := opts.State(sc)
	if err != nil {
		return err
	}
	switch state {
	case daemon.StateNotInstalled:
		_, err = fmt.Fprintf(out, "service %s: not installed any more\n", s.Name)
		return err
	case daemon.StateRunning:
		if err := daemon.ControlService(cfg, daemon.ActionStop, opts, o.Log, out); err != nil {
			return err
		}
	}
	return daemon.ControlService(cfg, daemon.ActionUninstall, opts, o.Log, out)
}

// undoFolder removes dir, a folder setup's record names, when it is one
// and empty; anything else there is kept and named.
func undoFolder(dir string, out io.Writer) {
	if !filepath.IsAbs(dir) {
		fmt.Fprintf(out, "kept %s: not an absolute path, so not a folder setup made\n", dir)
		return
	}
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		fmt.Fprintf(out, "kept %s: %v\n", dir, err)
		return
	case fi.Mode()&fs.ModeSymlink != 0 || fi.Mode()&fs.ModeIrregular != 0:
		fmt.Fprintf(out, "kept %s: a link, not a folder setup made\n", dir)
		return
	case !fi.IsDir():
		fmt.Fprintf(out, "kept %s: a file, not a folder setup made\n", dir)
		return
	}
	err = removeDir(dir)
	switch {
	case err == nil:
		fmt.Fprintf(out, "removed folder %s\n", dir)
	case errors.Is(err, fs.ErrNotExist):
	default:
		if entries, rerr := os.ReadDir(dir); rerr == nil && len(entries) > 0 {
			fmt.Fprintf(out, "kept folder %s: it is not empty\n", dir)
		} else {
			fmt.Fprintf(out, "kept folder %s: %v\n", dir, err)
		}
	}
}

// removeLockFile removes setup's lock file at path when it is what setup
// made: an empty regular file.
func removeLockFile(path string, out io.Writer) {
	fi, err := os.Lstat(path)
	if err != nil {
		return
	}
	if !fi.Mode().IsRegular() || fi.Size() != 0 {
		fmt.Fprintf(out, "kept %s: not the empty lock file setup made\n", path)
		return
	}
	if err := os.Remove(path); err != nil {
		fmt.Fprintf(out, "kept %s: %v\n", path, err)
	}
}

// warnInstalled says, when packs are installed, that undo leaves them and
// what removes them: once the config is gone no command finds the state.
func warnInstalled(cfg *config.Config, out io.Writer) {
	packs, err := pipeline.ReadPacks(cfg.Paths.State)
	if err != nil || len(packs) == 0 {
		return
	}
	ids := make([]string, len(packs))
	for i, p := range packs {
		ids[i] = p.Manifest.ID
	}
	fmt.Fprintf(out, "warning: %s installed (%s): setup --undo leaves them, their content, the deployed scripts and the state %s; `forgesync uninstall` removes all of it (run it before setup --undo: without the config no command finds them)\n",
		text.Of(len(packs), "pack is", "packs are"), strings.Join(ids, ", "), cfg.Paths.State)
}
