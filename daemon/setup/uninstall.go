package setup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mjolnir-forge/forgesync/config"
	"github.com/mjolnir-forge/forgesync/daemon"
	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/text"
	"github.com/mjolnir-forge/forgesync/pipeline"
)

// errNotConfirmed is returned by [Uninstall] when there is no terminal to
// confirm on and --yes was not given: nothing was removed.
var errNotConfirmed = errors.New("uninstall: not confirmed: there is no terminal to ask on; run `forgesync uninstall --yes` to remove all of the above")

// UninstallOptions are what `forgesync uninstall` was given.
type UninstallOptions struct {
	// Config is the config the command found; its state folder holds
	// setup's record.
	Config *config.Config
	// Service controls the service setup installed, when it did.
	Service daemon.ServiceOptions
	Log     *slog.Logger
	// Yes confirms without asking (--yes); else Terminal says whether In
	// is a terminal to ask on.
	Yes      bool
	Terminal bool
	In       io.Reader
	// DeleteDropped deletes the archives the player dropped that wait in
	// drop or were rejected; by default they are kept.
	DeleteDropped bool
	// LockWait bounds the wait for another forgesync holding the state.
	LockWait time.Duration
}

// uninstallRun is one run of [Uninstall]: its options, setup's record
// (when setup wrote the config) and where it says.
type uninstallRun struct {
	o         UninstallOptions
	cfg       *config.Config
	rec       setupRecord
	hasRecord bool
	out       io.Writer
}

// Uninstall removes everything forgesync made for the config of o, after
// naming it and a confirmation: the service setup installed (stopped
// first), every installed pack's content, the deployed scripts and
// module, the inventory files, forgesync's files in drop, the state, the
// config and the folders setup (or a later install) made that setup found
// missing. The game's folders are left as they were before setup. It never
// removes a file forgesync did not write: a file the player put into a
// pack's folder or the mods folder is kept and named, and so are the
// archives the player dropped unless o.DeleteDropped. It refuses while a
// daemon it did not stop answers, removing nothing.
func Uninstall(ctx context.Context, o UninstallOptions, out io.Writer) error {
	r := &uninstallRun{o: o, cfg: o.Config, out: out}
	rec, err := readSetupRecord(filepath.Join(r.cfg.Paths.State, setupRecordName))
	r.rec, r.hasRecord = rec, err == nil && rec.Config == r.cfg.File
	if ok, err := r.confirm(); err != nil || !ok {
		return err
	}
	removed := "nothing was removed"
	if r.hasRecord && r.rec.Service != nil {
		so := SetupOptions{Service: &o.Service, Log: o.Log}
		if err := undoService(r.cfg, so, *r.rec.Service, out); err != nil {
			return fmt.Errorf("uninstall: the %s service is still there: %w; nothing else was removed: run uninstall again as an administrator (root)", r.rec.Service.Name, err)
		}
		removed = "only the service was removed"
	}
	if c := daemon.Dial(ctx, r.cfg); c != nil {
		c.Close()
		return fmt.Errorf("uninstall: a forgesync daemon answers on %s: stop it (Ctrl-C where it runs, or `forgesync service stop`) and run uninstall again; %s", r.cfg.Paths.Socket, removed)
	}
	p := r.cfg.Paths
	u, err := pipeline.Uninstall(ctx, pipeline.Options{Drop: p.Drop, Mods: p.Mods, Paks: p.Paks, State: p.State, LockWait: o.LockWait}, o.DeleteDropped)
	if u != nil {
		r.report(u.Removed, u.Kept)
	}
	if err != nil {
		return err
	}
	if r.hasRecord {
		unregisterURLHandler(r.rec.URLHandler, out)
	}
	r.removeState()
	r.removeConfig()
	r.removeFolders()
	_, err = fmt.Fprintln(out, "forgesync is uninstalled; the folder you unpacked the release into is yours to delete")
	return err
}

