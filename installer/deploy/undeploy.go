package deploy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mjolnir-forge/forgesync/internal/atomicfile"
)

// Undeployed is what [Undeploy] did: the files it removed, and the files
// it kept with why.
type Undeployed struct {
	Removed []string
	Kept    []string // "PATH: why"
}

// Undeploy removes every file the ledger in stateDir records (the Lua
// scripts, the native module and its version file) and the bytes staged
// beside a held one, each only while it still holds the bytes forgesync
// wrote: one changed since is kept and named. Then it removes the ledger.
// It removes no folder. A file that cannot be removed (held by the game)
// fails it, the ledger kept, so that a later run finishes.
func Undeploy(stateDir string) (Undeployed, error) {
	var u Undeployed
	ledger := filepath.Join(stateDir, ledgerName)
	led, err := readLedger(ledger)
	if err != nil {
		return u, err
	}
	var errs []error
	for _, e := range sortedEntries(led) {
		removed, kept, err := removeIfOurs(e.Path, e.SHA256)
		if e.StagedSHA256 != "" {
			r2, k2, err2 := removeIfOurs(e.Path+PendingSuffix, e.StagedSHA256)
			removed, kept, err = append(removed, r2...), append(kept, k2...), errors.Join(err, err2)
		}
		u.Removed, u.Kept = append(u.Removed, removed...), append(u.Kept, kept...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return u, fmt.Errorf("deploy: remove the deployed files: %w", err)
	}
	if err := os.Remove(ledger); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return u, fmt.Errorf("deploy: %w", err)
	}
	return u, nil
}

// removeIfOurs removes the regular file path when its SHA-256 is want;
// another file there is kept and named, a missing one skipped.
func removeIfOurs(path, want string) (removed, kept []string, err error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case err != nil:
		return nil, nil, err
	case !fi.Mode().IsRegular():
		return nil, []string{path + ": not a file forgesync wrote (" + fi.Mode().Type().String() + ")"}, nil
	}
	got, err := fileSum(path)
	if err != nil {
		return nil, nil, err
	}
	if got != want {
		return nil, []string{path + ": changed since forgesync wrote it"}, nil
	}
	if err := (atomicfile.Renamer{}).Remove(path); err != nil {
		return nil, nil, err
	}
	return []string{path}, nil, nil
}
