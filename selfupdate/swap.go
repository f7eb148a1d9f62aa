package selfupdate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/internal/filelock"
)

// The names forgesync owns beside its executable.
const (
	workName    = ".forgesync-update" // the work folder
	modulesName = "modules"
	versionName = "VERSION"  // in a staged or kept version: its version
	journalName = "journal"  // in the work folder while a swap runs
	oldSuffix   = ".old"     // Windows: the running executable, set aside
	newName     = "new"      // the staged version
	prevName    = "previous" // the version before the last swap
	keepName    = "keep"     // the running version, while being swapped out
	lockName    = "lock"     // held while an update or a recovery runs
)

// dpkgInfo is where dpkg lists the files of each installed package.
var dpkgInfo = "/var/lib/dpkg/info"

// Result says what an update or a rollback did.
type Result struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Changed bool   `json:"changed"` // false: already the newest
}

// install is an installed forgesync: its executable and the folder it
// lies in.
type install struct {
	dir, exe string
	// aside renames the running executable aside before the new one
	// comes in: Windows does not rename over a running program.
	aside bool
	// crash, when set, reports whether to stop before step as a crash
	// would, leaving everything as it is (tests).
	crash func(step string) bool
}

// errCrash is what a swap returns when install.crash stopped it.
var errCrash = errors.New("stopped as by a crash")

// locate returns the install of the executable exe, refusing one a
// package manager owns.
func locate(exe string) (install, error) {
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return install{}, fmt.Errorf("selfupdate: find the running executable %s: %w", exe, err)
	}
	if goos == "linux" {
		if err := notPackaged(real); err != nil {
			return install{}, err
		}
	}
	return install{dir: filepath.Dir(real), exe: filepath.Base(real), aside: goos == "windows"}, nil
}

// notPackaged refuses an executable dpkg installed (the .deb).
func notPackaged(exe string) error {
	f, err := os.Open(filepath.Join(dpkgInfo, "forgesync.list"))
	if err != nil {
		return nil // no package of that name
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p := sc.Text(); p == exe || evalSame(p, exe) {
			return errkind.Errorf(errkind.Refused, "selfupdate: apt owns this install (%s, from the forgesync package): run apt upgrade, or install the new release's .deb", exe)
		}
	}
	return nil
}

// evalSame reports whether the listed path p, its links followed, is exe.
func evalSame(p, exe string) bool {
	r, err := filepath.EvalSymlinks(p)
	return err == nil && r == exe
}

func (in install) path(parts ...string) string {
	return filepath.Join(append([]string{in.dir}, parts...)...)
}

func (in install) work(parts ...string) string {
	return in.path(append([]string{workName}, parts...)...)
}