// confirm names what uninstall removes and keeps, and asks; it reports
// whether to go on.
func (r *uninstallRun) confirm() (bool, error) {
	packs, err := pipeline.ReadPacks(r.cfg.Paths.State)
	if err != nil {
		return false, fmt.Errorf("uninstall: %w", err)
	}
	dropped, err := pipeline.Dropped(r.cfg.Paths.Drop)
	if err != nil {
		return false, fmt.Errorf("uninstall: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "forgesync uninstall removes:\n")
	if len(packs) > 0 {
		ids := make([]string, len(packs))
		for i, p := range packs {
			ids[i] = p.Manifest.ID + " " + p.Manifest.Version
		}
		fmt.Fprintf(&b, "  %s (%s), their content under %s\n", text.Count(len(packs), "installed pack"), strings.Join(ids, ", "), r.cfg.Paths.Paks)
	}
	fmt.Fprintf(&b, "  the Lua scripts and the door module it deployed into %s, and the inventory files\n", r.cfg.Paths.Mods)
	fmt.Fprintf(&b, "  the drop folder %s, the state folder %s and the config %s\n", r.cfg.Paths.Drop, r.cfg.Paths.State, r.cfg.File)
	if r.hasRecord && r.rec.Service != nil {
		fmt.Fprintf(&b, "  the %s service (stopped first)\n", r.rec.Service.Name)
	}
	for _, d := range dropped {
		if r.o.DeleteDropped {
			fmt.Fprintf(&b, "  %s, an archive you dropped (--delete-dropped)\n", d)
		} else {
			fmt.Fprintf(&b, "and keeps %s, an archive you dropped (--delete-dropped deletes it)\n", d)
		}
	}
	if _, err := io.WriteString(r.out, b.String()); err != nil {
		return false, err
	}
	if r.o.Yes {
		return true, nil
	}
	if !r.o.Terminal {
		return false, errNotConfirmed
	}
	fmt.Fprint(r.out, "remove all of this? [y/N]: ")
	line := bufio.NewScanner(r.o.In)
	line.Scan()
	if a := strings.ToLower(strings.TrimSpace(line.Text())); a == "y" || a == "yes" {
		return true, nil
	}
	_, err = fmt.Fprintln(r.out, "nothing removed")
	return false, err
}

// report names what was removed and what was kept.
func (r *uninstallRun) report(removed, kept []string) {
	for _, p := range removed {
		fmt.Fprintf(r.out, "removed %s\n", p)
	}
	for _, k := range kept {
		fmt.Fprintf(r.out, "kept %s\n", k)
	}
}

// removeState removes the state folder's contents, but what it held
// before setup when setup did not make it; without setup's record it keeps
// the folder and says so.
func (r *uninstallRun) removeState() {
	state := r.cfg.Paths.State
	if _, err := os.Lstat(state); errors.Is(err, fs.ErrNotExist) {
		return
	}
	if !r.hasRecord {
		fmt.Fprintf(r.out, "kept %s: no record of setup there, so forgesync cannot tell what else is yours in it: remove it by hand\n", state)
		return
	}
	entries, err := os.ReadDir(state)
	if err != nil {
		fmt.Fprintf(r.out, "kept %s: %v\n", state, err)
		return
	}
	removed := 0
	for _, e := range entries {
		if slices.Contains(r.rec.StateBefore, e.Name()) {
			fmt.Fprintf(r.out, "kept %s: it was there before setup\n", filepath.Join(state, e.Name()))
			continue
		}
		if err := atomicfile.RemoveAll(atomicfile.Renamer{}, filepath.Join(state, e.Name())); err != nil {
			fmt.Fprintf(r.out, "kept %s: %v\n", filepath.Join(state, e.Name()), err)
			continue
		}
		removed++
	}
	fmt.Fprintf(r.out, "removed %s from %s (forgesync's state)\n", text.Of(removed, "entry", "entries"), state)
}

// removeConfig removes the config when it holds what setup wrote.
func (r *uninstallRun) removeConfig() {
	data, err := atomicfile.ReadFile(r.cfg.File, config.MaxConfigBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		fmt.Fprintf(r.out, "kept %s: %v\n", r.cfg.File, err)
	case !r.hasRecord:
		fmt.Fprintf(r.out, "kept %s: setup did not write it\n", r.cfg.File)
	case hash(data) != r.rec.SHA256:
		fmt.Fprintf(r.out, "kept %s: it was changed after setup wrote it\n", r.cfg.File)
	default:
		if err := os.Remove(r.cfg.File); err != nil {
			fmt.Fprintf(r.out, "kept %s: %v\n", r.cfg.File, err)
			return
		}
		fmt.Fprintf(r.out, "removed %s\n", r.cfg.File)
	}
}

// removeFolders removes, innermost first and while empty, the folders
// setup made and those forgesync made later that setup found missing;
// every other folder stays.
func (r *uninstallRun) removeFolders() {
	if !r.hasRecord {
		return
	}
	dirs := mergeMade(r.rec.Made, r.rec.Absent)
	slices.SortStableFunc(dirs, func(a, b string) int {
		return strings.Count(b, string(filepath.Separator)) - strings.Count(a, string(filepath.Separator))
	})
	for _, d := range dirs {
		undoFolder(d, r.out)
	}
}
