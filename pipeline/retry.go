package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mjolnir-forge/forgesync/internal/errkind"
	"github.com/mjolnir-forge/forgesync/inventory/rejection"
)

// errNotRejected is returned (wrapped) by Retry for a name that is not a
// rejected archive in drop/rejected/.
var errNotRejected = errkind.New(errkind.NotFound, "not a rejected archive")

// RetryOptions names the rejected archives a retry moves back into drop.
type RetryOptions struct {
	// Archives are names in drop/rejected/; a name may be given as a path:
	// its last element counts.
	Archives []string
	// All takes every archive listed in drop/rejected/ instead.
	All bool
}

// Retry moves the rejected archives o names from drop/rejected/ back into
// the drop folder, removing their notes and records, and returns the names
// they have in drop (a -2 is added when drop holds one of the same name).
// A name that is not there refuses the whole call (ErrNotRejected) before
// anything moves.
func (p *Pipeline) Retry(o RetryOptions) ([]string, error) {
	dir := filepath.Join(p.opts.Drop, rejectedDir)
	names := slices.Clone(o.Archives)
	if o.All {
		recs, err := Rejections(p.opts.Drop, p.store.Dir)
		if err != nil {
			p.log.Warn("retry: the reasons of the rejected archives are not readable", "err", err)
		}
		names = nil
		for _, r := range recs {
			names = append(names, r.Archive)
		}
		slices.Sort(names)
	}
	for i, n := range names {
		names[i] = filepath.Base(n)
		info, err := os.Lstat(filepath.Join(dir, names[i]))
		if names[i] == "." || names[i] == ".." || filepath.Ext(names[i]) == ".txt" || err != nil || !info.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is %w in %s (`forgesync status` lists them)", n, errNotRejected, dir)
		}
	}
	var moved []string
	for _, n := range names {
		target := uniqueName(p.opts.Drop, n, nil)
		if err := os.Rename(filepath.Join(dir, n), filepath.Join(p.opts.Drop, target)); err != nil {
			return moved, fmt.Errorf("retry %s: %w", n, err)
		}
		moved = append(moved, target)
		if err := removeIfExists(filepath.Join(dir, n+".txt")); err != nil {
			return moved, fmt.Errorf("retry %s: remove its note: %w", n, err)
		}
	}
	if err := p.forgetRejections(names); err != nil {
		return moved, fmt.Errorf("retry: %w", err)
	}
	return moved, nil
}

// forgetRejections drops the records of the named archives.
func (p *Pipeline) forgetRejections(names []string) error {
	recs, err := loadRejections(p.store.Dir)
	if err != nil || len(recs) == 0 {
		return nil // a damaged list is started anew at the next rejection
	}
	kept := slices.DeleteFunc(recs, func(r rejection.Record) bool { return slices.Contains(names, r.Archive) })
	return p.writeRejections(kept)
}

// RetrySync moves rejected archives back into drop (see Retry) and
// processes the drop folder at once, as Sync does.
func (p *Pipeline) RetrySync(ctx context.Context, o RetryOptions) (*Summary, error) {
	if _, err := p.Retry(o); err != nil {
		return nil, err
	}
	return p.SyncDrop(ctx)
}

// Retry moves the rejected archives o names back into drop and processes
// the drop folder, through the writer; see Pipeline.Retry.
func (r *Runner) Retry(ctx context.Context, o RetryOptions) (*Summary, error) {
	return r.submit(ctx, func(ctx context.Context) (*Summary, error) {
		if _, err := r.p.Retry(o); err != nil {
			return nil, err
		}
		ready, err := readyArchives(r.p.opts.Drop)
		if err != nil {
			return nil, err
		}
		r.p.retryNow()
		r.enqueue(ready)
		defer r.dequeue(ready)
		return r.p.claim(ctx, ready, TriggerRequest)
	})
}

// InstallDir is the folder in drop where a command hands the daemon a copy
// of an archive to install (forgesync install while the daemon runs):
// the watcher leaves it alone (its name starts with a dot), and the daemon
// reads nothing outside its drop folder on a client's word.
const InstallDir = ".install"

// InstallHanded installs the archive a command copied to
// drop/.install/FOLDER/NAME, named "FOLDER/NAME" in archive, through the
// writer; see Pipeline.Install. Any other name is refused.
func (r *Runner) InstallHanded(ctx context.Context, archive string, o InstallOptions) (*Summary, error) {
	folder, name, ok := strings.Cut(archive, "/")
	for _, part := range []string{folder, name} {
		if !ok || part == "" || part == "." || part == ".." || strings.ContainsAny(part, `/\`) {
			return nil, errkind.Errorf(errkind.Invalid, "install %q: want FOLDER/NAME under %s, as forgesync install copies it", archive,
				filepath.Join(r.p.opts.Drop, InstallDir))
		}
	}
	path := filepath.Join(r.p.opts.Drop, InstallDir, folder, name)
	// A copy that is not there is the request's fault (404), not the
	// machine's; the check is repeated by the open that follows.
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, errkind.Errorf(errkind.NotFound, "install %q: no such copy in %s; copy the archive there first, or send it as the body",
			archive, filepath.Join(r.p.opts.Drop, InstallDir))
	}
	return r.submit(ctx, func(ctx context.Context) (*Summary, error) {
		return r.p.Install(ctx, path, o)
	})
}