func (in install) step(name string) error {
	if in.crash != nil && in.crash(name) {
		return fmt.Errorf("%s: %w", name, errCrash)
	}
	return nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// stageVersion writes files and their version into the work folder's new/.
func (in install) stageVersion(files []file, version string) error {
	if err := os.MkdirAll(in.work(), 0o755); err != nil {
		return fmt.Errorf("selfupdate: cannot write beside the executable (%w): run the update as the user that installed forgesync", err)
	}
	files = append(files, file{name: versionName, data: []byte(version + "\n")})
	return stage(in.work(newName), files)
}

// swap puts the version staged in src (the work folder's new or
// previous) in place of the running one, which it keeps as previous. At
// every step the executable is whole, the old or the new (on Windows,
// between two renames, as forgesync.exe.old), and the journal lets
// [install.recover] finish or undo a swap a crash cut short.
func (in install) swap(src, current string) error {
	keep := in.work(keepName)
	if err := removeAll(keep); err != nil {
		return fmt.Errorf("selfupdate: clear %s: %w", keep, err)
	}
	exe, err := os.ReadFile(in.path(in.exe))
	if err != nil {
		return fmt.Errorf("selfupdate: keep the running version: %w", err)
	}
	err = stage(keep, []file{{name: in.exe, data: exe, exec: true}, {name: versionName, data: []byte(current + "\n")}})
	if err != nil {
		return err
	}
	had := "0"
	if exists(in.path(modulesName)) {
		had = "1"
	}
	if err := atomicfile.WriteFile(in.work(journalName), []byte(filepath.Base(src)+" "+had+"\n"), 0o644); err != nil {
		return fmt.Errorf("selfupdate: journal: %w", err)
	}
	if err := in.swapIn(src, keep, had == "1"); err != nil {
		return errors.Join(err, in.undoIfStopped(err))
	}
	return in.finish(src)
}

// undoIfStopped undoes a swap that failed (not one a test stopped as a
// crash would: that is for recover).
func (in install) undoIfStopped(err error) error {
	if errors.Is(err, errCrash) {
		return nil
	}
	return in.recover()
}

// swapIn moves the modules and then the executable from src into place,
// the running ones into keep.
func (in install) swapIn(src, keep string, hadModules bool) error {
	var r atomicfile.Renamer
	steps := []struct {
		name     string
		from, to string
		when     bool
	}{
		{"modules out", in.path(modulesName), filepath.Join(keep, modulesName), hadModules},
		{"modules in", filepath.Join(src, modulesName), in.path(modulesName), exists(filepath.Join(src, modulesName))},
		{"aside", in.path(in.exe), in.path(in.exe + oldSuffix), in.aside},
		{"binary", filepath.Join(src, in.exe), in.path(in.exe), true},
	}
	if in.aside {
		if err := removeFile(in.path(in.exe + oldSuffix)); err != nil {
			return err
		}
	}
	for _, s := range steps {
		if !s.when {
			continue
		}
		if err := in.step(s.name); err != nil {
			return err
		}
		if err := r.Aside(s.from, s.to); err != nil {
			return fmt.Errorf("selfupdate: %s: %w; the update was undone", s.name, err)
		}
	}
	return nil
}

// finish ends a swap whose executable is in place: keep becomes
// previous, and the staged folder and the journal go.
func (in install) finish(src string) error {
	if err := in.step("finish"); err != nil {
		return err
	}
	prev := in.work(prevName)
	if err := removeAll(prev); err != nil {
		return fmt.Errorf("selfupdate: clear %s: %w", prev, err)
	}
	if err := os.Rename(in.work(keepName), prev); err != nil {
		return fmt.Errorf("selfupdate: keep the previous version: %w", err)
	}
	if err := in.dropStaged(src); err != nil {
		return err
	}
	if err := in.step("forget"); err != nil {
		return err
	}
	return removeFile(in.work(journalName))
}

// recover finishes or undoes a swap a crash cut short (the journal is
// there), and removes a Windows executable set aside by the last one.
func (in install) recover() error {
	data, err := os.ReadFile(in.work(journalName))
	if errors.Is(err, fs.ErrNotExist) {
		if in.aside {
			_ = os.Remove(in.path(in.exe + oldSuffix)) // still running: the next start
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("selfupdate: read the journal: %w", err)
	}
	name, had, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
	if name != newName && name != prevName {
		return fmt.Errorf("selfupdate: journal %s: %q is not a staged version; remove the folder %s and update again", in.work(journalName), data, in.work())
	}
	src := in.work(name)
	if !exists(in.work(keepName)) { // finish had moved keep to previous
		return errors.Join(in.dropStaged(src), removeFile(in.work(journalName)))
	}
	if !exists(filepath.Join(src, in.exe)) {
		return in.finish(src) // the new executable is in place
	}
	return in.undo(src, had == "1")
}

// undo puts the running version back from keep after a swap that did
// not reach its executable.
func (in install) undo(src string, hadModules bool) error {
	keep := in.work(keepName)
	var r atomicfile.Renamer
	if !exists(in.path(in.exe)) && exists(in.path(in.exe+oldSuffix)) {
		if err := r.Aside(in.path(in.exe+oldSuffix), in.path(in.exe)); err != nil {
			return fmt.Errorf("selfupdate: put the executable back: %w", err)
		}
	}
	kept := filepath.Join(keep, modulesName)
	srcModules := filepath.Join(src, modulesName)
	if exists(in.path(modulesName)) && !exists(srcModules) && (exists(kept) || !hadModules) {
		if err := r.Aside(in.path(modulesName), srcModules); err != nil {
			return fmt.Errorf("selfupdate: put the modules back: %w", err)
		}
	}
	if exists(kept) {
		if err := r.Aside(kept, in.path(modulesName)); err != nil {
			return fmt.Errorf("selfupdate: put the modules back: %w", err)
		}
	}
	if err := removeAll(keep); err != nil {
		return err
	}
	if err := in.dropStaged(src); err != nil {
		return err
	}
	if err := in.step("forget"); err != nil {
		return err
	}
	return removeFile(in.work(journalName))
}

// dropStaged removes src when it is the staged new version (previous
// is kept).
func (in install) dropStaged(src string) error {
	if filepath.Base(src) != newName {
		return nil
	}
	if err := removeAll(src); err != nil {
		return fmt.Errorf("selfupdate: clear %s: %w", src, err)
	}
	return nil
}

// tidy removes the work folder when nothing is left in it, and returns err.
func (in install) tidy(err error) error {
	_ = os.Remove(in.work()) // fails while it holds anything
	return err
}

func removeFile(p string) error {
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("selfupdate: remove %s: %w", p, err)
	}
	return nil
}

// Update brings the install of the executable exe to the feed's newest
// release: a swap a crash cut short is first finished or undone; the
// feed is checked, the archive downloaded and checked, unpacked beside
// exe and swapped in. Any fault before the swap changes nothing and
// leaves nothing behind.
func Update(ctx context.Context, o Options, exe string) (Result, error) {
	in, err := locate(exe)
	if err != nil {
		return Result{}, err
	}
	var res Result
	err = in.locked(ctx, func() error {
		if err := in.recover(); err != nil {
			return err
		}
		r, err := Check(ctx, o)
		if err != nil || !r.Available {
			res = Result{From: o.Current, To: r.Latest}
			return err
		}
		res, err = in.update(ctx, o, r)
		return err
	})
	return res, err
}

func (in install) update(ctx context.Context, o Options, r Release) (Result, error) {
	data, err := download(ctx, o, r)
	if err != nil {
		return Result{}, err
	}
	files, err := bundleFiles(data, r.Archive, in.exe)
	if err != nil {
		return Result{}, err
	}
	if err := in.stageVersion(files, r.Latest); err != nil {
		return Result{}, errors.Join(err, removeAll(in.work(newName)))
	}
	if err := in.swap(in.work(newName), o.Current); err != nil {
		return Result{}, err
	}
	return Result{From: o.Current, To: r.Latest, Changed: true}, nil
}

// Rollback puts back the version the last update or rollback replaced,
// and keeps the running one in its place (so a rollback can be rolled
// back).
func Rollback(ctx context.Context, exe, current string) (Result, error) {
	in, err := locate(exe)
	if err != nil {
		return Result{}, err
	}
	var res Result
	err = in.locked(ctx, func() error {
		if err := in.recover(); err != nil {
			return err
		}
		prev := in.work(prevName)
		if !exists(filepath.Join(prev, in.exe)) {
			return errkind.Errorf(errkind.NotFound, "selfupdate: no previous version is kept in %s: a rollback goes back after `forgesync update`", in.work())
		}
		v, err := os.ReadFile(filepath.Join(prev, versionName))
		if err != nil {
			return fmt.Errorf("selfupdate: the previous version: %w", err)
		}
		if err := in.swap(prev, current); err != nil {
			return err
		}
		res = Result{From: current, To: strings.TrimSpace(string(v)), Changed: true}
		return nil
	})
	return res, err
}

// Recover finishes or undoes an update a crash cut short beside the
// executable exe, and removes a Windows executable an update set aside;
// every start of forgesync may call it (it reads one file when there is
// nothing to do). It waits for an update running now to end.
func Recover(ctx context.Context, exe string) error {
	in, err := locate(exe)
	if err != nil {
		return nil // a package manager's install: nothing of ours there
	}
	if !exists(in.work(journalName)) {
		return in.recover() // only the Windows executable set aside
	}
	return in.locked(ctx, in.recover)
}

// locked runs fn holding the lock of the work folder, which keeps two
// updates (or an update and a recovery) apart; when fn leaves nothing
// else in the work folder, the folder goes too.
func (in install) locked(ctx context.Context, fn func() error) error {
	if err := os.MkdirAll(in.work(), 0o755); err != nil {
		return fmt.Errorf("selfupdate: cannot write beside the executable (%w): run the update as the user that installed forgesync", err)
	}
	l, err := filelock.Acquire(ctx, in.work(lockName), nil)
	if err != nil {
		return in.tidy(fmt.Errorf("selfupdate: wait for another update: %w", err))
	}
	err = fn()
	if uerr := l.Unlock(); uerr != nil && err == nil {
		err = uerr
	}
	if entries, _ := os.ReadDir(in.work()); len(entries) == 1 && entries[0].Name() == lockName {
		_ = os.Remove(in.work(lockName))
	}
	return in.tidy(err)
}

// removeAll removes p and what it holds, file by file when the bulk
// removal fails (a file a virus scanner holds for a moment; wine).
func removeAll(p string) error {
	return atomicfile.RemoveAll(atomicfile.Renamer{}, p)
}
